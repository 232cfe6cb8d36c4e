// Orders on a miniatures table, read from the one action vocabulary (actions.js) like any game's:
//   - a template whose fixed fields name one unit belongs to it: selecting the unit (on the table,
//     or in the list for units not yet on it) shows its templates;
//   - a `point` one_of is drawn as positions on the table: click one (or near one) to pick it;
//   - a `unit` one_of is drawn as marked units: click one to pick it, and see the server's preview;
//   - the other choices are the small form of compose.js; anything else is a button.
import { choicesOf, command, tableChoice, unitsOf } from "./actions.js";
import { describeCounter } from "./board.js";
import { showPreview } from "./combat.js";
import { choiceFields, countProblem, key, picksOf, setPick } from "./compose.js";
import { h } from "./dom.js";
import { inches } from "./table.js";

export class TablePlay {
  constructor({ view, game, send, rerender }) {
    this.view = view;
    this.game = game; // () => the game as last read (its id, for previews)
    this.send = send;
    this.rerender = rerender;
    this.sel = null;
    this.ctx = { counters: [], actions: [], side: null, live: true, state: {}, system: {} };
    this.byUnit = new Map();
    this.general = [];
  }

  reset() {
    this.sel = null;
    this.pending = null;
    this.view.onTable(null);
  }

  // After the game moved on: the unit selected stays selected if it still has orders (a move
  // follows its roll), with a fresh composition.
  renew() {
    this.pending = this.sel && !this.sel.info ? this.sel.unit : null;
    this.sel = null;
  }

  // `settled`: the actions are those of the game's version.  While they are not (the game has
  // moved on and its new orders are still being read), what is selected and the unit to select
  // again stay as they are, drawn on the new table, and nothing can be confirmed.
  update({ counters, actions, settled = true, side, live, state, system }) {
    const drawn = { counters, live, state: state || {}, system: system || {} };
    if (live && !settled) {
      this.ctx = { ...this.ctx, ...drawn, stale: true };
      return;
    }
    this.ctx = { ...drawn, actions: live ? actions : [], side, stale: false };
    this.byUnit = new Map();
    this.general = [];
    for (const template of this.ctx.actions) {
      const units = unitsOf(template);
      if (units.length === 1) this.byUnit.set(units[0], [...(this.byUnit.get(units[0]) || []), template]);
      else this.general.push(template);
    }
    if (this.sel && !this.byUnit.has(this.sel.unit) && !this.counter(this.sel.unit)) this.sel = null;
    if (this.sel && !this.sel.info && !this.byUnit.has(this.sel.unit)) this.sel = null;
    if (this.pending && this.byUnit.has(this.pending)) this.start(this.pending);
    this.pending = null;
  }

  counter(uid) {
    return this.ctx.counters.find((c) => c.id === uid);
  }

  unitName(uid) {
    const c = this.counter(uid);
    const u = this.ctx.state.units && this.ctx.state.units[uid];
    return (c && c.name) || (u && u.name) || uid;
  }

  templatesOf(uid) {
    return this.byUnit.get(uid) || [];
  }

  // The template being composed and the choice it draws on the table (or null).
  current() {
    if (!this.sel || this.sel.info) return { template: null, choice: null };
    const template = this.templatesOf(this.sel.unit)[this.sel.option] || null;
    return { template, choice: template ? tableChoice(template) : null };
  }

  // The picked option of the table choice (its index), or -1 while none is picked.
  picked() {
    const { choice } = this.current();
    if (!choice) return -1;
    if (choice.options.length === 1) return 0;
    return choice.options.findIndex((v) => key(v) === this.sel.answers[choice.name]);
  }

  // -- clicks ----------------------------------------------------------------------------------------
  select(uid) {
    this.start(uid);
    this.rerender();
  }

  start(uid) {
    this.sel = { unit: uid, option: 0, answers: {} };
  }

  choose(i) {
    this.sel = { ...this.sel, option: i, answers: {} };
    this.rerender();
  }

  pick(index) {
    const { choice } = this.current();
    setPick(choice, this.sel.answers, choice.options[index]);
    this.rerender();
  }

  onUnit(unit) {
    const { choice } = this.current();
    if (choice && choice.kind === "unit" && choice.options.includes(unit.id)) return this.pick(choice.options.indexOf(unit.id));
    if (this.ctx.live && this.byUnit.has(unit.id)) return this.select(unit.id);
    this.sel = { unit: unit.id, info: true };
    this.rerender();
  }

  // A click on the table picks the nearest offered position.
  onPoint([x, y]) {
    const { choice } = this.current();
    const far = (p) => Math.hypot(p.x - x, p.y - y);
    let best = 0;
    choice.options.forEach((p, i) => {
      if (far(p) < far(choice.options[best])) best = i;
    });
    this.pick(best);
  }

  // -- drawing ---------------------------------------------------------------------------------------
  draw() {
    const marks = {};
    for (const uid of this.byUnit.keys()) marks[uid] = "can-act";
    const { choice } = this.current();
    const picked = this.picked();
    if (choice && choice.kind === "unit") {
      for (const uid of choice.options) marks[uid] = "target";
      if (picked >= 0) marks[choice.options[picked]] = "chosen";
    }
    if (this.sel) marks[this.sel.unit] = "selected";
    this.view.drawUnits(this.ctx.counters, marks, (unit) => this.onUnit(unit));
    const points = choice && choice.kind === "point" ? choice : null;
    this.view.drawOptions(points ? points.options.map((p, i) => ({ x: p.x, y: p.y, label: points.labels[i], chosen: i === picked })) : [], (i) => this.pick(i));
    this.view.onTable(points ? (p) => this.onPoint(p) : null);
  }

  // -- the Orders panel ------------------------------------------------------------------------------
  panel(cancel) {
    const sel = this.sel;
    if (!sel) return this.idle();
    const unit = this.counter(sel.unit);
    const head = h("h3", {}, unit ? describeCounter(unit) : this.unitName(sel.unit));
    const where = unit ? h("p", { class: "note" }, `At ${inches(unit.x)}, ${inches(unit.y)}, facing ${Math.round(unit.facing)}°; ${(unit.figures || []).length} figures.`) : null;
    if (sel.info) return [head, where, cancel];
    const templates = this.templatesOf(sel.unit);
    const what =
      templates.length > 1
        ? h(
            "fieldset",
            {},
            h("legend", {}, "What"),
            templates.map((t, i) => h("label", { class: "choice" }, h("input", { type: "radio", name: "unit-order", checked: i === sel.option, onchange: () => this.choose(i) }), ` ${t.label}`)),
          )
        : null;
    return [head, where, what, this.orderPart(), cancel];
  }

  idle() {
    if (!this.ctx.live) return [h("p", {}, "Click a unit to see it.")];
    const mine = [...this.byUnit.keys()];
    const hint = mine.length ? "Select a unit on the table or below." : "Nothing to order on the table now.";
    const orders = (uid) => this.templatesOf(uid).map((t) => t.label).join("; ");
    return [
      h("p", {}, hint),
      mine.length
        ? h(
            "ul",
            { class: "units", "aria-label": "Units that can act" },
            mine.map((uid) => h("li", {}, h("button", { type: "button", class: "link", "data-unit": uid, onclick: () => this.select(uid) }, `Select ${this.unitName(uid)}: ${orders(uid)}`))),
          )
        : null,
    ];
  }

  // The template being composed: the table choice (click on the table), the other choices, the
  // preview of a shot at a picked unit, Confirm.
  orderPart() {
    const { template, choice } = this.current();
    const sel = this.sel;
    const parts = [h("h4", {}, template.label)];
    const index = this.picked();
    if (choice) {
      const what = choice.kind === "point" ? "one of the marked positions on the table" : "one of the units marked in red";
      parts.push(h("p", {}, index >= 0 ? h("strong", { class: "picked" }, `${choice.labels[index]}`) : `Click ${what} (${choice.options.length}).`));
    }
    parts.push(choiceFields(template, sel.answers, { skip: choice ? [choice.name] : [], changed: () => this.rerender() }));
    const picks = picksOf(template, sel.answers);
    const ready = (!choice || index >= 0) && !this.ctx.stale;
    const problem = choicesOf(template)
      .map((c) => countProblem(c, picks[c.name]))
      .find(Boolean);
    if (problem) parts.push(h("p", { class: "note" }, problem));
    if (this.ctx.stale) parts.push(h("p", { class: "note" }, "The game has moved on: reading its new orders…"));
    const cmd = command(template, picks);
    if (ready && !problem && (this.ctx.system.capabilities || []).includes("previews")) {
      // the server's preview of the order as it would be sent, when it has one (a shot's)
      const box = h("div", { class: "preview", "aria-live": "polite" });
      parts.push(h("section", { "aria-label": "Preview" }, box));
      const named = choice && choice.kind === "unit";
      showPreview({ game: this.game(), side: this.ctx.side, system: this.ctx.system, cmd, box, name: (x) => this.unitName(x), quiet: !named });
    }
    const done = choice && index >= 0 ? `${template.label}: ${choice.labels[index]}` : template.label;
    parts.push(h("button", { type: "button", id: "confirm", disabled: !ready || Boolean(problem), onclick: () => this.send(cmd, `${done}: done`) }, `Confirm: ${done}`));
    return h("section", { class: "table-order", "aria-label": template.label }, parts);
  }
}
