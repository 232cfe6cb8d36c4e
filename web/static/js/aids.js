// Player aids in the game: the game's own tables as the server serves them
// (GET /api/systems/<system>/tables/<name>: the CRT, its results key, the terrain effects, ...)
// and a rules drawer searching GET /api/rules/search?q=..&game=<system>: the game's own rulebook
// first, then club rulings, then the FWtBT FAQ, labelled as another game's official rulings.
import { api, explain } from "./api.js";
import { clear, h, humanize } from "./dom.js";
import { highlighted, whyMatched } from "./entries.js";

const tableCache = new Map();

export function loadTable(system, name) {
  if (!(system.tables || []).includes(name)) return Promise.resolve(null);
  const key = `${system.name}/${name}`;
  if (!tableCache.has(key)) tableCache.set(key, api(`/api/systems/${system.name}/tables/${name}`).catch(() => null));
  return tableCache.get(key);
}

// A table's title in words: "crt" -> "Combat results table", "tec" -> "Terrain effects chart".
const TITLES = {
  crt: "Combat results table (CRT)",
  crt_results: "Combat results key",
  tec: "Terrain effects chart (TEC)",
  movement: "Movement allowances",
  sequence: "Sequence of play",
  sequence_of_play: "Sequence of play",
};
export const tableTitle = (name) => TITLES[name] || humanize(name);

// A value in words: numbers and strings as they are, lists joined, objects as "key: value" pairs.
export function valueWords(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.map(valueWords).join(", ");
  if (typeof v === "object") {
    return Object.entries(v)
      .map(([k, x]) => `${humanize(k).toLowerCase()}: ${valueWords(x)}`)
      .join("; ");
  }
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

// A results grid ({columns, rows: [{roll, results}]}), optionally with one column and row marked.
export function gridTable(table, { column = null, roll = null, caption = null } = {}) {
  const ci = column !== null ? table.columns.indexOf(column) : -1;
  return h(
    "table",
    { class: "crt grid" },
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Roll"), table.columns.map((c, i) => h("th", { scope: "col", class: i === ci ? "hit-col" : null }, c)))),
    h(
      "tbody",
      {},
      table.rows.map((r) =>
        h(
          "tr",
          { class: roll !== null && r.roll === roll ? "hit-row" : null },
          h("th", { scope: "row" }, String(r.roll)),
          r.results.map((x, i) => h("td", { class: i === ci ? (roll !== null && r.roll === roll ? "hit" : "hit-col") : null }, valueWords(x))),
        ),
      ),
    ),
  );
}

// A sequence of play ({rule, source, note, steps: [{step, phases, name, who, text, automatic}]},
// `phases` the ids the game's phase reports during that step), the step of the current phase marked.
export function sequenceTable(data, current = null) {
  return [
    data.note ? h("p", { class: "note" }, data.note) : null,
    h(
      "table",
      { class: "aid sequence" },
      h("caption", {}, data.source || `Sequence of play${data.rule ? ` (rule ${data.rule})` : ""}`),
      h("thead", {}, h("tr", {}, ["Step", "Phase", "What happens"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        data.steps.map((s) =>
          h(
            "tr",
            { "data-phases": (s.phases || []).join(" ") },
            h("th", { scope: "row" }, s.step || ""),
            h("td", {}, s.name || "", h("span", { class: "now-mark" }, " (now)"), s.who ? h("span", { class: "who" }, s.who) : ""),
            h("td", {}, s.text || "", s.automatic ? h("em", {}, " The server runs this step.") : ""),
          ),
        ),
      ),
    ),
  ].filter(Boolean);
}

// Mark the current phase in every sequence-of-play table inside `box`.
export function markPhase(box, phase) {
  for (const row of box.querySelectorAll("table.sequence tr[data-phases]")) {
    const now = Boolean(phase) && row.dataset.phases.split(" ").includes(phase);
    row.classList.toggle("current", now);
    if (now) row.setAttribute("aria-current", "step");
    else row.removeAttribute("aria-current");
  }
}

// Any table the server serves, drawn by its shape.
export function anyTable(data) {
  if (data && Array.isArray(data.steps)) return sequenceTable(data);
  if (data && Array.isArray(data.columns) && Array.isArray(data.rows)) return gridTable(data);
  if (Array.isArray(data)) return h("ul", {}, data.map((x) => h("li", {}, valueWords(x))));
  if (data && typeof data === "object") {
    return h(
      "table",
      { class: "aid" },
      h(
        "tbody",
        {},
        Object.entries(data).map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, humanize(k)), h("td", {}, v && typeof v === "object" && !Array.isArray(v) ? objectCells(v) : valueWords(v)))),
      ),
    );
  }
  return h("p", {}, valueWords(data));
}

const objectCells = (v) => h("dl", { class: "aid-cells" }, Object.entries(v).map(([k, x]) => [h("dt", {}, humanize(k)), h("dd", {}, valueWords(x))]));

// The aids box: one disclosure per table, loaded when opened; `phase()` gives the phase to mark
// in the sequence of play (markPhase marks it again when the game moves on).
export function aidTables(box, system, { phase = () => null } = {}) {
  const names = system.tables || [];
  if (!names.length) return clear(box, h("p", {}, "This game serves no tables."));
  clear(
    box,
    names.map((name) => {
      const body = h("div", { class: "aid-body" }, "Loading…");
      const details = h("details", { class: "aid", "data-table": name }, h("summary", {}, tableTitle(name)), body);
      details.addEventListener("toggle", async () => {
        if (!details.open || details.dataset.loaded) return;
        const data = await loadTable(system, name);
        details.dataset.loaded = "true";
        clear(body, data === null ? h("p", {}, "Not available.") : anyTable(data));
        markPhase(body, phase());
      });
      return details;
    }),
  );
}

// -- the rules drawer -----------------------------------------------------------------------------
const SCOPES = [
  ["game", "This game's rulebook"],
  ["club", "Club rulings"],
  ["fwtbt", "FWtBT FAQ — official rulings for another game (For Whom the Bell Tolls), shown for comparison"],
  ["other-game", "Other games' rulebooks"],
];

// Where a result comes from: the server's `scope` when it sends one, else read from its document.
export function scopeOf(item, system) {
  if (item.scope) return item.scope;
  if (item.kind === "ruling" || item.kind === "club_ruling" || item.club) return "club";
  if (item.document === system.document) return "game";
  if (String(item.document || "").startsWith("fwtbt")) return "fwtbt";
  return "other-game";
}

export function rulesDrawer({ form, input, results, system }) {
  let timer;
  let controller;
  const search = async () => {
    const q = input.value.trim();
    if (!q) return clear(results);
    controller?.abort();
    controller = new AbortController();
    try {
      const found = await api(`/api/rules/search?${new URLSearchParams({ q, game: system.name, limit: "20" })}`, { signal: controller.signal });
      const groups = new Map(SCOPES.map(([scope]) => [scope, []]));
      for (const item of found.results || []) groups.get(scopeOf(item, system))?.push(item);
      const shown = SCOPES.filter(([scope]) => groups.get(scope).length);
      clear(
        results,
        shown.length ? null : h("p", {}, "Nothing found."),
        shown.map(([scope, title]) =>
          h(
            "section",
            { class: `rules-group scope-${scope}`, "data-scope": scope },
            h("h3", {}, title),
            h(
              "ul",
              { class: "entries" },
              groups.get(scope).map((item) =>
                h(
                  "li",
                  { class: "entry" },
                  h("a", { href: `/rules/${encodeURIComponent(item.id)}`, target: "_blank", rel: "noopener" }, item.heading || item.title || "Entry"),
                  h("span", { class: "meta" }, ` ${[item.source || null, item.rule_refs && item.rule_refs.length ? `rule ${item.rule_refs.join(", ")}` : null].filter(Boolean).join(" · ")}`),
                  item.snippet ? h("p", { class: "snippet" }, highlighted(item.snippet)) : null,
                  whyMatched(item),
                ),
              ),
            ),
          ),
        ),
      );
    } catch (err) {
      if (err.name !== "AbortError") clear(results, h("p", {}, err.status === 404 ? "Rules search is not available on this server." : explain(err)));
    }
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    search();
  });
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 200);
  });
}
