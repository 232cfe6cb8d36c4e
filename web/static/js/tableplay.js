// Orders on a miniatures table, read from the server's legal actions (GET /api/games/<id>/actions):
//   - {type, unit, ...} actions belong to that unit: selecting it (on the table, or in the list for
//     units not yet on the table) shows them;
//   - `deploy` {unit, zone, suggest: {x, y, facing, ranks}}: click the table where it stands;
//   - `move` {unit, max_length, going, suggest: {path, facing}}: click the points of the path; the
//     measured length is shown against the server's `max_length` (the server measures again);
//   - `shoot` {unit, weapon, max_dice, targets: [{target, distance, needed, ...}]}: click a target,
//     see POST /preview, confirm;
//   - `write_orders` {units}: a small form (text and "may move" per unit);
//   - anything else: a button, or the generic form of compose.js.
import { api, explain } from "./api.js";
import { actionLabel } from "./actions.js";
import { describeCounter } from "./board.js";
import { build, composeForm, needsForm } from "./compose.js";
import { clear, h, humanize } from "./dom.js";
import { inches, pathLength } from "./table.js";

const UNIT_KINDS = new Set(["deploy", "reserve", "roll_move", "hold", "move", "shoot"]);

export class TablePlay {
  constructor({ view, gameId, send, rerender }) {
    this.view = view;
    this.gameId = gameId;
    this.send = send;
    this.rerender = rerender;
    this.sel = null;
    this.ctx = { counters: [], actions: [], side: null, live: true, state: {} };
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

  update({ counters, actions, side, live, state }) {
    this.ctx = { counters, actions: live ? actions : [], side, live, state: state || {} };
    this.byUnit = new Map();
    this.general = [];
    for (const action of this.ctx.actions) {
      if (typeof action.unit === "string" && UNIT_KINDS.has(action.type)) {
        if (!this.byUnit.has(action.unit)) this.byUnit.set(action.unit, []);
        this.byUnit.get(action.unit).push(action);
      } else {
        this.general.push(action);
      }
    }
    if (this.sel && !this.byUnit.has(this.sel.unit) && !this.counter(this.sel.unit)) this.sel = null;
    if (this.pending && this.byUnit.has(this.pending)) this.start(this.pending);
    this.pending = null;
    if (!this.general.some((a) => a.type === "write_orders")) this.draft = null;
  }

  counter(uid) {
    return this.ctx.counters.find((c) => c.id === uid);
  }

  unitName(uid) {
    const c = this.counter(uid);
    const u = this.ctx.state.units && this.ctx.state.units[uid];
    return (c && c.name) || (u && u.name) || uid;
  }

  optionsOf(uid) {
    return this.byUnit.get(uid) || [];
  }

  // -- clicks ----------------------------------------------------------------------------------------
  select(uid) {
    this.start(uid);
    this.rerender();
  }

  start(uid) {
    const options = this.optionsOf(uid);
    const shoot = options.filter((a) => a.type === "shoot");
    this.sel = { unit: uid, path: [], point: null, weapon: shoot.length ? 0 : null, target: null, answers: {} };
    const deploy = options.find((a) => a.type === "deploy");
    if (deploy && deploy.suggest) this.sel.point = { x: deploy.suggest.x, y: deploy.suggest.y, facing: deploy.suggest.facing, ranks: deploy.suggest.ranks };
    const move = options.find((a) => a.type === "move");
    if (move) this.sel.facing = move.suggest && move.suggest.facing !== undefined ? move.suggest.facing : (this.counter(uid) || {}).facing;
  }

  onUnit(unit, ev) {
    const sel = this.sel;
    const shoot = sel && this.shootAction();
    if (shoot && shoot.targets.some((t) => t.target === unit.id)) {
      sel.target = unit.id;
      sel.figure = 0;
      sel.dice = Math.max(1, Math.min(shoot.max_dice, (unit.figures || []).length || 1));
      return this.rerender();
    }
    if (sel && (this.moveAction() || this.deployAction()) && (unit.id === sel.unit || !this.byUnit.has(unit.id))) {
      // a point on another unit (moving into contact with it): where it was clicked, or its centre
      return this.onPoint(ev && ev.clientX ? this.view.toInches(ev).map((v) => Math.round(v * 10) / 10) : [unit.x, unit.y]);
    }
    if (this.ctx.live && this.byUnit.has(unit.id)) return this.select(unit.id);
    this.sel = { unit: unit.id, info: true, path: [] };
    this.rerender();
  }

  // An artillery template is aimed at a figure: clicking one of the chosen target's figures.
  onFigure(unit, index) {
    const sel = this.sel;
    if (!sel || sel.target !== unit.id) return false;
    const line = this.targetLine();
    if (!line || !line.template_ko) return false;
    sel.figure = index;
    this.rerender();
    return true;
  }

  onPoint(point) {
    const sel = this.sel;
    if (!sel) return;
    if (this.moveAction()) sel.path.push(point);
    else if (this.deployAction()) sel.point = { ...sel.point, x: point[0], y: point[1] };
    this.rerender();
  }

  moveAction() {
    return this.sel && !this.sel.info ? this.optionsOf(this.sel.unit).find((a) => a.type === "move") : null;
  }

  deployAction() {
    return this.sel && !this.sel.info ? this.optionsOf(this.sel.unit).find((a) => a.type === "deploy") : null;
  }

  shootAction() {
    if (!this.sel || this.sel.weapon === null || this.sel.weapon === undefined) return null;
    return this.optionsOf(this.sel.unit).filter((a) => a.type === "shoot")[this.sel.weapon] || null;
  }

  targetLine() {
    const shoot = this.shootAction();
    return shoot && this.sel.target ? shoot.targets.find((t) => t.target === this.sel.target) : null;
  }

  // -- drawing ---------------------------------------------------------------------------------------
  draw() {
    const marks = {};
    for (const uid of this.byUnit.keys()) marks[uid] = "can-act";
    const sel = this.sel;
    const shoot = this.shootAction();
    if (shoot) for (const t of shoot.targets) marks[t.target] = "target";
    if (sel) marks[sel.unit] = "selected";
    if (sel && sel.target) marks[sel.target] = "chosen";
    this.view.drawUnits(this.ctx.counters, marks, (unit, ev) => this.onUnit(unit, ev), (unit, i) => this.onFigure(unit, i));
    const move = this.moveAction();
    const deploy = this.deployAction();
    const unit = sel ? this.counter(sel.unit) : null;
    if (move && unit) this.view.drawOverlay({ start: [unit.x, unit.y], path: sel.path, maxLength: move.max_length });
    else if (deploy && sel.point) this.view.drawOverlay({ ghost: sel.point });
    else this.view.drawOverlay({});
    this.view.onTable(move || deploy ? (p) => this.onPoint(p) : null);
  }

  // -- the Orders panel ------------------------------------------------------------------------------
  panel(cancel) {
    const sel = this.sel;
    const orders = this.general.find((a) => a.type === "write_orders");
    if (!sel) {
      if (!this.ctx.live) return [h("p", {}, "Click a unit to see it.")];
      if (orders) return this.ordersForm(orders);
      const mine = [...this.byUnit.keys()];
      const hint = mine.length ? "Select a unit on the table or below." : "Nothing to order now.";
      return [
        h("p", {}, hint),
        mine.length
          ? h(
              "ul",
              { class: "units", "aria-label": "Units that can act" },
              mine.map((uid) =>
                h("li", {}, h("button", { type: "button", class: "link", "data-unit": uid, onclick: () => this.select(uid) }, `Select ${this.unitName(uid)}: ${this.optionsOf(uid).map((a) => humanize(a.type).toLowerCase()).join(", ")}`)),
              ),
            )
          : null,
      ];
    }
    const unit = this.counter(sel.unit);
    const head = h("h3", {}, unit ? describeCounter(unit) : this.unitName(sel.unit));
    const where = unit ? h("p", { class: "note" }, `At ${inches(unit.x)}, ${inches(unit.y)}, facing ${Math.round(unit.facing)}°; ${unit.figures.length} figures.`) : null;
    if (sel.info) return [head, where, cancel];
    const parts = [head, where];
    for (const action of this.optionsOf(sel.unit)) {
      if (action.type === "deploy") parts.push(this.deployPart(action));
      else if (action.type === "move") parts.push(this.movePart(action, unit));
      else if (action.type === "shoot") continue;
      else if (needsForm(action)) {
        const answers = (sel.answers[action.type] = sel.answers[action.type] || {});
        parts.push(composeForm(action, { send: (c) => this.send(c), label: actionLabel(action), names: (x) => this.unitName(x), answers }));
      }
      else parts.push(h("p", {}, h("button", { type: "button", class: "secondary", onclick: () => this.send(build(action, {})) }, actionLabel(action))));
    }
    if (this.optionsOf(sel.unit).some((a) => a.type === "shoot")) parts.push(this.shootPart());
    parts.push(cancel);
    return parts;
  }

  deployPart(action) {
    const sel = this.sel;
    const p = sel.point || {};
    const number = (name, label, step) =>
      h(
        "label",
        { class: "inline" },
        label,
        h("input", {
          type: "number",
          name,
          step,
          value: p[name] ?? "",
          onchange: (ev) => {
            sel.point = { ...sel.point, [name]: Number(ev.target.value) };
            this.rerender();
          },
        }),
      );
    const ready = p.x !== undefined && p.y !== undefined;
    return h(
      "section",
      { class: "table-order", "aria-label": "Deploy" },
      h("h4", {}, "Deploy"),
      h("p", {}, "Click the table inside your deployment zone where the unit's front rank stands (the server checks every figure)."),
      h("div", { class: "numbers" }, number("x", "x (in)", 0.1), number("y", "y (in)", 0.1), number("facing", "facing (°)", 1), number("ranks", "ranks", 1)),
      h(
        "button",
        { type: "button", id: "confirm", disabled: !ready, onclick: () => this.send({ type: "deploy", unit: action.unit, x: p.x, y: p.y, facing: p.facing, ranks: p.ranks }, `${sel.unit} deployed`) },
        ready ? `Confirm: deploy at ${inches(p.x)}, ${inches(p.y)}` : "Confirm: deploy",
      ),
    );
  }

  movePart(action, unit) {
    const sel = this.sel;
    const length = unit ? pathLength([unit.x, unit.y], sel.path) : 0;
    const over = action.max_length !== undefined && length > action.max_length + 1e-6;
    const suggested = action.suggest && action.suggest.path;
    return h(
      "section",
      { class: "table-order", "aria-label": "Move" },
      h("h4", {}, `Move (${action.going || "?"} going)`),
      h("p", {}, "Click the table to add the points of the path, in order. Moving into contact with an enemy unit brings a close combat at the end of the turn (CLOSE COMBAT)."),
      h(
        "p",
        { id: "measure", class: over ? "over" : "" },
        `Measured ${inches(length)}`,
        action.max_length !== undefined ? ` of ${inches(action.max_length)} allowed` : "",
        over ? " — longer than the roll: the server will refuse it" : "",
      ),
      sel.path.length ? h("p", { class: "note" }, `Path: ${sel.path.map(([x, y]) => `(${x}, ${y})`).join(" → ")}`) : h("p", { class: "note" }, "No points yet: confirming leaves the unit where it is."),
      h(
        "label",
        { class: "inline" },
        "Facing at the end (°)",
        h("input", { type: "number", name: "facing", step: 1, value: sel.facing ?? "", onchange: (ev) => (sel.facing = Number(ev.target.value)) }),
      ),
      h(
        "p",
        { class: "buttons" },
        h("button", { type: "button", class: "secondary", disabled: !sel.path.length, onclick: () => (sel.path.pop(), this.rerender()) }, "Undo point"),
        h("button", { type: "button", class: "secondary", disabled: !sel.path.length, onclick: () => ((sel.path = []), this.rerender()) }, "Clear"),
        suggested && suggested.length
          ? h("button", { type: "button", class: "secondary", onclick: () => ((sel.path = suggested.map((p) => [...p])), this.rerender()) }, "Use the suggested path")
          : null,
      ),
      h(
        "button",
        {
          type: "button",
          id: "confirm",
          onclick: () => this.send({ type: "move", unit: action.unit, path: sel.path, facing: sel.facing }, `${sel.unit} moved ${inches(length)}`),
        },
        `Confirm move (${inches(length)})`,
      ),
    );
  }

  shootPart() {
    const sel = this.sel;
    const weapons = this.optionsOf(sel.unit).filter((a) => a.type === "shoot");
    const shoot = this.shootAction();
    const parts = [h("h4", {}, "Shoot")];
    if (weapons.length > 1) {
      parts.push(
        h(
          "fieldset",
          {},
          h("legend", {}, "Weapon"),
          weapons.map((a, i) =>
            h("label", { class: "choice" }, h("input", { type: "radio", name: "weapon", checked: i === sel.weapon, onchange: () => ((sel.weapon = i), (sel.target = null), this.rerender()) }), ` ${a.weapon}`),
          ),
        ),
      );
    }
    parts.push(h("p", {}, `${shoot.weapon}, up to ${shoot.max_dice} dice: click a target marked in red (${shoot.targets.map((t) => `${this.unitName(t.target)} at ${inches(t.distance)}`).join("; ")}).`));
    const line = this.targetLine();
    if (line) {
      const target = this.counter(line.target);
      const most = Math.min(shoot.max_dice, target ? target.figures.length : shoot.max_dice);
      parts.push(
        h("p", {}, h("strong", {}, `Target: ${this.unitName(line.target)}`)),
        h(
          "label",
          { class: "inline" },
          "Dice",
          h("input", { type: "number", name: "dice", min: 1, max: shoot.max_dice, value: sel.dice, onchange: (ev) => ((sel.dice = Number(ev.target.value)), this.rerender()) }),
          h("span", { class: "note" }, ` (up to ${shoot.max_dice}; ${most} would use every figure of the target)`),
        ),
        line.template_ko ? h("p", { class: "note" }, `Template aimed at figure ${sel.figure} (click another figure of the target to move it).`) : null,
      );
      const box = h("div", { class: "preview", "aria-live": "polite" }, h("p", {}, "Asking the server…"));
      parts.push(h("section", { "aria-label": "Shot preview" }, h("h4", {}, "Preview"), box));
      const command = this.shotCommand();
      this.preview(command, box);
      parts.push(h("button", { type: "button", id: "confirm", onclick: () => this.send(command, `${shoot.weapon} fired at ${this.unitName(line.target)}`) }, `Confirm: fire at ${this.unitName(line.target)}`));
    }
    return h("section", { class: "table-order", "aria-label": "Shoot" }, parts);
  }

  shotCommand() {
    const shoot = this.shootAction();
    const target = { unit: this.sel.target, dice: this.sel.dice };
    if (this.targetLine().template_ko) target.figure = this.sel.figure || 0;
    return { type: "shoot", unit: shoot.unit, weapon: shoot.weapon, targets: [target] };
  }

  async preview(command, box) {
    const asked = (this.asked = (this.asked || 0) + 1);
    try {
      const body = { command };
      if (this.ctx.side) body.side = this.ctx.side;
      const preview = await api(`/api/games/${this.gameId}/preview`, { method: "POST", body });
      if (asked === this.asked) clear(box, shotPreview(preview));
    } catch (err) {
      if (asked === this.asked) clear(box, h("p", {}, `No preview: ${explain(err)}. The server still checks every rule when you confirm.`));
    }
  }

  // -- written orders ----------------------------------------------------------------------------------
  ordersForm(action) {
    // the draft outlives the panel's redrawing (live updates redraw it while the player types)
    const draft = (this.draft = this.draft || {});
    const line = (uid) => (draft[uid] = draft[uid] || { text: "", move: true });
    const rows = action.units.map((uid) =>
      h(
        "fieldset",
        { class: "order-line", "data-unit": uid },
        h("legend", {}, this.unitName(uid)),
        h("label", {}, "Order", h("input", { name: `text:${uid}`, maxlength: 500, placeholder: "e.g. advance on the farm", value: line(uid).text, oninput: (ev) => (line(uid).text = ev.target.value) })),
        h("label", { class: "choice" }, h("input", { type: "checkbox", name: `move:${uid}`, checked: line(uid).move, onchange: (ev) => (line(uid).move = ev.target.checked) }), " may move this turn"),
      ),
    );
    const form = h(
      "form",
      {
        class: "orders-form",
        onsubmit: (ev) => {
          ev.preventDefault();
          const orders = {};
          for (const uid of action.units) {
            const text = line(uid).text.trim();
            const move = line(uid).move;
            if (text || !move) orders[uid] = { text, move };
          }
          this.send({ type: "write_orders", orders }, "Orders written: hidden from your opponent until the end of the turn");
        },
      },
      h("h3", {}, "Written orders"),
      h("p", { class: "note" }, "Your opponent sees only how many orders you wrote until they are revealed at the end of the turn. A unit whose order says it may not move stays put."),
      rows,
      h("button", { type: "submit", id: "confirm" }, "Write the orders"),
    );
    return [form];
  }
}

// A shot preview from the server: per target the range, the score needed and every modifier with
// its heading, or the 2d6 KO numbers against an AFV.
function shotPreview(p) {
  const parts = [];
  if (p.may_fire_now === false) parts.push(h("p", { class: "over" }, "This weapon may not fire now."));
  for (const t of p.targets || []) {
    const lines = [h("strong", {}, `${t.target}: `), `${inches(t.distance)} of ${inches(t.range)} range`];
    if (t.refused) lines.push(h("span", { class: "over" }, ` — refused: ${t.refused}`));
    if (t.needed !== undefined) lines.push(h("span", { id: "shot-needed" }, ` — hits on ${t.needed}+`));
    if (t.modifier_total) lines.push(` (modifiers ${t.modifier_total > 0 ? "+" : ""}${t.modifier_total})`);
    if (t.ko) lines.push(` — 2d6 KO on ${t.ko.join(", ")}${t.bonus ? ` (+${t.bonus})` : ""} (AFVs)`);
    if (t.template_ko) lines.push(` — template: KO on ${t.template_ko.join(", ")}`);
    parts.push(h("p", {}, lines));
    if ((t.modifiers || []).length) {
      parts.push(h("ul", { class: "modifiers", "aria-label": "Modifiers" }, t.modifiers.map((m) => h("li", {}, `${m.modifier || m.cause}: ${m.value > 0 ? "+" : ""}${m.value}`, m.rule ? h("span", { class: "rule" }, ` (${m.rule})`) : ""))));
    } else if (t.needed !== undefined) parts.push(h("p", {}, "No modifiers."));
  }
  const notes = p.weapon_list && p.weapon_list.notes;
  if (notes && notes.length) parts.push(h("p", { class: "note" }, `${p.weapon}: ${notes.join("; ")}`));
  return parts;
}
