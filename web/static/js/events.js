// Each game event in words.  Known event types of the bundled systems get a sentence; any other type
// is shown as its name and fields, so a new rules system's events are never hidden.
import { humanize } from "./dom.js";

const list = (xs) => (xs || []).join(", ");
// A point on a table [x, y] in inches, or a hex label.
const place = (p) => (Array.isArray(p) ? `(${p.map((v) => Math.round(v * 100) / 100).join(", ")})` : String(p));
const route = (path) => (path || []).map(place).join(" → ");
const inch = (v) => `${Math.round(v * 100) / 100}"`;

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
  UnitMoved: (d) =>
    d.length !== undefined
      ? `${d.unit} moved ${inch(d.length)} of ${inch(d.distance)}${(d.path || []).length ? ` to ${place(d.path[d.path.length - 1])}` : " (stayed put)"}` +
        `, facing ${Math.round(d.facing)}°${(d.contacts || []).length ? `, into contact with ${list(d.contacts)}` : ""}`
      : `${d.unit || list(d.units)} moved ${d.from ? d.from + " → " : ""}${d.to || place((d.path || []).slice(-1)[0])}` +
    (d.cost !== undefined ? ` (cost ${d.cost})` : "") +
    (d.stopped_in_zoc ? ", stopped in an enemy zone of control" : ""),
  CombatResolved: (d) =>
    `${list(d.attackers)} attacked ${d.defender_hex || d.hex}${d.defenders ? ` (${list(d.defenders)})` : ""}: ` +
    `${d.attack} against ${d.defence}, odds ${d.odds}` +
    (d.shifts && d.shifts.length ? ` after ${d.shifts.map((x) => `${x.shift} for ${x.cause} (${x.rule})`).join(", ")}` : "") +
    (d.roll ? `, die #${d.roll.index} = ${d.roll.value}` : "") +
    (d.modifier ? ` ${d.modifier > 0 ? "+" : ""}${d.modifier}` : "") +
    ` → ${d.result}`,
  OrdersWritten: (d) =>
    d.hidden
      ? `${d.side} wrote orders for ${d.units} unit${d.units === 1 ? "" : "s"} (hidden until they are revealed)`
      : `${d.side} wrote orders: ${Object.entries(d.orders).map(([u, o]) => `${u} “${o.text}”${o.move ? "" : " (no move)"}`).join("; ") || "none"}`,
  OrdersRevealed: (d) =>
    `Orders revealed: ${Object.entries(d.orders)
      .map(([side, orders]) => `${side}: ${Object.entries(orders).map(([u, o]) => `${u} “${o.text}”${o.move ? "" : " (no move)"}`).join("; ") || "none"}`)
      .join(" · ")}`,
  ColumnGenerated: (d) => `${d.side} column of ${d.troop_type}: ${d.companies}${d.mg ? ", MG" : ""}${d.special ? ", " + d.special : ""}`,
  UnitDeployed: (d) => `${d.unit} deployed at ${place([d.x, d.y])}, facing ${Math.round(d.facing)}°, ${d.ranks} rank${d.ranks === 1 ? "" : "s"}`,
  UnitReserved: (d) => `${d.unit} held back off the table`,
  UnitHeld: (d) => `${d.unit} holds`,
  MovementRolled: (d) => `${d.unit} rolled ${d.dice_expr} for ${d.going} going: ${inch(d.distance)}`,
  TransmissionRolled: (d) => `Orders transmitted: ${d.results.map((r) => `${r.unit} ${r.arrived ? "yes" : "no"} (${r.die.value} against ${r.target})`).join(", ") || "none written"}`,
  ShotResolved: (d) =>
    `${d.unit} fired ${d.weapon}: ${Object.entries(d.casualties || {})
      .map(([u, n]) => `${u} lost ${n}`)
      .join(", ")}${(d.ko || []).length ? ` KO ${list(d.ko)}` : ""}${Object.keys(d.casualties || {}).length || (d.ko || []).length ? "" : "no effect"}`,
  CloseCombatResolved: (d) =>
    `Close combat ${d.attacker} against ${d.defender}${Object.keys(d.casualties || {}).length ? ": " + Object.entries(d.casualties).map(([u, n]) => `${u} lost ${n}`).join(", ") : ""}`,
  MoraleTested: (d) => `${d.unit} tested morale: ${d.failures} failure${d.failures === 1 ? "" : "s"}${d.removed ? ", removed" : ""}`,
  StepBegan: (d) => `Shooting step: ${humanize(d.step || "")}`,
  StepLost: (d) => `${d.unit} lost ${d.steps} step${d.steps === 1 ? "" : "s"} (${d.steps_left} left)`,
  UnitEliminated: (d) => `${d.unit} was eliminated${d.hex ? " in " + d.hex : ""}`,
  UnitsMoved: (d) => `${list(d.units)} moved ${(d.path || []).join(" → ")}${d.mode ? ` (${d.mode})` : ""}`,
  PhaseBegan: (d) =>
    `${humanize(d.phase || "")} phase${d.impulse ? `, impulse ${d.impulse}` : ""}${d.turn !== undefined ? ` of turn ${d.turn}` : ""} begins${d.side || d.mover ? ` (${d.side || d.mover})` : ""}`,
  StatusChecked: (d) =>
    `${d.side} command and supply checked: ${(d.out_of_command || []).length ? `out of command ${list(d.out_of_command)}` : "all in command"}; ${(d.out_of_supply || []).length ? `out of supply ${list(d.out_of_supply)}` : "all in supply"}`,
  UnitRetreated: (d) => `${d.unit} retreated ${(d.path || []).join(" → ")}`,
  UnitArrived: (d) => `${d.unit} arrived at ${d.hex}${d.turn ? ` on turn ${d.turn}` : ""}`,
  PhaseEnded: (d) => `${d.side} ended the ${d.phase} phase of turn ${d.turn}`,
  TurnEnded: (d) => `Turn ${d.turn} ended${d.next_turn ? `; turn ${d.next_turn} begins` : ""}`,
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

// Whether this page has its own sentence for an event type (else the server's words are better).
export const knows = (type) => Object.hasOwn(SENTENCES, type);

export function describe(event) {
  const p = event.payload || {};
  const data = event.kind === "Game.Recorded" ? p.data || {} : p;
  if (event.type === "GameEnded" && event.kind === "Game.Recorded") {
    const winner = data.winner;
    return `Game over: ${winner ? winner + " wins" : data.outcome || "draw"}${data.vp ? ` (VP ${fields(data.vp)})` : ""}`;
  }
  const sentence = SENTENCES[event.type];
  if (sentence) {
    try {
      return sentence(data, event);
    } catch {
      /* fall through to the generic text */
    }
  }
  const rest = fields(data);
  return rest ? `${humanize(event.type)}: ${rest}` : humanize(event.type);
}
