// How a game ended, in words: shared by the archive and profiles (a module of its own, so that
// importing it runs no page's script: profile.js once imported archive.js, whose page script then
// failed on the profile page).
import { sideName } from "./dom.js";

export function resultText(game) {
  const r = game.result || {};
  const who = (side) => (side ? `${game.sides[side] || sideName(side)} (${sideName(side)})` : "");
  switch (r.reason) {
    case "resignation":
      return `${who(r.loser)} resigned: ${who(r.winner)} wins`;
    case "agreement":
      return "Drawn by agreement";
    case "timeout":
      return `${who(r.loser)} ran out of time: ${who(r.winner)} wins`;
    case "forfeit":
    case "adjudication":
      return r.winner ? `${who(r.winner)} wins by ${r.reason}` : `Drawn by ${r.reason}`;
    default:
      if (r.winner) return `${who(r.winner)} wins${r.level ? ` (${r.level})` : ""}`;
      return r.outcome === "draw" ? `Draw${r.level && r.level !== "draw" ? ` (${r.level})` : ""}` : "Ended";
  }
}
