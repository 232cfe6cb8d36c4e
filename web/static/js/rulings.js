// The "rules" button of an event: the governing sections and related rulings, from the knowledge
// base (GET /api/games/<id>/events/<seq>/rulings); "not available" where the server has none.
import { api, explain } from "./api.js";
import { clear, h, humanize } from "./dom.js";
import { entryItem, persuasive } from "./entries.js";

export async function openRulings(gameId, event) {
  const dialog = document.getElementById("rules-dialog");
  const body = document.getElementById("rules-dialog-body");
  document.getElementById("rules-dialog-title").textContent = `Rules for event #${event.seq} (${humanize(event.type).toLowerCase()})`;
  clear(body, h("p", {}, "Looking up…"));
  if (!dialog.open) dialog.showModal();
  try {
    const found = await api(`/api/games/${gameId}/events/${event.seq}/rulings`);
    const section = (title, items, note = null) =>
      h("section", {}, h("h3", {}, title), note, items && items.length ? h("ul", { class: "results" }, items.map(entryItem)) : h("p", {}, "None found."));
    // another game's rulings come last, each labelled with that game: shown for comparison only
    const others = (found.related || []).filter(persuasive);
    const note = others.length
      ? h("p", { class: "note persuasive-note" }, "Rulings of another game are persuasive, not binding in this game: each is labelled with the game it belongs to.")
      : null;
    clear(body, section("Governing sections", found.governing), section("Related rulings", found.related, note));
  } catch (err) {
    clear(body, h("p", { class: "unavailable" }, err.status === 404 ? "Rules look-up is not available on this server." : explain(err)));
  }
}
