// The game page: the board, orders composed by clicking, the event log with time travel, the dice,
// and live updates from the game's event stream.
import { follow } from "./live.js";
import { api, ApiError, currentUser, explain } from "./api.js";
import { blockedWords, command, interpret, needsForm } from "./actions.js";
import { aidTables, loadTable, markPhase, rulesDrawer } from "./aids.js";
import { BoardView, describeCounter, featureMark, placeName, R, sideClass, terrainColour } from "./board.js";
import { boardText } from "./boardtext.js";
import { attackPanel, resolvesCombat, resultView, showPreview } from "./combat.js";
import { choiceFields, composeForm, key, picksOf } from "./compose.js";
import { diceBox, rollDetails } from "./dice.js";
import { clear, h, humanize, rawFacts, ruleWords, sideName, toast } from "./dom.js";
import { chatPanel, notesPanel } from "./chat.js";
import { disputesBox, openDisputeForm, takebackControls } from "./disputes.js";
import { rulingPanel } from "./agreement.js";
import { optionWords } from "./options.js";
import { BOOKKEEPING, describe, orderNames } from "./events.js";
import { openRulings } from "./rulings.js";
import { areaClass, TableView } from "./table.js";
import { TablePlay } from "./tableplay.js";
import { PanZoom } from "./zoom.js";

const root = document.querySelector(".game-page");
const id = root.dataset.game;
const $ = (sel) => document.getElementById(sel);

const st = {
  me: null,
  game: null, // the latest version
  shown: null, // the version on the board (the latest unless time-travelling)
  events: [],
  actions: { side: null, actions: [], blocked: [] },
  plan: interpret(null),
  places: new Map(), // hex -> place name, from the board
  selection: null,
  system: null,
  busy: null, // the order being sent: {version it was given on, done}
  result: null, // the last order's outcome, shown in place: {events}
};

const live = () => st.shown === st.game;
const mySides = () => Object.entries(st.game.sides).filter(([, user]) => st.me && user === st.me.username).map(([side]) => side);
const unitById = (uid) => (st.shown.counters || []).find((c) => c.id === uid);
// A hex in words: its place name where it has one ("Merida (J7)"), else its printed label.
const hexName = (hex) => (st.places.has(hex) ? `${st.places.get(hex)} (${hex})` : hex);
// every unit's printed name seen so far (an eliminated unit keeps its name in results and logs)
const names = new Map();
const unitWords = (uid) => {
  const unit = unitById(uid) || (st.shown.state && st.shown.state.units && st.shown.state.units[uid]);
  return (unit && unit.name) || names.get(uid) || "a unit";
};
function learnNames(game) {
  for (const c of game.counters || []) if (c.name) names.set(c.id, c.name);
  for (const [uid, u] of Object.entries((game.state && game.state.units) || {})) if (u && u.name) names.set(uid, u.name);
}

// -- loading ---------------------------------------------------------------------------------------
async function loadEvents() {
  const known = st.events.length;
  await loadNewEvents();
  // a retraction (take back, rewind, rebase) changes the flags of earlier events: read them again
  if (known && st.events.slice(known).some((e) => e.type === "Retracted")) {
    st.events = [];
    await loadNewEvents(true);
  }
}

async function loadNewEvents(quiet = false) {
  let after = st.events.length ? st.events[st.events.length - 1].seq : 0;
  const fresh = [];
  for (;;) {
    const page = await api(`/api/games/${id}/events?after=${after}&limit=500`);
    st.events.push(...page.events);
    fresh.push(...page.events);
    if (page.next_after === null || page.next_after === undefined) break;
    after = page.next_after;
  }
  if (!quiet) announce(fresh);
}

// Every event and roll that arrives after the page opened, said through a live region (#announce,
// read by screen readers, unseen): the log's own sentences, a few at a time, in order.
function announce(fresh) {
  const box = $("announce");
  if (!box || !st.announced) {
    st.announced = true; // the events already there when the page opened are the log's to read
    return;
  }
  const words = orderNames(st.game.state, st.system);
  const said = fresh.filter((e) => !e.retracted).map((e) => describe(e, words));
  if (said.length) box.textContent = said.slice(-6).join(". ");
}

// The orders of the version just read.  The list in hand stays until the new one has arrived: a
// render meanwhile (the player picking an option) must not see an empty list and drop the order
// being composed.
// A player who holds several sides (face-to-face play entered by one member) acts for the first of
// them whose turn it is: the server wants the side named then.
async function loadActions() {
  let actions = { side: null, actions: [], blocked: [] };
  const acting = st.game.status === "ended" ? [] : mySides().filter((s) => st.game.active_sides.includes(s));
  if (acting.length) {
    try {
      // path choices as trees where they are (a fifth of the list's size): actions.js reads both
      actions = await api(`/api/games/${id}/actions?side=${encodeURIComponent(acting[0])}&paths=tree`);
    } catch (err) {
      if (!(err instanceof ApiError) || ![401, 403].includes(err.status)) throw err;
    }
  }
  st.actions = actions;
}

// One refresh at a time; a request made meanwhile runs once more after it.
let refreshing = null;
let again = false;
async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      await reload();
    } while (again);
  })();
  try {
    await refreshing;
  } finally {
    refreshing = null;
  }
}

async function reload() {
  const wasLive = !st.game || live();
  const before = st.game && st.game.version;
  st.game = await api(`/api/games/${id}`);
  if (wasLive) st.shown = st.game;
  // the review: for its players during the game (their own side's luck), for every reader after
  document.getElementById("review-link-slot").hidden = !(st.game.status === "ended" || st.game.viewer_side);
  const kept = st.selection;
  if (before !== st.game.version) {
    st.selection = null;
    if (st.table) st.table.renew();
  }
  await Promise.all([loadEvents(), loadActions()]);
  if (wasLive && before !== undefined && before !== st.game.version) {
    const theirs = othersCombat(before);
    if (theirs && !(st.result && st.result.to >= theirs.to)) st.result = theirs;
  }
  st.plan = live() && st.actions.version === st.game.version ? interpret(st.actions) : interpret(null);
  // an order being entered survives a live update while the same order is still offered
  if (kept && before !== st.game.version && !st.selection) st.selection = stillOffered(kept);
  render();
  frameDecision();
}

// A decision due on the map (a retreat to choose) is shown where it is: once per version, the
// board centres on its highlighted hexes when none of them is in view.
function frameDecision() {
  if (!st.plan.decisions.length || st.framedAt === st.game.version) return;
  st.framedAt = st.game.version;
  if (!st.zoom || !st.view || !st.view.at) return;
  const at = [...document.querySelectorAll("#board .mark-decide")].map((m) => st.view.at(m.dataset.hex)).filter(Boolean);
  coverBoard();
  if (!at.length || at.some((c) => st.zoom.inView(c.x, c.y, 0.1))) return;
  st.zoom.show(at, { k: Math.max(1, st.zoom.scale()), pad: R });
}

// Another side's order since `before` that resolved a combat (an event with a table column and a
// result), as the result panel shows it: every player -- the defender above all -- is told what
// happened in the events' own words, with the die and the table cell, as after their own order.
function othersCombat(before) {
  const mine = st.actions && st.actions.side;
  const recorded = []; // the rules events since `before`, read from the end of the log only
  for (let i = st.events.length - 1; i >= 0 && st.events[i].seq > before; i--) {
    if (st.events[i].kind === "Game.Recorded") recorded.unshift(st.events[i]);
  }
  const combat = recorded.find((e) => e.side && e.side !== mine && resolvesCombat((e.payload && e.payload.data) || {}));
  if (!combat) return null;
  return { from: before, to: recorded[recorded.length - 1].seq, title: `${humanize(combat.side)} (${st.game.sides[combat.side]}) attacked` };
}

// The selection `sel` made on an older version, if what it chose is still offered now, else null.
function stillOffered(sel) {
  if (sel.kind === "compose") {
    const t = st.actions.actions.find((a) => a.type === sel.template.type && a.label === sel.template.label);
    return t ? { ...sel, template: t } : null;
  }
  if (sel.kind === "unit" || sel.kind === "move") {
    const options = st.plan.byUnit.get(sel.unit);
    const option = options && options[sel.option];
    if (!option) return null;
    if (sel.kind === "unit") return sel;
    const dest = option.destinations[sel.hex];
    return dest ? { ...sel, dest } : { ...sel, kind: "unit" };
  }
  if (sel.kind === "attack") {
    const templates = st.plan.targets.get(sel.hex);
    return templates ? { ...sel, templates, option: Math.min(sel.option, templates.length - 1) } : null;
  }
  return null;
}

async function showVersion(version) {
  if (version >= st.game.version) {
    st.shown = st.game;
  } else {
    st.shown = await api(`/api/games/${id}?version=${version}`);
  }
  // the version shown is in the address, so it can be shared
  const url = new URL(location.href);
  url.searchParams.delete("version");
  if (live()) url.searchParams.delete("v");
  else url.searchParams.set("v", String(st.shown.version));
  history.replaceState(null, "", url);
  st.selection = null;
  if (st.table) st.table.reset();
  st.plan = live() ? interpret(st.actions) : interpret(null);
  render();
}

// -- commands --------------------------------------------------------------------------------------
// One order at a time.  A second click on the board the pending order was given on is a double
// click and is dropped; an order given on a newer board (the game stream may redraw it before the
// pending order's own refresh ends) waits for the pending one, then goes.
async function send(cmd, done) {
  const seen = st.decidedOn; // the version the player was looking at
  if (st.busy && st.busy.version === seen) return;
  const before = st.busy && st.busy.done;
  let finish;
  const mine = { version: seen, done: new Promise((resolve) => (finish = resolve)) };
  st.busy = mine;
  if (before) await before;
  $("message").textContent = "";
  // the order being sent is marked, so that its answer closes it and not an order the player began
  // meanwhile (the game stream may show the new board, and its orders, before this answer comes)
  if (st.selection) st.selection.sent = mine;
  try {
    const body = { expected_version: seen, command: cmd };
    if (st.actions.side) body.side = st.actions.side;
    const result = await api(`/api/games/${id}/commands`, { method: "POST", body });
    if (!st.selection || st.selection.sent === mine) st.selection = null;
    st.result = { from: seen, to: result.version, title: done || humanize(cmd.type) };
    toast(done || `${humanize(cmd.type)} done (version ${result.version})`);
  } catch (err) {
    if (err.status === 409) $("message").textContent = "The game moved on while you decided: the board is reloaded, decide again.";
    else if (err.status === 422 && err.details.rule) $("message").textContent = `Refused by rule ${err.details.rule.join(", ")}: ${err.message}`;
    else $("message").textContent = explain(err);
  } finally {
    await refresh();
    if (st.busy === mine) st.busy = null;
    finish();
    // the keyboard goes back to the orders (the sent order's buttons are gone with it)
    if (!document.activeElement || document.activeElement === document.body) {
      const next = $("selection-body").querySelector("button");
      if (next) next.focus({ preventScroll: true });
    }
  }
}

// -- selection -------------------------------------------------------------------------------------
function onStack(hex, units) {
  if (!live()) {
    st.selection = { kind: "stack", hex, units };
    return render();
  }
  const movable = units.filter((u) => st.plan.byUnit.has(u.id));
  if (units.length === 1 && movable.length === 1) return selectUnit(movable[0].id);
  // a stack whose every unit has the same orders (a stack that moves together): select it at once
  const first = movable.length === units.length ? st.plan.byUnit.get(units[0].id) : null;
  if (first && units.every((u) => sameOptions(st.plan.byUnit.get(u.id), first))) return selectUnit(units[0].id);
  st.selection = { kind: "stack", hex, units };
  render();
}

const sameOptions = (a, b) => a.length === b.length && a.every((o, i) => o.template === b[i].template);

function selectUnit(uid) {
  st.selection = { kind: "unit", unit: uid, option: 0, answers: {} };
  $("hex-why").textContent = "";
  render();
  const unit = unitById(uid);
  if (unit && unit.hex) bringIntoView(unit.hex);
  else showDestinations();
  // a keyboard goes on at the first destination (the arrow keys go to the others); a pointer's
  // board is left where selecting put it
  const first = keyboardUsed && st.view && st.view.focusableMarks ? st.view.focusableMarks()[0] : null;
  if (first) first.focus({ preventScroll: true });
}

// Whether the last input was the keyboard's (a selection then moves the focus on, not the board).
let keyboardUsed = false;
document.addEventListener("keydown", () => (keyboardUsed = true), true);
document.addEventListener("pointerdown", () => (keyboardUsed = false), true);

// A unit not on the map yet (a landing, a reinforcement): its highlighted destinations are what the
// player looks at next, so the board frames them when none is in view.
function showDestinations() {
  if (!st.zoom || !st.view || !st.view.at) return;
  coverBoard();
  const at = [...document.querySelectorAll("#board .mark-dest")].map((m) => st.view.at(m.dataset.hex)).filter(Boolean);
  if (!at.length || at.some((c) => st.zoom.inView(c.x, c.y, 0.1))) return;
  st.zoom.show(at, { pad: R });
}

// What the board frames for a hex chosen: the hex and the hexes highlighted with it (a unit's
// destinations) in the part of the board not under the orders sheet, unless they are all well in
// view already; at a size where counters keep their names (1 pixel a unit), so a unit that can
// go far has the hex in the middle and the nearest of its destinations around it.
function bringIntoView(hex) {
  if (!st.zoom || !st.view || !st.view.at) return;
  const c = st.view.at(hex);
  if (!c) return;
  // the map scrolled off, or on a phone below the page's head: the board to the top of the
  // screen, so that as much of it as can be is seen above the opened orders sheet
  const frame = document.querySelector(".board-frame").getBoundingClientRect();
  const sheetOver = getComputedStyle($("orders-sheet")).position === "fixed";
  if (frame.top < 0 || frame.top > (sheetOver ? 8 : window.innerHeight * 0.3)) document.querySelector(".board-frame").scrollIntoView({ block: "start" });
  coverBoard();
  const at = [c, ...[...document.querySelectorAll("#board .mark-dest")].map((m) => st.view.at(m.dataset.hex)).filter(Boolean)];
  if (st.zoom.scale() >= 0.9 && at.every((p) => st.zoom.inView(p.x, p.y, 0.04))) return;
  st.zoom.show(at, { k: Math.max(1, st.zoom.scale()), pad: R, least: 1 });
}

// The part of the board under the orders sheet (a phone's bottom sheet lies over the board): the
// board frames what it shows above it, and may pan that far past the map's edge.
function coverBoard() {
  if (!st.zoom) return;
  const sheet = $("orders-sheet");
  const board = $("board").getBoundingClientRect();
  const over = getComputedStyle(sheet).position === "fixed" ? sheet.getBoundingClientRect().top : window.innerHeight;
  st.zoom.cover = { top: Math.max(0, -board.top), bottom: Math.max(0, board.bottom - Math.min(over, window.innerHeight)) };
}

// A stack or mark reached with the keyboard: pan it into view (a press of the pointer never pans,
// or the click would land on whatever moved under it).
function keepInView(hex) {
  if (!keyboardUsed) return;
  const c = st.zoom && st.view.at(hex);
  if (c && !st.zoom.inView(c.x, c.y, 0.05)) st.zoom.centreOn(c.x, c.y);
}

// Choose a target hex from the list (the same as clicking it on the map), centred on the map.
function chooseTarget(hex) {
  st.selection = { kind: "attack", hex, templates: st.plan.targets.get(hex), option: 0, answers: {} };
  $("hex-why").textContent = "";
  render();
  bringIntoView(hex);
}

// A click on a hex that is not highlighted: why it is no target, in the server's words where the
// server has them (what it refuses now, with the rule), else what the page was offered.
// The hex last chosen on the map, told to the notes panel (a hex note is pinned to it).
function tellHex(hex) {
  document.dispatchEvent(new CustomEvent("arbiter:hex", { detail: { hex, name: hexName(hex) } }));
}

function onHex(hex) {
  tellHex(hex);
  const why = $("hex-why");
  if (!live()) return (why.textContent = `${hexName(hex)}: orders are off while viewing the past.`);
  const sel = st.selection;
  const blocked = st.plan.blocked.map(blockedWords);
  if (sel && (sel.kind === "unit" || sel.kind === "move")) {
    const option = st.plan.byUnit.get(sel.unit)[sel.option];
    const n = Object.keys(option.destinations).length;
    why.textContent = `${hexName(hex)} is not a legal destination for ${unitWords(sel.unit)} (${option.template.label}): the server offers ${n} hex${n === 1 ? "" : "es"}, highlighted in green.${blocked.length ? " Refused now: " + blocked.join("; ") + "." : ""}`;
    return;
  }
  const mine = (st.shown.counters || []).filter((c) => c.hex === hex && st.plan.byUnit.has(c.id));
  if (mine.length) return selectUnit(mine[0].id);
  why.textContent = `${hexName(hex)}: ${st.plan.targets.size ? "not a target now (targets are outlined in red)." : st.plan.byUnit.size ? "select one of your units first; its legal destinations are then highlighted." : "nothing can be ordered there now."}${blocked.length ? " Refused now: " + blocked.join("; ") + "." : ""}`;
}

function onMark(hex, mark) {
  tellHex(hex);
  if (mark.kind === "decide") {
    // as picking that path in the decision's form: the form opens with it chosen, then Confirm
    const { template, choice } = mark.decision;
    st.selection = { kind: "compose", template, answers: { [choice.name]: key(mark.value) } };
    $("hex-why").textContent = "";
    return render();
  }
  if (mark.kind === "dest") {
    const sel = st.selection;
    const option = st.plan.byUnit.get(sel.unit)[sel.option];
    st.selection = { ...sel, kind: "move", hex, dest: option.destinations[hex] };
  } else if (mark.kind === "target") {
    st.selection = { kind: "attack", hex, templates: st.plan.targets.get(hex), option: 0, answers: {} };
  }
  $("hex-why").textContent = "";
  render();
}

function marks() {
  const out = {};
  const sel = st.selection;
  if (!live()) return out;
  // a pending decision chosen on the map (a retreat): each path's end, the path drawn under it
  if (!sel || sel.kind === "compose") {
    for (const decision of (st.plan && st.plan.decisions) || []) {
      if (sel && sel.template !== decision.template) continue;
      for (const [hex, dest] of Object.entries(decision.destinations)) {
        const chosen = sel && sel.answers && sel.answers[decision.choice.name] === key(dest.value);
        out[hex] = { kind: chosen ? "chosen" : "decide", label: `${decision.template.label}: ${dest.label}`, decision, value: dest.value, path: dest.value };
      }
    }
  }
  if (sel && (sel.kind === "unit" || sel.kind === "move")) {
    const option = st.plan.byUnit.get(sel.unit)[sel.option];
    for (const [hex, dest] of Object.entries(option.destinations)) {
      out[hex] = { kind: "dest", label: `${option.template.label} to ${dest.label}` };
    }
    const unit = unitById(sel.unit);
    if (unit) out[unit.hex] = { kind: "selected", label: `${unitWords(sel.unit)} selected` };
    if (sel.kind === "move") out[sel.hex] = { ...out[sel.hex], kind: "chosen" };
  }
  for (const [hex, templates] of st.plan.targets) {
    out[hex] = { kind: "target", label: templates.map((t) => t.label).join(" or ") };
  }
  if (sel && sel.kind === "attack") out[sel.hex] = { ...out[sel.hex], kind: "target chosen" };
  return out;
}

// -- rendering -------------------------------------------------------------------------------------
function render() {
  const g = st.shown;
  learnNames(g);
  st.decidedOn = st.game.version;
  $("title").textContent = g.title || st.system.title;
  document.title = `${g.title} · Arbiter`;
  $("turn").replaceChildren(live() ? turnLine(st.game) : pastLine(g));
  const viewing = $("viewing");
  viewing.hidden = live();
  viewing.textContent = live() ? "" : `Viewing the board at version ${g.version} of ${st.game.version}: orders are off until you go back to now.`;
  root.classList.toggle("time-travel", !live());
  $("live-button").hidden = live();
  if (st.table) {
    // orders read for an older version than the game's: the new ones are on their way
    const settled = st.actions.version === undefined || st.actions.version === st.game.version;
    st.table.update({ counters: g.counters || [], actions: st.actions.actions, settled, side: st.actions.side, live: live(), state: g.state, system: st.system });
    st.table.draw();
  } else if (st.view) {
    st.view.drawCounters(g.counters || [], onStack);
    st.view.highlight(marks(), onMark);
    renderBoardText(g);
  } else {
    unitList(g.counters || []);
  }
  renderSelection();
  renderResult();
  followSheet();
  renderGeneral();
  markPhase($("aid-tables"), shownPhase());
  renderLog();
  disputesBox($("disputes"), st.game, st.events);
  rulingPanel($("dispute-ruling"), st.game, { mySides: mySides(), done: refresh });
  diceBox($("dice"), st.game, id);
}

// The board as text (boardtext.js), drawn only while its box is open: every stack, mark and place
// by hex in words, with the map's own select and choose as buttons.
function renderBoardText(g) {
  const box = $("board-text-box");
  if (!st.board || !box.open) return;
  boardText($("board-text"), { board: st.board, counters: g.counters || [], marks: marks(), onStack, onMark, hexName, all: $("board-text-all").checked });
}

// The phase of the version shown (now, or the past version being viewed), for the sequence of play.
function shownPhase() {
  const p = (live() ? st.game.phase : st.shown && st.shown.phase) || {};
  return p.phase || null;
}

// The turn line of a past version: which version, and the turn and phase it was then.
function pastLine(shown) {
  const p = shown.phase || {};
  return h(
    "span",
    { class: "past" },
    h("strong", {}, `Viewing version ${shown.version} of ${st.game.version}`),
    p.turn !== undefined ? ` · then: turn ${p.turn}` : "",
    p.phase ? `, ${humanize(p.phase).toLowerCase()} phase` : "",
    " · orders off",
  );
}

// The orders sheet (a bottom sheet on a phone, see app.css): at a peek height while there is
// nothing to decide, so the board keeps the first screen; open while a unit, hex or order is chosen
// or a result is shown, and back to the peek once that is done. The handle overrides either way.
function openSheet(open) {
  $("orders-sheet").classList.toggle("open", open);
  $("sheet-handle").setAttribute("aria-expanded", String(open));
  coverBoard(); // what the sheet now covers of the board (read once per change, not per render)
}

function followSheet() {
  const busy = Boolean(st.selection) || !$("result-box").hidden;
  if (busy !== st.sheetBusy) openSheet(busy);
  st.sheetBusy = busy;
}

// The last order's outcome where the player is looking: each of its events in the server's words,
// and for a combat the table with the column and the roll's row marked, the die, the modified roll
// and the key to the result codes.
function renderResult() {
  const box = $("result-box");
  const r = st.result;
  const events = r && live() ? st.events.filter((e) => e.seq > r.from && e.seq <= r.to && e.kind === "Game.Recorded") : [];
  box.hidden = !events.length;
  if (!events.length) return;
  const body = $("result");
  if (body.dataset.for === `${r.from}-${r.to}`) return;
  body.dataset.for = `${r.from}-${r.to}`;
  requestAnimationFrame(() => box.scrollIntoView({ block: "nearest" })); // in view on a phone's sheet too
  clear(body, h("p", { class: "result-title" }, r.title), resultView(events, { system: st.system, loadTable }), h("button", { type: "button", class: "secondary", onclick: () => ((st.result = null), render()) }, "Dismiss"));
}

function turnLine(game) {
  if (game.status === "ended") {
    const winner = game.result && game.result.winner;
    return h("strong", {}, winner ? `Game over: ${sideName(winner)} (${game.sides[winner]}) wins` : "Game over");
  }
  const p = game.phase || {};
  const active = game.active_sides.map((side) => `${sideName(side)} (${game.sides[side]})`).join(", ");
  const mine = mySides().filter((side) => game.active_sides.includes(side));
  const paused = game.paused_by ? h("strong", { class: "paused" }, "Paused until the dispute is decided · ") : null;
  return h(
    "span",
    {},
    paused,
    p.turn !== undefined ? `Turn ${p.turn}` : "",
    p.turn_name ? ` (${p.turn_name})` : "",
    p.phase ? ` · ${humanize(p.phase)} phase` : "",
    ["impulse", "step", "stage", "combat_stage", "weather"].filter((k) => p[k] !== null && p[k] !== undefined && p[k] !== 0).map((k) => ` · ${humanize(k).toLowerCase()} ${humanize(p[k]).toLowerCase()}`),
    active ? ` · ${active} to act` : "",
    mine.length ? h("strong", { class: "your-turn" }, " · Your turn") : mySides().length ? " · waiting for your opponent" : "",
    mySides().length ? ` · you play ${mySides().map(sideName).join(", ")}` : "",
  );
}

function counterItem(unit, { selectable }) {
  const text = describeCounter(unit);
  const reduced = unit.max_steps && unit.steps < unit.max_steps ? " (reduced)" : "";
  if (!selectable) return h("li", {}, text + reduced);
  return h("li", {}, h("button", { type: "button", class: "link", "data-unit": unit.id, onclick: () => selectUnit(unit.id) }, `Select ${text}${reduced}`));
}

function renderSelection() {
  const body = $("selection-body");
  const sel = st.selection;
  const cancel = () => h("button", { type: "button", class: "secondary", onclick: () => ((st.selection = null), render()) }, "Cancel");
  if (sel && sel.kind === "compose") {
    clear(body, composeForm(sel.template, { send: (picks) => send(command(sel.template, picks)), cancel: cancel(), answers: sel.answers }));
    return;
  }
  if (st.table) {
    clear(body, st.table.panel(h("button", { type: "button", class: "secondary", onclick: () => (st.table.reset(), render()) }, "Cancel")));
    return;
  }
  if (!sel) return clear(body, idlePanel());
  if (sel.kind === "stack") {
    clear(
      body,
      h("h3", {}, `Stack in ${hexName(sel.hex)}`),
      h("ul", { class: "units stack-list" }, sel.units.map((u) => counterItem(u, { selectable: live() && st.plan.byUnit.has(u.id) }))),
      cancel(),
    );
  } else if (sel.kind === "unit" || sel.kind === "move") {
    clear(body, unitPanel(sel), cancel());
    const confirm = body.querySelector("#confirm");
    if (confirm) confirm.focus();
  } else if (sel.kind === "attack") {
    const choose = (i) => ((st.selection = { ...sel, option: i, answers: {} }), render());
    clear(body, attackPanel({ sel, game: st.game, side: st.actions.side, counters: st.shown.counters, system: st.system, send, cancel: cancel(), choose, hexName }));
  }
}

function idlePanel() {
  // units that can act, on the map or not yet on it (reinforcements, landings)
  const mine = live() ? [...st.plan.byUnit.keys()].map((uid) => unitById(uid) || { id: uid, name: unitWords(uid), hex: null }) : [];
  const decision = live() ? st.plan.decisions[0] : null;
  const hint = live()
    ? decision
      ? `${decision.template.label}: choose one of the ${Object.keys(decision.destinations).length} highlighted hexes on the map, or choose below.`
      : st.plan.targets.size
      ? "Choose a highlighted target hex."
      : mine.length
        ? mine.length === 1
          ? "Select the unit that can move (on the map or below)."
          : `Select one of the ${mine.length} units that can move (on the map or below).`
        : "Nothing to order on the map now."
    : "Click a stack to see its units.";
  const short = (u) => h("li", {}, h("button", { type: "button", class: "link", "data-unit": u.id, title: describeCounter(u), onclick: () => selectUnit(u.id) }, `Select ${u.name || u.id} (${u.hex ? hexName(u.hex) : "not on the map"})`));
  const targets = live() ? [...st.plan.targets] : [];
  const target = ([hex, templates]) =>
    h("li", {}, h("button", { type: "button", class: "link", "data-target": hex, onclick: () => chooseTarget(hex) }, templates.map((t) => t.label).join(" or ")));
  return [
    h("p", {}, hint),
    targets.length ? h("ul", { class: "units targets", "aria-label": "Targets" }, targets.map(target)) : null,
    mine.length ? h("ul", { class: "units can-move", "aria-label": "Units that can move" }, mine.map(short)) : null,
  ];
}

// A selected unit: how it may go (one radio per template), the highlighted destinations, the
// chosen one with the choices the template leaves, and the unit's other orders.
function unitPanel(sel) {
  const options = st.plan.byUnit.get(sel.unit);
  const unit = unitById(sel.unit);
  const parts = [h("h3", {}, `Selected: ${unit ? describeCounter(unit) : unitWords(sel.unit)}`)];
  if (options.length > 1) {
    const pick = (i) => ((st.selection = { kind: "unit", unit: sel.unit, option: i, answers: {} }), render());
    parts.push(
      h(
        "fieldset",
        {},
        h("legend", {}, "How"),
        options.map((o, i) => h("label", {}, h("input", { type: "radio", name: "option", checked: i === sel.option, onchange: () => pick(i) }), ` ${o.template.label}`)),
      ),
    );
  }
  const { template, choice } = options[sel.option];
  if (sel.kind === "unit") {
    parts.push(h("p", {}, `Choose one of the ${Object.keys(options[sel.option].destinations).length} highlighted hexes.`));
  } else {
    const path = choice.kind === "path" ? `: ${sel.dest.value.map(hexName).join(" → ")}` : "";
    const picks = () => ({ ...picksOf(template, sel.answers), [choice.name]: sel.dest.value });
    const done = `${template.label} to ${sel.dest.label}`;
    // what the move would trigger (a retreat out of command, an overrun, a forced combat), as the
    // server's preview says, when the game previews it
    const consequences = h("div", { class: "preview consequences", "aria-live": "polite" });
    if ((st.system.capabilities || []).includes("previews")) {
      showPreview({ game: st.game, side: st.actions.side, system: st.system, cmd: command(template, picks()), box: consequences, name: unitWords, quiet: true });
    }
    parts.push(
      h("p", {}, `${done}${path}.`),
      consequences,
      choiceFields(template, sel.answers, { skip: [choice.name] }),
      h("button", { type: "button", id: "confirm", onclick: () => send(command(template, picks()), `${done}: done`) }, `Confirm: ${done}`),
    );
  }
  const others = st.plan.unitOther.get(sel.unit) || [];
  if (others.length) parts.push(h("p", { class: "unit-orders" }, "Other orders: ", others.map((t) => orderButton(t, "secondary"))));
  return parts;
}

// A template as a button: sent as it is, or opening its form when it leaves a choice.
function orderButton(template, cls = "") {
  const form = needsForm(template);
  const act = () => (form ? openForm(template) : send(command(template)));
  return h("button", { type: "button", class: cls || (template.type.startsWith("end_") ? "end-phase" : ""), onclick: act, title: form ? "Asks for more before it is sent" : "Acts at once: no second step" }, template.label + (form ? "…" : ""));
}

function openForm(template) {
  if (st.table) st.table.reset();
  st.selection = { kind: "compose", template, answers: {} };
  render();
}

// What the rules refuse now: a disabled button with the reason and the rule.
function blockedItem(b) {
  return h(
    "p",
    { class: "blocked", "data-type": b.type },
    h("button", { type: "button", disabled: true, "aria-label": blockedWords(b) }, b.label),
    h("span", { class: "reason" }, ` ${b.reason}${b.rule ? ` (${ruleWords(b.rule)})` : ""}`),
  );
}

function renderGeneral() {
  const box = $("general-actions");
  if (!live()) return clear(box, h("p", {}, "Orders are off while viewing the past."));
  const takeback = st.game.status === "active" ? takebackControls({ gameId: id, pending: st.game.takeback, offer: st.game.takeback_offer, mySides: mySides(), done: refresh }) : null;
  const general = st.table ? st.table.general : st.plan.general;
  const blocked = st.plan.blocked.map(blockedItem);
  if (!general.length) {
    clear(box, blocked.length ? null : h("p", {}, st.game.status === "ended" ? "The game is over." : "Nothing for you to do now."), blocked, takeback);
    return;
  }
  // many orders of one kind (e.g. one per unit) are one choice, not a wall of buttons
  const groups = new Map();
  for (const template of general) groups.set(template.type, [...(groups.get(template.type) || []), template]);
  // a button acts on one click unless its label ends in "…" (it opens a form first): say so
  const atOnce = general.some((t) => !needsForm(t));
  clear(
    box,
    atOnce ? h("p", { class: "note acts-note" }, "A button here acts at once, with no second step; one ending in “…” asks for more first.") : null,
    [...groups].map(([type, templates]) => {
      if (templates.length <= 4) return templates.map((t) => orderButton(t));
      const select = h("select", { "aria-label": humanize(type), name: `choose-${type}` }, templates.map((t, i) => h("option", { value: i }, t.label)));
      const act = () => {
        const template = templates[Number(select.value)];
        return needsForm(template) ? openForm(template) : send(command(template));
      };
      return h("div", { class: "grouped-order" }, select, h("button", { type: "button", onclick: act }, humanize(type)));
    }),
    blocked,
    takeback,
  );
}

function renderLog() {
  const slider = $("slider");
  slider.max = String(st.game.version);
  slider.value = String(st.shown.version);
  $("slider-value").textContent = `${st.shown.version} of ${st.game.version}`;
  const log = $("log");
  const names = orderNames(st.shown.state, st.system);
  const disputed = new Set(Object.values(st.game.disputes || {}).filter((d) => d.status === "open").map((d) => d.seq));
  const items = st.events.map((event) => {
    const current = event.seq === st.shown.version;
    const who = event.user ? `${event.user}${event.side ? " (" + sideName(event.side) + ")" : ""}` : sideName(event.side);
    return h(
      "li",
      { class: `event${current ? " current" : ""}${event.seq > st.shown.version ? " future" : ""}${event.retracted ? " retracted" : ""}`, "data-seq": event.seq, "aria-current": current ? "step" : undefined },
      h("span", { class: "seq" }, `#${event.seq}`),
      h("span", { class: "words" }, describe(event, names)),
      event.retracted ? [" ", h("span", { class: "badge" }, "retracted")] : null,
      who ? h("span", { class: "meta" }, who) : null,
      rollDetails(event, st.game, names),
      rawFacts(`Raw facts of event ${event.seq}`, () => JSON.stringify({ type: event.type, ...(event.payload || {}) })),
      h(
        "span",
        { class: "event-buttons" },
        h("button", { type: "button", class: "link", onclick: () => showVersion(event.seq), "aria-label": `Show the board after event ${event.seq}` }, "show"),
        h("button", { type: "button", class: "link rules-button", onclick: () => openRulings(id, event), "aria-label": `Rules for event ${event.seq}` }, "rules"),
        mySides().length && event.seq > 1 && st.game.status === "active" && !disputed.has(event.seq) && !event.retracted && !BOOKKEEPING.has(event.type)
          ? h("button", { type: "button", class: "link", onclick: () => openDisputeForm(id, event, refresh), "aria-label": `Dispute event ${event.seq}` }, "dispute")
          : null,
      ),
    );
  });
  clear(log, items.reverse());
}

// A system without a map to draw: its pieces listed by where they stand.
function unitList(counters) {
  const bySide = {};
  for (const c of counters) (bySide[c.side] = bySide[c.side] || []).push(c);
  clear(
    $("no-map"),
    h("p", {}, "This rules system gives no map to draw: its pieces are listed by hex, and orders are given with the buttons and forms beside."),
    Object.entries(bySide).map(([side, units]) =>
      h("section", {}, h("h3", {}, side), h("ul", { class: "units" }, units.map((c) => h("li", { "data-unit": c.id }, `${c.hex || "off the map"}: ${describeCounter(c)}`)))),
    ),
  );
}

function tableLegend(board) {
  clear(
    $("legend"),
    h("p", {}, `A table of ${board.width} by ${board.height} ${board.units || "inches"}${board.placeholder ? " (a placeholder table a club may replace)" : ""}; grid lines every 6 inches.`),
    h("ul", {}, (board.areas || []).map((a) => h("li", {}, h("span", { class: `swatch ${areaClass(a)}` }), `${a.name}: ${(a.effects || []).map((e) => e.replace(/_/g, " ")).join(", ")}`))),
  );
}

function legend(board, sides) {
  const terrains = [...new Set(board.hexes.map((x) => x.terrain))];
  const features = [...new Set((board.hexsides || []).flatMap((x) => x.features))];
  const marks = [...new Set(Object.values(board.hex_features || {}).flat())];
  const colours = st.system.side_colours || {};
  clear(
    $("legend"),
    h("ul", { "aria-label": "Sides" }, sides.map((side) => h("li", {}, h("span", { class: `swatch counter-swatch ${sideClass(sides, side, colours)}` }), `${humanize(side)}${colours[side] ? ` (${colours[side]} counters)` : ""}`))),
    h("ul", { "aria-label": "Terrain" }, terrains.map((t) => h("li", {}, h("span", { class: "swatch", style: `background:${terrainColour(t)}` }), humanize(t)))),
    features.length ? h("ul", { "aria-label": "Hexsides" }, features.map((f) => h("li", {}, h("span", { class: `swatch line feature-${f}` }), humanize(f)))) : null,
    marks.length ? h("ul", { "aria-label": "Map marks" }, marks.map((m) => h("li", {}, h("span", { class: "swatch mark-letter" }, featureMark(m)), humanize(m)))) : null,
    h(
      "ul",
      { "aria-label": "Highlights and counters" },
      h("li", {}, h("span", { class: "swatch hl-dest" }), "Legal destination"),
      h("li", {}, h("span", { class: "swatch hl-target" }), "Target"),
      h("li", {}, h("span", { class: "swatch hl-chosen" }), "Chosen"),
      h("li", {}, h("span", { class: "swatch hl-selected" }), "Selected unit"),
      h("li", {}, h("span", { class: "swatch stack-swatch" }, "2"), "Units in the stack"),
      h("li", {}, h("span", { class: "swatch pip-swatch" }), "Steps left (hollow: lost)"),
      (board.places || []).some((p) => p.kind === "objective") ? h("li", {}, h("span", { class: "swatch objective-swatch" }), "Objective") : null,
    ),
    (board.places || []).length ? h("p", {}, "Places: ", board.places.map((p) => `${placeName(p)} (${p.hex}${p.kind ? ", " + p.kind : ""})`).join("; ")) : null,
    (board.places || []).some((p) => p.note) ? h("ul", { class: "place-notes" }, board.places.filter((p) => p.note).map((p) => h("li", {}, `${placeName(p)} (${p.hex}): ${p.note}`))) : null,
    board.placeholder
      ? h("div", { class: "note placeholder-map" }, h("p", {}, "A placeholder map a club may replace:"), h("ul", {}, (board.placeholders || []).map((p) => h("li", {}, `${placeholderWords(p.place)}: ${p.note}`))))
      : null,
  );
}

// Issue 32: what in the scenario in play is a stand-in (the rulebooks print no map, most counter
// values are not in the text), said where a player looks first, with where a club replaces it.
function placeholderNotice(el, topics, club) {
  if (!topics.length) return;
  const where = club
    ? h("p", {}, "Your club's admins can replace them in the club's ", h("a", { href: `/clubs/${encodeURIComponent(club)}/scenarios` }, "scenario library"), ", and start games from the new version.")
    : h("p", {}, "A club replaces them in its own copy of the scenario (", h("a", { href: "/clubs" }, "Clubs"), " → a club → Scenarios).");
  clear(
    el,
    h("summary", {}, `Placeholder data: ${topics.map((t) => t.topic.toLowerCase()).join(", ")}`),
    h(
      "ul",
      {},
      topics.map((t) => h("li", {}, h("strong", {}, t.topic), t.count > 1 ? ` (${t.count} values): ` : ": ", t.notes.join("; "))),
    ),
    where,
  );
  el.hidden = false;
}

// A placeholder's place in words: "map.hex_features" -> "Hex features", "map.entries[0].hexes" ->
// "Entries hexes" (the scenario's field, never its path).
function placeholderWords(place) {
  const words = String(place || "").replace(/\[\d+\]/g, "").split(".").filter((w) => w && w !== "map");
  return words.length ? humanize(words.join(" ")) : "The map";
}

// The first view of a map: as wide as the screen, around what the player must act on now -- the
// highlighted targets (an attack, a barrage), else the units that can act (or the map's middle) --
// never so small that counters lose their names when the map is large.
function startView() {
  const z = st.zoom;
  const box = $("board").getBoundingClientRect();
  const { width, height } = st.view.extent();
  // the whole map only when its counters stay legible there (their type and values: the zoom-mid
  // level, 0.55 px a unit); a map that fits the screen only at a smaller zoom (Backbone's) shows
  // one letter a counter and no strength: it opens closer, around what the player acts on
  const legible = Math.min(box.width / width, box.height / height) >= 0.55;
  if (legible && (box.width / width >= 0.8 || (box.width / width) * height <= box.height * 1.15)) return z.fit();
  const targets = [...st.plan.targets.keys()];
  const units = [...st.plan.byUnit.keys()].map((uid) => unitById(uid)).filter((u) => u && u.hex).map((u) => u.hex);
  const hexes = (targets.length ? targets : units).map((hex) => st.view.at(hex)).filter(Boolean);
  const k = Math.max(box.width / width, Math.min(1, box.height / 360));
  if (!hexes.length) return z.zoomTo(k, width / 2, height / 2);
  z.zoomTo(k);
  coverBoard();
  z.show(busiest(hexes, (box.width * 0.8) / k, ((box.height - z.cover.top - z.cover.bottom) * 0.8) / k), { k, pad: R / 2 });
}

// The points of the busiest window of `w` by `h` (SVG units) around one of them: where the most of
// a player's units are (the middle of units spread round a pocket is empty).
function busiest(points, w, h) {
  let best = [];
  for (const p of points) {
    const near = points.filter((q) => Math.abs(q.x - p.x) <= w / 2 && Math.abs(q.y - p.y) <= h / 2);
    if (near.length > best.length) best = near;
  }
  return best;
}

// -- live ------------------------------------------------------------------------------------------
function connect() {
  follow(
    () => `/api/games/${id}/stream?since=${st.game.version}`,
    {
      game: (ev) => {
        const note = JSON.parse(ev.data);
        if (note.version > st.game.version) refresh();
      },
    },
    (state) => (root.dataset.live = state),
  );
}

// The options the game was started with where they differ from its scenario's defaults (all of
// them for a club scenario, whose defaults the system does not list): the rules in force.
function gameOptions(scenario) {
  const given = st.game.options || {};
  const defaults = Object.fromEntries(((scenario && scenario.options) || []).map((o) => [o.name, o.default]));
  const changed = Object.fromEntries(Object.entries(given).filter(([k, v]) => !scenario || defaults[k] !== v));
  const line = $("game-options");
  line.hidden = !Object.keys(changed).length;
  line.textContent = line.hidden ? "" : `Options: ${optionWords(changed)}${scenario ? " (the scenario's own otherwise)" : ""}`;
}

// -- start -----------------------------------------------------------------------------------------
async function main() {
  // the board needs only the game's id: asked at once, beside the game and who I am
  const boardAsked = api(`/api/games/${id}/board`);
  boardAsked.catch(() => {}); // a game not found is told below
  try {
    [st.me, st.game] = await Promise.all([currentUser(), api(`/api/games/${id}`)]);
  } catch (err) {
    clear($("main"), h("h1", {}, "Game not found"), h("p", {}, explain(err)), h("p", {}, h("a", { href: "/" }, "Back to my games")));
    return;
  }
  st.shown = st.game;
  const [board, system] = await Promise.all([boardAsked, api(`/api/systems/${st.game.system}`)]);
  st.system = system;
  const scenario = (system.scenarios || []).find((x) => x.id === st.game.scenario);
  gameOptions(scenario);
  placeholderNotice($("placeholder-notice"), board.placeholder_topics || [], (st.game.labels || {}).club);
  const sides = scenario ? scenario.sides : Object.keys(st.game.sides);
  if (board.kind === "table") {
    st.view = new TableView($("board"), board, { sideClass: (side) => sideClass(sides, side) });
    $("board").setAttribute("aria-label", "Table: tab to units; Enter selects; click the table to place points");
    st.table = new TablePlay({ view: st.view, game: () => st.game, send, rerender: render });
    $("board").style.minWidth = `${Math.round(board.width * 14)}px`; // legible figures; the table scrolls
    tableLegend(board);
  } else if (Array.isArray(board.hexes) && board.hexes.length) {
    st.places = new Map((board.places || []).map((p) => [p.hex, placeName(p)]));
    st.view = new BoardView($("board"), board, { sides, colours: system.side_colours || {}, onHex, onFocus: keepInView });
    st.board = board;
    $("board-text-box").hidden = false;
    $("board-text-box").addEventListener("toggle", () => renderBoardText(st.shown));
    $("board-text-all").addEventListener("change", () => renderBoardText(st.shown));
    st.view.hexWords = hexName;
    $("board").classList.add("hex-board");
    root.classList.add("has-map");
    $("minimap").removeAttribute("hidden"); // an SVG element has no `hidden` property to set
    document.querySelector(".board-tools").hidden = false;
    st.zoom = new PanZoom($("board"), st.view.extent(), { minimap: $("minimap"), onChange: (k) => st.view.scanFor(k) });
    if (board.image) {
      // the club's scan of its printed map under the hexes, which the player may switch off
      $("scan-toggle").hidden = false;
      $("scan-on").addEventListener("change", (ev) => st.view.showScan(ev.target.checked));
    }
    st.zoom.drawMinimap(st.view.overview());
    const byHand = (act) => () => ((st.zoom.moved = true), act());
    $("zoom-in").addEventListener("click", byHand(() => st.zoom.zoomBy(1.25)));
    $("zoom-out").addEventListener("click", byHand(() => st.zoom.zoomBy(0.8)));
    $("zoom-fit").addEventListener("click", byHand(() => st.zoom.fit()));
    legend(board, sides);
    // the pieces at once, before the log and the orders are read
    st.view.drawCounters(st.game.counters || [], onStack);
    startView();
    requestAnimationFrame(() => performance.mark("board-painted")); // read by bench/bench_page.py
  } else {
    $("board").style.display = "none";
    $("no-map").hidden = false;
  }
  aidTables($("aid-tables"), system, { phase: shownPhase });
  rulesDrawer({ form: $("rules-search"), input: $("rules-q"), results: $("rules-results"), system });
  $("aids-link").addEventListener("click", (ev) => {
    ev.preventDefault();
    $("aids").scrollIntoView({ block: "start" });
    $("rules-q").focus();
  });
  // the orders sheet on a phone opens at a peek height; its handle pulls it up and back down
  $("sheet-handle").addEventListener("click", () => openSheet(!$("orders-sheet").classList.contains("open")));
  $("slider").addEventListener("change", (ev) => showVersion(Number(ev.target.value)));
  $("slider").addEventListener("input", (ev) => ($("slider-value").textContent = `${ev.target.value} of ${st.game.version}`));
  $("live-button").addEventListener("click", () => showVersion(st.game.version));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && (st.selection || (st.table && st.table.sel))) {
      st.selection = null;
      if (st.table) st.table.reset();
      render();
    }
  });
  await refresh();
  if (!performance.getEntriesByName("board-painted").length) requestAnimationFrame(() => performance.mark("board-painted"));
  // ?v=N (or ?version=N) opens the board at version N
  const query = new URLSearchParams(location.search);
  const asked = Number(query.get("v") || query.get("version"));
  if (asked && asked < st.game.version) await showVersion(asked);
  // framed again around what the orders say to act on, unless the person has already zoomed or
  // panned while they loaded (their view is kept)
  else if (st.zoom && !st.zoom.moved) startView();
  connect();
  // the author's hex notes, drawn as small marks on the map (the notes panel tells which)
  document.addEventListener("arbiter:hex-notes", (ev) => st.view && st.view.noteMarks && st.view.noteMarks(ev.detail.hexes));
  await Promise.all([chatPanel(id), notesPanel(id)]).catch((err) => console.error(err));
  root.dataset.ready = "true";
}

main();
