// Each game event in words.  The game's own events (creation, orders, dice, take backs, disputes)
// get a sentence here; a rules event (kind "Game.Recorded") is worded by its rules module: the
// server sends that sentence as the event's `text`.
import { humanize } from "./dom.js";

const list = (xs) => (xs || []).join(", ");
// A point on a table [x, y] in inches, or a hex label.
const place = (p) => (Array.isArray(p) ? `(${p.map((v) => Math.round(v * 100) / 100).join(", ")})` : String(p));
const route = (path) => (path || []).map(place).join(" → ");

const SENTENCES = {
  GameCreated: (p) =>
    `Game created: ${p.labels && p.labels.title ? p.labels.title + ", " : ""}${p.system} scenario ${p.scenario}`,
  EntropyAdded: (p, e) => `${e.side || "A player"} added entropy to the dice`,
  DiceRolled: (p) =>
    (p.rolls || [])
      .map((r) => `Die #${r.index} (d${r.sides}${r.purpose ? ", " + r.purpose : ""}) rolled ${r.value}`)
      .join("; "),
  CommandAccepted: (p) => `Order: ${commandWords(p.command || {})}${typeof p.origin === "number" ? ` (replayed from order #${p.origin})` : ""}`,
  Rebased: (p) => {
    const n = (status) => (p.report || []).filter((r) => r.status === status).length;
    return `Dispute ${p.dispute} rebased: ${n("kept")} orders kept, ${n("re-rolled")} re-rolled, ${n("dropped")} dropped`;
  },
  TakebackRequested: (p, e) => `${e.side || p.side} asked to take back everything from event #${p.from_seq}`,
  TakebackAnswered: (p, e) => `${e.side || p.side} ${p.accepted ? "accepted" : "declined"} the take back`,
  Retracted: (p) => `Events retracted (${p.reason || "take back"}${p.ref ? " " + p.ref : ""}): the board is restored`,
  DisputeOpened: (p, e) => `${e.side || p.side} disputed event #${p.seq} (${p.dispute}): “${p.claim}”${p.citations && p.citations.length ? `, citing ${list(p.citations)}` : ""}`,
  DisputeResolved: (p) => `Dispute ${p.dispute} ${p.verdict}${p.remedy ? ` (${p.remedy})` : ""}${p.note ? `: ${p.note}` : ""}`,
  GameEnded: (p) => `Game over${p.result && p.result.winner ? `: ${p.result.winner} wins` : ""}`,
};


export function commandWords(command) {
  const parts = [String(command.type || "command").replace(/_/g, " ")];
  if (command.unit || command.units) parts.push(command.unit || list(command.units));
  if (command.attackers) parts.push(`with ${list(command.attackers)}`);
  if (command.path) parts.push(command.path.length ? `along ${route(command.path)}` : "staying put");
  const target = command.defender_hex || command.hex;
  if (target) parts.push(command.attackers ? `on ${target}` : `to ${target}`);
  return parts.join(" ");
}

function fields(data) {
  return Object.entries(data || {})
    .map(([k, v]) => `${humanize(k).toLowerCase()}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
}

// Events that record the game's bookkeeping, not a rules decision: not disputed.
export const BOOKKEEPING = new Set(["GameCreated", "EntropyAdded", "TakebackRequested", "TakebackAnswered", "Retracted", "DisputeOpened", "DisputeResolved", "Rebased"]);

export function describe(event) {
  const p = event.payload || {};
  if (event.kind === "Game.Recorded") return event.text || event.type;
  const sentence = SENTENCES[event.type];
  if (sentence) {
    try {
      return sentence(p, event);
    } catch {
      /* fall through to the generic text */
    }
  }
  const rest = fields(p);
  return rest ? `${humanize(event.type)}: ${rest}` : humanize(event.type);
}
