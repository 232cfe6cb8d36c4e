// Each game event in words.  The game's own events (creation, orders, dice, take backs, disputes)
// get a sentence here; a rules event (kind "Game.Recorded") is worded by its rules module: the
// server sends that sentence as the event's `text`.
import { humanize, plural, sideName } from "./dom.js";

const list = (xs) => (xs || []).join(", ");
// A cited knowledge-base entry: its heading (or rule) rather than the record.
// A cited entry in words; another game's ruling (`binding: false`) says whose it is and that it
// does not bind this game.
export const citationWords = (c) => {
  if (!c || typeof c !== "object") return String(c);
  const words = c.heading || c.title || (c.rule_refs ? `rule ${c.rule_refs.join(", ")}` : c.id);
  return c.binding === false ? `${words} (${c.belongs_to || "another game"}: persuasive, not binding)` : words;
};
// A point on a table [x, y] in inches (two numbers; a route on a table is a list of them), or a hex.
const isPoint = (v) => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === "number");
const place = (p) => (Array.isArray(p) ? `(${p.map((v) => Math.round(v * 100) / 100).join(", ")})` : String(p));

// A die as a player reads it: "Die 1 of the game (a d6 for combat)" -- counted from 1; the dice
// details give its index (from 0) for checking the roll.
const dieWords = (r, names) => `Die ${r.index + 1} of the game (a d${r.sides}${r.purpose ? ` for ${purposeWords(r.purpose, names)}` : ""})`;

const SENTENCES = {
  // by its title; the codes only for a game that has none
  GameCreated: (p) => `Game created: ${p.labels && p.labels.title ? p.labels.title : `${p.system} scenario ${p.scenario}`}`,
  EntropyAdded: (p, e) => `${e.side || "A player"} added entropy to the dice`,
  DiceRolled: (p, e, names) =>
    (p.rolls || [])
      .map((r) => `${dieWords(r, names)} rolled ${r.value}`)
      .join("; "),
  // a re-decided order given the dice it first rolled (a verdict adopting a reading, issue 28)
  DiceReused: (p, e, names) =>
    (p.rolls || [])
      .map((r) => `${dieWords(r, names)} given again: ${r.value}, as first rolled at event #${r.from_seq}`)
      .join("; "),
  // an order whose details the reader may not see (hidden information) says so
  CommandAccepted: (p, e, names) =>
    `Order: ${commandWords(p.command || {}, names)}${e.redacted ? " (details hidden)" : ""}${typeof p.origin === "number" ? ` (replayed from order #${p.origin})` : ""}`,
  Rebased: (p) => {
    const n = (status) => (p.report || []).filter((r) => r.status === status).length;
    return `A dispute's rebase: ${n("kept")} orders kept, ${n("re-rolled")} re-rolled, ${n("dropped")} dropped`;
  },
  TakebackRequested: (p, e) => `${sideName(e.side || p.side)} asked to take back everything from event #${p.from_seq}`,
  TakebackAnswered: (p, e) => `${sideName(e.side || p.side)} ${p.accepted ? "accepted" : "declined"} the take back`,
  Retracted: (p) => `Events retracted (${p.reason || "take back"}${p.ref ? " " + p.ref : ""}): the board is restored`,
  DisputeOpened: (p, e) => `${sideName(e.side || p.side)} disputed event #${p.seq}: “${p.claim}”${p.citations && p.citations.length ? `, citing ${list(p.citations.map(citationWords))}` : ""}`,
  DisputeAlternative: (p, e, names) => `The dispute claims what should have happened: ${alternativeWords(p, names)}`,
  DisputeResolved: (p) => `A dispute was ${p.verdict}${p.remedy ? ` (${p.remedy})` : ""}${p.note ? `: ${p.note}` : ""}`,
  VerdictBasis: (p, e, names) =>
    `The verdict was decided on a what-if (digest ${String(p.what_if).slice(0, 12)}…)${p.adopted ? `; from event #${p.from_seq} ${alternativeWords(p, names)} applies` : ""}`,
  VerdictProposed: (p, e) => `${sideName(e.side || p.side)} proposed to settle a dispute by agreement: ${p.verdict}${p.note ? ` (“${p.note}”)` : ""}`,
  VerdictAgreed: (p, e) => `${sideName(e.side || p.side)} accepted: the dispute is settled by both players' agreement, ${p.verdict}`,
  GameEnded: (p) => `Game over${p.result && p.result.winner ? `: ${sideName(p.result.winner)} wins` : ""}`,
  // the game's life (issue 17: web/static/js/lifecycle.js): invitations, draws, resignation, clocks
  Invited: (p) => `Invitation sent: ${plural((p.pending || []).length, "player")} must accept before the game starts`,
  InvitationAccepted: (p, e) => `${e.user} accepted the invitation (${sideName(e.side)})`,
  InvitationDeclined: (p, e) => `${e.user} declined the invitation (${sideName(e.side)}): the game will not start`,
  DrawOffered: (p, e) => `${e.user} (${sideName(e.side)}) offered a draw`,
  DrawDeclined: (p, e) => `${e.user} (${sideName(e.side)}) declined the draw`,
  Resigned: (p, e) => `${e.user} (${sideName(e.side)}) resigned`,
  VacationTaken: (p, e) => `${e.user} (${sideName(e.side)}) took ${plural(p.days, "day")} of vacation: the clock stands still`,
  ClockExpired: (p, e) => `${sideName(e.side)}'s clock ran out`,
  ClockLow: (p, e) => `${sideName(e.side)}'s clock is running low`,
  Claimed: (p, e) => `${e.user} (${sideName(e.side)}) claimed the game on time`,
  // the operator's account of breaks the server itself made in this log (docs/audit-and-disputes.md)
  ChainRepaired: (p) => `The operator recorded that the server stored ${list((p.repairs || []).map((r) => `event #${r.seq}`))} out of place (a lost race, since fixed): ${p.reason}`,
  HeadReconciled: (p, e) => `The operator recorded that this game's log was restored to an earlier point${p.lost_head ? `: the events #${e.seq} to #${p.lost_head.version} first recorded are lost` : ""} (${p.reason})`,
  Adjudicated: (p) => `A club arbiter decided the game after its round's deadline (${p.kind === "forfeit" ? "a forfeit" : "an adjudication"}): ${p.winner ? `${sideName(p.winner)} wins` : "a draw"}${p.note ? ` (“${p.note}”)` : ""}`,
  ClaimDecided: (p) => `An arbiter decided the claim on time: ${p.decision === "forfeit" ? "forfeit" : "the game goes on"}${p.note ? ` (${p.note})` : ""}`,
};


// An order in words, its fields read by their declared kinds (GET /api/systems/<name> `commands`):
// `names.unit(id)` and `names.hex(hex)` word units and hexes (ids and labels without them).
const PLAIN = { unit: (x) => x, hex: (x) => x, kinds: () => ({}) };

// The names for orders in a game: units by their printed name and hexes by their place (from the
// state), each command's fields by the kinds its declaration gives (`system.commands`).
export function orderNames(state, system) {
  const units = (state && state.units) || {};
  const places = new Map(((state && state.map && state.map.places) || []).map((p) => [String(p.hex), p.label || p.name]));
  const specs = new Map(((system && system.commands) || []).map((c) => [c.type, c]));
  return {
    unit: (uid) => (units[uid] && units[uid].name) || uid,
    hex: (hex) => (places.has(hex) ? `${places.get(hex)} (${hex})` : hex),
    kinds: (type) => Object.fromEntries(Object.entries((specs.get(type) || {}).fields || {}).map(([name, f]) => [name, f.kind])),
  };
}

// What a die was rolled for, as the rules wrote it ("movement nat1"), with units by their names
// ("movement Falangists company 1").
export function purposeWords(purpose, names = PLAIN) {
  return String(purpose)
    .split(" ")
    .map((word) => names.unit(word))
    .join(" ");
}

export function commandWords(command, names = PLAIN) {
  const kinds = names.kinds(command.type) || {};
  const value = (kind, v) => {
    if (kind === "unit") return names.unit(v);
    if (kind === "units") return (v || []).map(names.unit).join(", ") || "no unit";
    if (kind === "hex") return names.hex(v);
    if (kind === "path") return (v || []).map((step) => (isPoint(step) ? place(step) : names.hex(step))).join(" → ");
    if (kind === "point" && v) return place([v.x, v.y]);
    return words(v);
  };
  // a structured value: its strings that name units by their names, objects as "key value" pairs
  const words = (v) => {
    if (isPoint(v)) return place(v);
    if (Array.isArray(v)) return v.map(words).join(v.length && v.every(isPoint) ? " → " : "; "); // a route, or a list
    if (v && typeof v === "object") return Object.entries(v).map(([k, x]) => `${key(k)} ${words(x)}`).join(", ");
    return typeof v === "string" ? names.unit(v) : String(v);
  };
  // a record's key: a unit by its name (written orders keyed by unit), else the field in words
  const key = (k) => {
    const unit = names.unit(k);
    return unit !== k ? `${unit}:` : humanize(k).toLowerCase();
  };
  const first = (k) => (["unit", "units"].includes(kinds[k]) ? 0 : 1); // who, then the rest
  const parts = Object.entries(command)
    .filter(([k]) => k !== "type")
    .sort(([a], [b]) => first(a) - first(b))
    .map(([k, v]) => `${humanize(k).toLowerCase()} ${value(kinds[k], v)}`);
  const verb = String(command.type || "command").replace(/_/g, " ");
  return parts.length ? `${verb}: ${parts.join("; ")}` : verb;
}

// An option's value in words (+2, same unit, yes), as the server words readings.
export const valueWords = (v) => (typeof v === "boolean" ? (v ? "yes" : "no") : typeof v === "number" ? (v > 0 ? `+${v}` : String(v)) : String(v).replace(/_/g, " "));
const optionLabel = (name) => humanize(name);
// A claimed or adopted alternative: the reading's options and values, and/or another order.
export function alternativeWords(p, names = PLAIN) {
  const parts = Object.entries(p.reading || {}).map(([k, v]) => `${optionLabel(k)}: ${valueWords(v)}`);
  if (p.instead) parts.push(`the order ${commandWords(p.instead, names)}`);
  return parts.join("; ") || "the disputed event removed";
}

// Fields in words (never a JSON record): lists joined, records as "key value" pairs.
const fieldValue = (v) =>
  Array.isArray(v) ? v.map(fieldValue).join(", ") : v && typeof v === "object" ? Object.entries(v).map(([k, x]) => `${humanize(k).toLowerCase()} ${fieldValue(x)}`).join("; ") : String(v);
function fields(data) {
  return Object.entries(data || {})
    .map(([k, v]) => `${humanize(k).toLowerCase()}: ${fieldValue(v)}`)
    .join(", ");
}

// Events that record the game's bookkeeping, not a rules decision: not disputed.
export const BOOKKEEPING = new Set(["GameCreated", "EntropyAdded", "TakebackRequested", "TakebackAnswered", "Retracted", "DisputeOpened", "DisputeAlternative", "DisputeResolved", "VerdictBasis", "VerdictProposed", "VerdictAgreed", "Rebased", "Invited", "InvitationAccepted", "InvitationDeclined", "DrawOffered", "DrawDeclined", "Resigned", "VacationTaken", "ClockExpired", "ClockLow", "Claimed", "ClaimDecided", "Adjudicated", "ChainRepaired", "HeadReconciled"]);

export function describe(event, names = PLAIN) {
  const p = event.payload || {};
  if (event.type === "CommandAccepted") return SENTENCES.CommandAccepted(p, event, names);
  if (event.kind === "Game.Recorded") return event.text || event.type;
  const sentence = SENTENCES[event.type];
  if (sentence) {
    try {
      return sentence(p, event, names);
    } catch {
      /* fall through to the generic text */
    }
  }
  const rest = fields(p);
  return rest ? `${humanize(event.type)}: ${rest}` : humanize(event.type);
}
