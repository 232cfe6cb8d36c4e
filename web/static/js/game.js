// The game page: the board, orders composed by clicking, the event log with time travel, the dice,
// and live updates from the game's event stream.
import { follow } from "./live.js";
import { api, ApiError, currentUser, explain } from "./api.js";
import { blockedWords, command, interpret, needsForm } from "./actions.js";
import { BoardView, describeCounter, sideClass, terrainColour } from "./board.js";
import { attackPanel } from "./combat.js";
import { choiceFields, composeForm, picksOf } from "./compose.js";
import { diceBox, rollDetails } from "./dice.js";
import { clear, h, humanize, toast } from "./dom.js";
import { disputesBox, openDisputeForm, takebackControls } from "./disputes.js";
import { BOOKKEEPING, describe, orderNames } from "./events.js";
import { openRulings } from "./rulings.js";
import { areaClass, TableView } from "./table.js";
import { TablePlay } from "./tableplay.js";

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
};

const live = () => st.shown === st.game;
const mySides = () => Object.entries(st.game.sides).filter(([, user]) => st.me && user === st.me.username).map(([side]) => side);
const unitById = (uid) => (st.shown.counters || []).find((c) => c.id === uid);
// A hex in words: its place name where it has one ("Merida (J7)"), else its printed label.
const hexName = (hex) => (st.places.has(hex) ? `${st.places.get(hex)} (${hex})` : hex);
const unitWords = (uid) => {
  const unit = unitById(uid) || (st.shown.state && st.shown.state.units && st.shown.state.units[uid]);
  return (unit && unit.name) || uid;
};

// -- loading ---------------------------------------------------------------------------------------
async function loadEvents() {
  const known = st.events.length;
  await loadNewEvents();
  // a retraction (take back, rewind, rebase) changes the flags of earlier events: read them again
  if (known && st.events.slice(known).some((e) => e.type === "Retracted")) {
    st.events = [];
    await loadNewEvents();
  }
}

async function loadNewEvents() {
  let after = st.events.length ? st.events[st.events.length - 1].seq : 0;
  for (;;) {
    const page = await api(`/api/games/${id}/events?after=${after}&limit=500`);
    st.events.push(...page.events);
    if (page.next_after === null || page.next_after === undefined) break;
    after = page.next_after;
  }
}

async function loadActions() {
  st.actions = { side: null, actions: [], blocked: [] };
  if (st.game.status === "ended" || !mySides().some((s) => st.game.active_sides.includes(s))) return;
  try {
    st.actions = await api(`/api/games/${id}/actions`);
  } catch (err) {
    if (!(err instanceof ApiError) || ![401, 403].includes(err.status)) throw err;
  }
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
  const composing = st.selection && st.selection.kind === "compose" ? st.selection : null;
  if (before !== st.game.version) {
    st.selection = null;
    if (st.table) st.table.renew();
  }
  await Promise.all([loadEvents(), loadActions()]);
  // a form being filled in stays open while the same kind of order is still offered
  const still = composing && before !== st.game.version && st.actions.actions.find((a) => a.type === composing.template.type && a.label === composing.template.label);
  if (still && !st.selection) st.selection = { ...composing, template: still };
  st.plan = live() && st.actions.version === st.game.version ? interpret(st.actions) : interpret(null);
  render();
}

async function showVersion(version) {
  if (version >= st.game.version) {
    st.shown = st.game;
  } else {
    st.shown = await api(`/api/games/${id}?version=${version}`);
  }
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
  try {
    const body = { expected_version: seen, command: cmd };
    if (st.actions.side) body.side = st.actions.side;
    const result = await api(`/api/games/${id}/commands`, { method: "POST", body });
    st.selection = null;
    toast(done || `${humanize(cmd.type)} done (version ${result.version})`);
  } catch (err) {
    if (err.status === 409) $("message").textContent = "The game moved on while you decided: the board is reloaded, decide again.";
    else if (err.status === 422 && err.details.rule) $("message").textContent = `Refused by rule ${err.details.rule.join(", ")}: ${err.message}`;
    else $("message").textContent = explain(err);
  } finally {
    await refresh();
    if (st.busy === mine) st.busy = null;
    finish();
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
  render();
}

function onMark(hex, mark) {
  if (mark.kind === "dest") {
    const sel = st.selection;
    const option = st.plan.byUnit.get(sel.unit)[sel.option];
    st.selection = { ...sel, kind: "move", hex, dest: option.destinations[hex] };
  } else if (mark.kind === "target") {
    st.selection = { kind: "attack", hex, templates: st.plan.targets.get(hex), option: 0, answers: {} };
  }
  render();
}

function marks() {
  const out = {};
  const sel = st.selection;
  if (!live()) return out;
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
  st.decidedOn = st.game.version;
  $("title").textContent = `${g.title} (${g.system})`;
  document.title = `${g.title} · Arbiter`;
  $("turn").replaceChildren(turnLine(st.game));
  const viewing = $("viewing");
  viewing.hidden = live();
  viewing.textContent = live() ? "" : `Viewing the board at version ${g.version} of ${st.game.version}: orders are off until you go back to now.`;
  $("live-button").hidden = live();
  if (st.table) {
    st.table.update({ counters: g.counters || [], actions: st.actions.version === st.game.version ? st.actions.actions : [], side: st.actions.side, live: live(), state: g.state, system: st.system });
    st.table.draw();
  } else if (st.view) {
    st.view.drawCounters(g.counters || [], onStack);
    st.view.highlight(marks(), onMark);
  } else {
    unitList(g.counters || []);
  }
  renderSelection();
  renderGeneral();
  renderLog();
  disputesBox($("disputes"), st.game, st.events);
  diceBox($("dice"), st.game, id);
}

function turnLine(game) {
  if (game.status === "ended") {
    const winner = game.result && game.result.winner;
    return h("strong", {}, winner ? `Game over: ${winner} (${game.sides[winner]}) wins` : "Game over");
  }
  const p = game.phase || {};
  const active = game.active_sides.map((side) => `${side} (${game.sides[side]})`).join(", ");
  const mine = mySides().filter((side) => game.active_sides.includes(side));
  const paused = game.paused_by ? h("strong", { class: "paused" }, ` · Paused until an arbiter decides dispute ${game.paused_by}`) : null;
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
    mySides().length ? ` · you play ${mySides().join(", ")}` : "",
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
  const hint = live()
    ? st.plan.targets.size
      ? "Choose a highlighted target hex."
      : mine.length
        ? "Select a unit that can move (on the map or below)."
        : "Nothing to order on the map now."
    : "Click a stack to see its units.";
  const short = (u) => h("li", {}, h("button", { type: "button", class: "link", "data-unit": u.id, title: describeCounter(u), onclick: () => selectUnit(u.id) }, `Select ${u.name || u.id} (${u.hex ? hexName(u.hex) : "not on the map"})`));
  return [h("p", {}, hint), mine.length ? h("ul", { class: "units can-move", "aria-label": "Units that can move" }, mine.map(short)) : null];
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
    parts.push(
      h("p", {}, `${done}${path}.`),
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
  return h("button", { type: "button", class: cls || (template.type.startsWith("end_") ? "end-phase" : ""), onclick: act }, template.label + (form ? "…" : ""));
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
    h("span", { class: "reason" }, ` ${b.reason}${b.rule ? ` (rule ${b.rule})` : ""}`),
  );
}

function renderGeneral() {
  const box = $("general-actions");
  if (!live()) return clear(box, h("p", {}, "Orders are off while viewing the past."));
  const takeback = st.game.status === "active" ? takebackControls({ gameId: id, pending: st.game.takeback, mySides: mySides(), done: refresh }) : null;
  const general = st.table ? st.table.general : st.plan.general;
  const blocked = st.plan.blocked.map(blockedItem);
  if (!general.length) {
    clear(box, blocked.length ? null : h("p", {}, st.game.status === "ended" ? "The game is over." : "Nothing for you to do now."), blocked, takeback);
    return;
  }
  // many orders of one kind (e.g. one per unit) are one choice, not a wall of buttons
  const groups = new Map();
  for (const template of general) groups.set(template.type, [...(groups.get(template.type) || []), template]);
  clear(
    box,
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
    const who = event.user ? `${event.user}${event.side ? " (" + event.side + ")" : ""}` : event.side || "";
    return h(
      "li",
      { class: `event${current ? " current" : ""}${event.seq > st.shown.version ? " future" : ""}${event.retracted ? " retracted" : ""}`, "data-seq": event.seq, "aria-current": current ? "step" : undefined },
      h("span", { class: "seq" }, `#${event.seq}`),
      h("span", { class: "words" }, describe(event, names)),
      event.retracted ? h("span", { class: "badge" }, "retracted") : null,
      who ? h("span", { class: "meta" }, who) : null,
      rollDetails(event, st.game),
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

function legend(board) {
  const terrains = [...new Set(board.hexes.map((x) => x.terrain))];
  const features = [...new Set((board.hexsides || []).flatMap((x) => x.features))];
  clear(
    $("legend"),
    h("ul", {}, terrains.map((t) => h("li", {}, h("span", { class: "swatch", style: `background:${terrainColour(t)}` }), t))),
    features.length ? h("ul", {}, features.map((f) => h("li", {}, h("span", { class: `swatch line feature-${f}` }), f))) : null,
    (board.places || []).length ? h("p", {}, "Places: ", board.places.map((p) => `${p.name} (${p.hex}${p.kind ? ", " + p.kind : ""})`).join("; ")) : null,
    board.placeholder
      ? h("div", { class: "note placeholder-map" }, h("p", {}, "A placeholder map a club may replace:"), h("ul", {}, (board.placeholders || []).map((p) => h("li", {}, `${p.place}: ${p.note}`))))
      : null,
  );
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

// -- start -----------------------------------------------------------------------------------------
async function main() {
  try {
    st.me = await currentUser();
    st.game = await api(`/api/games/${id}`);
  } catch (err) {
    clear($("main"), h("h1", {}, "Game not found"), h("p", {}, explain(err)), h("p", {}, h("a", { href: "/" }, "Back to my games")));
    return;
  }
  st.shown = st.game;
  const [board, system] = await Promise.all([
    api(`/api/systems/${st.game.system}/scenarios/${st.game.scenario}/board`),
    api(`/api/systems/${st.game.system}`),
  ]);
  st.system = system;
  const scenario = (system.scenarios || []).find((x) => x.id === st.game.scenario);
  const sides = scenario ? scenario.sides : Object.keys(st.game.sides);
  if (board.kind === "table") {
    st.view = new TableView($("board"), board, { sideClass: (side) => sideClass(sides, side) });
    $("board").setAttribute("aria-label", "Table: tab to units; Enter selects; click the table to place points");
    st.table = new TablePlay({ view: st.view, game: () => st.game, send, rerender: render });
    $("board").style.minWidth = `${Math.round(board.width * 14)}px`; // legible figures; the table scrolls
    tableLegend(board);
  } else if (Array.isArray(board.hexes) && board.hexes.length) {
    st.view = new BoardView($("board"), board, { sides });
    $("board").style.minWidth = `${Math.round(board.size.width * 30)}px`; // legible counters; the map scrolls
    legend(board);
    st.places = new Map((board.places || []).map((p) => [p.hex, p.name]));
  } else {
    $("board").style.display = "none";
    $("no-map").hidden = false;
  }
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
  const asked = Number(new URLSearchParams(location.search).get("version"));
  if (asked && asked < st.game.version) await showVersion(asked);
  connect();
  root.dataset.ready = "true";
}

main();
