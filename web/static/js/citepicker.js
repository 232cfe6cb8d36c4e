// Choosing knowledge-base entries to cite by searching inline (GET /api/rules/search): type, pick
// results with "Cite", remove chosen ones; `ids()` gives the chosen entry ids in order.
// The search is scoped to the game (`game`: its system; by default the system of the page's
// `[data-game]` game): its rulebook first, then club rulings, then the FWtBT FAQ and other games,
// each labelled with its source.  Another game's rulebook sections are shown but not citable
// (the server refuses them too); FWtBT and club rulings stay citable, marked as such.
import { api, explain } from "./api.js";
import { clear, h } from "./dom.js";
import { highlighted, sourceLabel } from "./entries.js";

let counter = 0;

const systems = new Map(); // game id -> its system (one request per game and page)

async function systemOf(gameId) {
  if (!gameId) return null;
  if (!systems.has(gameId)) {
    systems.set(
      gameId,
      api(`/api/games/${encodeURIComponent(gameId)}`).then(
        (g) => g.system || null,
        () => null,
      ),
    );
  }
  return systems.get(gameId);
}

function citable(item) {
  return !(item.scope === "other-game" && (item.kind === "rule" || item.kind === "conflict"));
}

export function citePicker({ label = "Search the rules to cite an entry", initial = "", game = null, gameId = null } = {}) {
  const n = ++counter;
  const pageGame = gameId || document.querySelector("[data-game]")?.dataset.game || null;
  const chosen = new Map(); // id -> heading
  const labels = new Map(); // id -> the entry as found (its source label, whether it binds)
  const input = h("input", { type: "search", id: `cite-q-${n}`, autocomplete: "off", value: initial });
  const status = h("p", { class: "note", "aria-live": "polite" });
  const results = h("ul", { class: "results cite-results", "aria-label": "Entries found" });
  const list = h("ul", { class: "chosen", "aria-label": "Entries cited" });
  let timer;
  let controller;

  function renderChosen() {
    clear(
      list,
      chosen.size
        ? [...chosen].map(([id, heading]) =>
            h(
              "li",
              { "data-entry": id },
              h("a", { href: `/rules/${encodeURIComponent(id)}`, target: "_blank", rel: "noopener" }, heading),
              sourceLabel(labels.get(id)),
              " ",
              h("button", { type: "button", class: "link", "aria-label": `Remove ${heading}`, onclick: () => (chosen.delete(id), renderChosen(), renderResults(last)) }, "remove"),
            ),
          )
        : h("li", { class: "note" }, "None cited yet."),
    );
  }

  let last = [];
  function renderResults(items) {
    last = items;
    clear(
      results,
      items.map((item) => {
        const heading = item.heading || item.title || item.id;
        const cited = chosen.has(item.id);
        const allowed = citable(item);
        return h(
          "li",
          { class: `entry scope-${item.scope || "any"}`, "data-scope": item.scope || "" },
          allowed
            ? h(
                "button",
                {
                  type: "button",
                  class: cited ? "secondary cite" : "cite",
                  "aria-pressed": cited ? "true" : "false",
                  "aria-label": `${cited ? "Cited" : "Cite"}: ${heading}`,
                  onclick: () => {
                    if (cited) {
                      chosen.delete(item.id);
                    } else {
                      chosen.set(item.id, heading);
                      labels.set(item.id, item);
                    }
                    renderChosen();
                    renderResults(last);
                  },
                },
                cited ? "Cited" : "Cite",
              )
            : h("button", { type: "button", class: "secondary cite", disabled: true, title: "Another game's rulebook cannot be cited in this game's dispute" }, "Not citable"),
          " ",
          h("a", { href: `/rules/${encodeURIComponent(item.id)}`, target: "_blank", rel: "noopener" }, heading),
          sourceLabel(item),
          item.overruled ? h("span", { class: "source-label overruled" }, "overruled later") : null,
          item.snippet ? h("p", { class: "snippet" }, highlighted(item.snippet)) : null,
        );
      }),
    );
  }

  async function search() {
    const q = input.value.trim();
    if (!q) {
      status.textContent = "";
      return renderResults([]);
    }
    controller?.abort();
    controller = new AbortController();
    try {
      const params = new URLSearchParams({ q, limit: "8" });
      const system = game || (await systemOf(pageGame));
      if (system) params.set("game", system);
      const found = await api(`/api/rules/search?${params}`, { signal: controller.signal });
      status.textContent = `${found.results.length} found`;
      renderResults(found.results);
    } catch (err) {
      if (err.name !== "AbortError") status.textContent = explain(err);
    }
  }
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener("keydown", (ev) => ev.key === "Enter" && (ev.preventDefault(), search()));
  renderChosen();
  if (initial) search();
  const el = h(
    "fieldset",
    { class: "cite-picker" },
    h("legend", {}, "Citations"),
    list,
    h("label", { for: input.id }, label),
    input,
    status,
    results,
  );
  return {
    el,
    ids: () => [...chosen.keys()],
    add: (id, heading, item = null) => (chosen.set(id, heading || id), item && labels.set(id, item), renderChosen()),
  };
}
