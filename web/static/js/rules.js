// Rules search: results as one types (GET /api/rules/search), scoped to a game (its rulebook
// first, then club rulings, then the FWtBT FAQ and other games, each labelled with its source),
// filtered by document and kind.
import { api, explain } from "./api.js";
import { clear, h } from "./dom.js";
import { entryItem } from "./entries.js";

const q = document.getElementById("q");
const documentFilter = document.getElementById("document");
const kindFilter = document.getElementById("kind");
const gameFilter = document.getElementById("game");
const status = document.getElementById("search-status");
const results = document.getElementById("results");
const seenKinds = new Set(["conflict"]);
let timer;
let controller;

function addOptions(select, seen, values) {
  for (const value of values) {
    if (!value || seen.has(value)) continue;
    seen.add(value);
    select.append(h("option", { value }, value));
  }
}

async function search() {
  const text = q.value.trim();
  const params = new URLSearchParams(location.search);
  params.set("q", text);
  if (documentFilter.value) params.set("document", documentFilter.value);
  else params.delete("document");
  if (kindFilter.value) params.set("kind", kindFilter.value);
  else params.delete("kind");
  if (gameFilter.value) params.set("game", gameFilter.value);
  else params.delete("game");
  history.replaceState(null, "", `?${params}`);
  if (!text && kindFilter.value === "conflict") return listConflicts();
  if (!text) {
    clear(results);
    status.textContent = "Type to search.";
    return;
  }
  controller?.abort();
  controller = new AbortController();
  const query = new URLSearchParams({ q: text, limit: "20" });
  if (documentFilter.value) query.set("document", documentFilter.value);
  if (gameFilter.value) query.set("game", gameFilter.value);
  try {
    const found = await api(`/api/rules/search?${query}`, { signal: controller.signal });
    const items = found.results || [];
    addOptions(kindFilter, seenKinds, items.map((r) => r.kind));
    const shown = kindFilter.value ? items.filter((r) => r.kind === kindFilter.value) : items;
    status.textContent = `${shown.length} result${shown.length === 1 ? "" : "s"}${found.took_ms !== undefined ? ` in ${found.took_ms} ms` : ""}`;
    clear(results, shown.map(labelled));
  } catch (err) {
    if (err.name === "AbortError") return;
    clear(results);
    status.textContent = err.status === 404 ? "Rules search is not available on this server." : explain(err);
  }
}

// The kind "conflict" with nothing typed: every reading the games settle in the open, with its
// passages, what the rules apply and the game option giving the other reading.
async function listConflicts() {
  controller?.abort();
  controller = new AbortController();
  const query = new URLSearchParams({ kind: "conflict" });
  if (gameFilter.value) query.set("game", gameFilter.value);
  try {
    const found = await api(`/api/rules/search?${query}`, { signal: controller.signal });
    const items = found.results || [];
    status.textContent = `${items.length} conflict${items.length === 1 ? "" : "s"} of readings`;
    clear(results, items.map(conflictItem));
  } catch (err) {
    if (err.name === "AbortError") return;
    clear(results);
    status.textContent = err.status === 404 ? "Rules search is not available on this server." : explain(err);
  }
}

function conflictItem(item) {
  const li = labelled(item);
  li.classList.add("conflict");
  const option = item.option_detail;
  li.append(
    h("ul", { class: "readings" }, (item.readings || []).map((r) => h("li", {}, h("strong", {}, `${r.rule}: `), `“${r.quote}”`))),
    h("p", { class: "engine-reading" }, h("strong", {}, "Applied: "), item.engine_reading || ""),
    option
      ? h("p", { class: "conflict-option", "data-option": option.name }, h("strong", {}, "Game option: "), `${option.name} — ${(option.choices || []).join(" or ")} (default ${option.default})`)
      : item.option
        ? h("p", { class: "conflict-option" }, h("strong", {}, "Option: "), item.option)
        : h("p", { class: "conflict-option" }, "No option: one reading for every game."),
  );
  return li;
}

function labelled(item) {
  const li = entryItem(item); // with its source label (another game's rulings: persuasive, not binding)
  if (item.overruled) li.querySelector(".source-label, a, strong").after(h("span", { class: "source-label overruled" }, "overruled later"));
  return li;
}

function soon() {
  clearTimeout(timer);
  timer = setTimeout(search, 150);
}

document.getElementById("search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  search();
});
q.addEventListener("input", soon);
documentFilter.addEventListener("change", search);
kindFilter.addEventListener("change", search);
gameFilter.addEventListener("change", search);

const initial = new URLSearchParams(location.search);
// the games a search can be scoped to (their rulebook first, then the rest, labelled), loaded
// without holding up the page: a player may already be typing
api("/api/systems")
  .then((systems) => {
    for (const s of systems) gameFilter.append(h("option", { value: s.name }, s.title || s.name));
    // the documents by their titles, every game's rulebook whether or not a result named it yet
    const chosen = documentFilter.value;
    const documents = [
      ...systems.filter((s) => s.document).map((s) => [s.document, `${s.title.split(" - ")[0]} rulebook`]),
      ["fwtbt-faq", "For Whom the Bell Tolls FAQ"],
      ["club", "Club rulings"],
    ];
    clear(documentFilter, h("option", { value: "" }, "All documents"), documents.map(([value, text]) => h("option", { value }, text)));
    documentFilter.value = documents.some(([value]) => value === chosen) ? chosen : "";
    if (initial.get("game")) {
      gameFilter.value = initial.get("game");
      search();
    }
  })
  .catch(() => {
    /* searching works without the game list */
  });
for (const [select, seen, key] of [[documentFilter, new Set(), "document"], [kindFilter, seenKinds, "kind"]]) {
  if (initial.get(key)) {
    addOptions(select, seen, [initial.get(key)]);
    select.value = initial.get(key);
  }
}
if (initial.get("q")) q.value = initial.get("q");
search();
q.focus();
