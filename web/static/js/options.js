// A scenario's options (its optional rules, its length, its forces) as form controls: a check box
// for a yes/no option, a list for one with choices, a number field for a number, each with the
// scenario's own description; and the values a person chose, as a new game's `options`.
import { clear, h } from "./dom.js";

const PREFIX = "option:";
const words = (value) => String(value).replace(/_/g, " ");
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const choiceWords = (value) => (typeof value === "number" && value > 0 ? `+${value}` : words(value));
const numeric = (o) => o.kind === "integer" || o.kind === "number";

// The controls for `specs` (a scenario's `options` from /api/systems), set to their defaults.
function optionFields(specs) {
  return specs.map((o) => {
    const name = PREFIX + o.name;
    const title = capital(words(o.name));
    const hint = o.description ? h("span", { class: "option-hint" }, o.description) : null;
    if (o.kind === "boolean") {
      return h("label", { class: "choice scenario-option", "data-option": o.name }, h("input", { type: "checkbox", name, checked: Boolean(o.default) }), ` ${title}`, hint);
    }
    let control;
    if (Array.isArray(o.choices)) {
      control = h("select", { name }, o.choices.map((c, i) => h("option", { value: String(i), selected: c === o.default }, `${choiceWords(c)}${c === o.default ? " (default)" : ""}`)));
    } else if (numeric(o)) {
      control = h("input", { type: "number", name, value: o.default, min: o.min ?? undefined, max: o.max ?? undefined, step: o.kind === "integer" ? 1 : "any", required: true });
    } else {
      control = h("input", { name, value: o.default ?? "" });
    }
    return h("label", { class: "scenario-option", "data-option": o.name }, title, control, hint);
  });
}

// A form's options panel (a <details>, `panel` or a new one): the summary and the controls for
// `specs`, hidden when the scenario has none.  Drawn again when the scenario changes; it stays open.
export function optionsPanel(specs, panel = h("details")) {
  clear(panel, h("summary", {}, "Options (optional rules, length, forces)"), optionFields(specs));
  panel.hidden = !specs.length;
  return panel;
}

// The options chosen in `form` that differ from the scenario's defaults (the server merges them
// over the defaults and checks each).
export function chosenOptions(form, specs) {
  const out = {};
  for (const o of specs) {
    const el = form.elements[PREFIX + o.name];
    if (!el) continue;
    let value;
    if (o.kind === "boolean") value = el.checked;
    else if (Array.isArray(o.choices)) value = o.choices[Number(el.value)];
    else if (numeric(o)) value = el.value === "" ? o.default : Number(el.value);
    else value = el.value;
    if (value !== o.default) out[o.name] = value;
  }
  return out;
}

// Options as a person reads them: "limited intelligence: yes; turns: 1".
export function optionWords(options) {
  const value = (v) => (v === true ? "yes" : v === false ? "no" : words(v));
  return Object.entries(options || {})
    .map(([name, v]) => `${words(name)}: ${value(v)}`)
    .join("; ");
}
