// The one action vocabulary (GET /api/games/<id>/actions, docs/rules/contract.md), read the same
// way for every game.  The browser never works out what is legal: it only reads these templates.
//
// A template is {type, label, fixed: {field: value}, choose: {field: choice}, kinds: {field: kind}}
// and a choice is {one_of: [v...], labels} (pick one) or {some_of: [v...], labels, min, max}.  A
// command is the template's `type` and `fixed` fields plus one pick per `choose` field.  `kinds`
// (unit, units, hex, path, point, number, text, flag, choice) says what a field designates, so the
// page draws a template on its board without knowing the game:
//   - fixed unit(s) and a `hex` or `path` one_of: select the unit, click a highlighted destination
//     (a path's last hex);
//   - a fixed `hex` and units (a `some_of` to tick, or fixed `units`): click the target hex, tick
//     the units, see the preview;
//   - on a table, a `point` one_of is a position to click and a `unit` one_of a unit to click;
//   - anything else: a button, with a small form for the choices left (compose.js).
// `blocked` entries are what the rules refuse now: shown disabled with the reason and the rule.
import { ruleWords } from "./dom.js";

const BOARD_KINDS = new Set(["hex", "path"]);

// Every choice a template leaves, in order: {name, kind, many, options, labels, min, max}.
export function choicesOf(template) {
  return Object.entries(template.choose || {}).map(([name, c]) => {
    if (c.paths) c = pathChoice(c.paths); // read once: the template keeps the list form
    const many = Array.isArray(c.some_of);
    const options = (many ? c.some_of : c.one_of) || [];
    const labels = Array.isArray(c.labels) && c.labels.length === options.length ? c.labels : options.map(String);
    return { name, kind: kindOf(template, name), many, options, labels, min: many ? (c.min ?? 0) : 1, max: many ? (c.max ?? options.length) : 1 };
  });
}

// A path choice sent as a tree (`?paths=tree`: {tree: "A1(B1(C1 C2) ~B2(C3))", named: {hex: label}})
// as the list it stands for: every path from the first hex to each other hex, depth first, but to
// a "~hex" (crossed, where no path ends), labelled by `named` or by its last hex.  Decoded once per choice (kept on the tree object).
const decoded = new WeakMap();
export function pathChoice(paths) {
  if (decoded.has(paths)) return decoded.get(paths);
  const options = [];
  let parent = [];
  let last = null;
  let token = "";
  const read = () => {
    if (!token) return;
    const through = token.startsWith("~"); // a hex crossed, where no path ends
    last = [...parent, through ? token.slice(1) : token];
    if (last.length > 1 && !through) options.push(last);
    token = "";
  };
  for (const ch of paths.tree) {
    if (ch === "(") {
      read();
      parent = last;
    } else if (ch === ")") {
      read();
      parent = parent.slice(0, -1);
    } else if (ch === " ") read();
    else token += ch;
  }
  read();
  const named = paths.named || {};
  const out = { one_of: options, labels: options.map((p) => named[p[p.length - 1]] || p[p.length - 1]) };
  decoded.set(paths, out);
  return out;
}

export const kindOf = (template, name) => (template.kinds || {})[name] || "text";

// The command a template makes with `picks` ({field: value}): type, fixed fields, then the picks.
export function command(template, picks = {}) {
  const out = { type: template.type, ...(template.fixed || {}) };
  for (const c of choicesOf(template)) out[c.name] = c.name in picks ? picks[c.name] : defaultPick(c);
  return out;
}

// What a choice holds until the player picks: the first option, or the first `min` options.
export const defaultPick = (c) => (c.many ? c.options.slice(0, c.min) : c.options[0]);

// The ids of the units a template's fixed fields name (the counters it belongs to).
export function unitsOf(template) {
  const out = [];
  for (const [name, value] of Object.entries(template.fixed || {})) {
    const kind = kindOf(template, name);
    if (kind === "unit") out.push(value);
    else if (kind === "units") out.push(...value);
  }
  return out;
}

// The hex a `hex` or `path` value leads to: the hex itself, or a path's last hex.
export const destinationOf = (kind, value) => (kind === "path" ? value[value.length - 1] : value);

// The choice drawn on the board as destinations: a `hex` or `path` one_of of a unit's template.
export function destinationChoice(template) {
  if (!unitsOf(template).length) return null;
  return choicesOf(template).find((c) => !c.many && BOARD_KINDS.has(c.kind)) || null;
}

// A target: the template's fixed `hex` with its units, a `some_of` to tick ({hex, choice}) or fixed
// `units` ({hex, units}), else null.
export function targetOf(template) {
  const fixed = Object.entries(template.fixed || {});
  const hex = fixed.find(([name]) => kindOf(template, name) === "hex");
  const choice = choicesOf(template).find((c) => c.many && c.kind === "units") || null;
  const units = fixed.find(([name]) => kindOf(template, name) === "units");
  if (!hex || !(choice || units)) return null;
  return { hex: hex[1], choice, units: units ? units[1] : [] };
}

// The choice of a table template drawn on the table: a `point` one_of (a position to click) or a
// `unit` one_of (a unit to click), else null.
export function tableChoice(template) {
  return choicesOf(template).find((c) => !c.many && (c.kind === "point" || c.kind === "unit")) || null;
}

// {hex: {value, label}} for a destination choice.
export function destinations(template, choice) {
  const out = {};
  choice.options.forEach((value, i) => {
    const hex = destinationOf(choice.kind, value);
    if (!(hex in out)) out[hex] = { value, label: choice.labels[i] };
  });
  return out;
}

// A template with no unit of its own whose one real choice is a `path` (a retreat to choose):
// drawn on the board as the paths' ends, each picked by a click as from the list.
export function decisionChoice(template) {
  if (unitsOf(template).length) return null;
  const choices = choicesOf(template);
  const paths = choices.filter((c) => !c.many && c.kind === "path" && c.options.length > 1);
  return paths.length === 1 && choices.length === 1 ? paths[0] : null;
}

// Whether a template leaves the player a real choice besides `skip` (the field drawn on a board):
// then it opens a form; otherwise it is sent as it is.
export function needsForm(template, skip = null) {
  return choicesOf(template).some((c) => c.name !== skip && (c.many ? !(c.min === c.options.length && c.max === c.options.length) : c.options.length > 1));
}

// The page's plan of the actions: what each unit can do, the targets, the general orders, the
// blocked ones.
//   byUnit: unit id -> [{template, choice, destinations}] (templates drawn as destinations);
//   unitOther: unit id -> [template] (a unit's other orders, for units that have destinations);
//   targets: hex -> [template]; general: [template]; blocked: [{type, label, reason, rule}].
export function interpret(response) {
  const plan = { byUnit: new Map(), unitOther: new Map(), targets: new Map(), general: [], decisions: [], blocked: (response && response.blocked) || [] };
  const push = (map, key, item) => map.set(key, [...(map.get(key) || []), item]);
  for (const template of (response && response.actions) || []) {
    const target = targetOf(template);
    const choice = target ? null : destinationChoice(template);
    if (choice) {
      const option = { template, choice, destinations: destinations(template, choice) };
      for (const uid of unitsOf(template)) push(plan.byUnit, uid, option);
    } else if (target) {
      push(plan.targets, target.hex, template);
    } else if (unitsOf(template).length === 1) {
      push(plan.unitOther, unitsOf(template)[0], template);
    } else {
      plan.general.push(template);
      // a decision of no unit's own (a retreat path to choose): its places drawn on the map too
      const path = decisionChoice(template);
      if (path) plan.decisions.push({ template, choice: path, destinations: destinations(template, path) });
    }
  }
  // a unit with no destination to click keeps its orders among the buttons
  for (const [uid, templates] of plan.unitOther) {
    if (!plan.byUnit.has(uid)) {
      plan.general.push(...templates);
      plan.unitOther.delete(uid);
    }
  }
  return plan;
}

// A blocked entry in words: "End phase — 19 Div must remain with Solans (rule 12)".
export const blockedWords = (b) => `${b.label} — ${b.reason}${b.rule ? ` (${ruleWords(b.rule)})` : ""}`;
