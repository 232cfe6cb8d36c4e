// The "rules" button of an event, from the knowledge base (GET /api/games/<id>/events/<seq>/rulings):
// the game's own sections and charts first (a chart as its table), then the conflicts of readings
// that apply, then club rulings, then other games' rulings under a heading that names each game
// (persuasive, not binding here); never an entry's id. "Not available" where the server has none.
import { api, explain } from "./api.js";
import { clear, h, humanize } from "./dom.js";
import { entryItem, persuasive } from "./entries.js";

export async function openRulings(gameId, event, gameTitle = null) {
  const dialog = document.getElementById("rules-dialog");
  const body = document.getElementById("rules-dialog-body");
  document.getElementById("rules-dialog-title").textContent = `Rules for event #${event.seq} (${humanize(event.type).toLowerCase()})`;
  clear(body, h("p", {}, "Looking up…"));
  if (!dialog.open) dialog.showModal();
  try {
    const found = await api(`/api/games/${gameId}/events/${event.seq}/rulings`);
    clear(body, rulingsView(found, gameTitle));
  } catch (err) {
    clear(body, h("p", { class: "unavailable" }, err.status === 404 ? "Rules look-up is not available on this server." : explain(err)));
  }
}

function section(kind, title, items, { note = null, empty = null } = {}) {
  if (!items.length && !empty) return null;
  return h(
    "section",
    { class: `rulings-group rulings-${kind}` },
    h("h3", {}, title),
    note,
    items.length ? h("ul", { class: "results" }, items.map(entryItem)) : h("p", {}, empty),
  );
}

export function rulingsView(found, gameTitle = null) {
  const governing = found.governing || [];
  const related = found.related || [];
  const own = governing.filter((e) => e.kind !== "conflict");
  const conflicts = governing.filter((e) => e.kind === "conflict");
  const title = gameTitle || (governing.find((e) => e.belongs_to) || {}).belongs_to || "This game";
  const binding = related.filter((e) => !persuasive(e));
  // another game's rulings last, a group per game, its heading naming the game
  const others = new Map();
  for (const e of related.filter(persuasive)) {
    const game = e.belongs_to || "another game";
    if (!others.has(game)) others.set(game, []);
    others.get(game).push(e);
  }
  return [
    section("own", `${title}: sections and charts`, own, { empty: "No section of this game's rules is linked to this event." }),
    section("conflicts", "Conflicts of readings", conflicts, {
      note: h("p", { class: "note" }, "Passages of the rules that can be read two ways, and the reading this game applies."),
    }),
    section("club", "Club rulings", binding.filter((e) => e.scope === "club")),
    section("rulings", `Rulings of ${title}`, binding.filter((e) => e.scope !== "club")),
    ...[...others].map(([game, items]) =>
      section("other-game", `Rulings of another game: ${game}`, items, {
        note: h("p", { class: "note persuasive-note" }, `These rulings are of ${game}, not of this game: persuasive at most, never binding here.`),
      }),
    ),
    binding.length || others.size ? null : h("p", { class: "note" }, "No ruling is close to this event."),
  ];
}
