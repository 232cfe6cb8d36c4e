// Filling in the choices a template leaves (see actions.js), the same way for every game: a select
// per `one_of`, check boxes per `some_of` (from `min` to `max` of them), each option by its label.
// `answers` keeps what was picked, by the option's JSON, so a form drawn again (live updates redraw
// the panel) keeps the picks that are still offered.  The server checks every command.
import { choicesOf, defaultPick } from "./actions.js";
import { h, humanize } from "./dom.js";
import { checkboxes, inOrder } from "./forms.js";

// An option's key in a form: a string as it is, any other value as its JSON.
export const key = (value) => (typeof value === "string" ? value : JSON.stringify(value));

// The picked value of a choice: the answer when it is still an option, else the default.
export function pickOf(c, answers, initial = defaultPick) {
  const byKey = new Map(c.options.map((v) => [key(v), v]));
  const answer = answers[c.name];
  if (c.many) {
    // each answer once per time it is offered (a value may be offered more than once)
    if (Array.isArray(answer)) return inOrder(c.options.map(key), answer).map((k) => byKey.get(k));
    return initial(c);
  }
  return byKey.has(answer) ? byKey.get(answer) : initial(c);
}

// {field: value} for every choice of a template, from the answers (`initial` for those not given).
export function picksOf(template, answers, initial = defaultPick) {
  return Object.fromEntries(choicesOf(template).map((c) => [c.name, pickOf(c, answers, initial)]));
}

// Record a pick (a value, or a list of values for a `some_of`).
export function setPick(c, answers, value) {
  answers[c.name] = c.many ? value.map(key) : key(value);
}

// Why a `some_of` pick is not yet sendable (too few or too many), else "".
export function countProblem(c, picked) {
  if (!c.many) return "";
  if (picked.length < c.min) return `Choose at least ${c.min} (${humanize(c.name).toLowerCase()}).`;
  if (picked.length > c.max) return `Choose at most ${c.max} (${humanize(c.name).toLowerCase()}).`;
  return "";
}

// The form fields of a template's choices, except those in `skip` (drawn on the board instead).
// `changed()` is called after each pick.
export function choiceFields(template, answers, { skip = [], changed = () => {}, initial = defaultPick } = {}) {
  return choicesOf(template)
    .filter((c) => !skip.includes(c.name) && (c.many || c.options.length > 1))
    .map((c) => {
      const picked = pickOf(c, answers, initial);
      setPick(c, answers, picked);
      if (c.many) {
        const items = c.options.map((v, i) => [key(v), c.labels[i]]);
        const range = c.min === c.max ? `${c.min}` : `${c.min} to ${c.max}`;
        const box = checkboxes(`${humanize(c.name)} (choose ${range})`, items, answers, c.name);
        box.addEventListener("change", () => changed());
        box.dataset.field = c.name;
        return box;
      }
      const id = `compose-${c.name}`;
      const current = key(picked);
      return h(
        "label",
        { for: id },
        humanize(c.name),
        h(
          "select",
          { id, name: c.name, onchange: (ev) => ((answers[c.name] = ev.target.value), changed()) },
          c.options.map((v, i) => h("option", { value: key(v), selected: key(v) === current }, c.labels[i])),
        ),
      );
    });
}

// A small form for one template: its choices, then Confirm.  `send(command picks)` submits the
// picks; a `some_of` outside its min..max is explained instead of sent.
export function composeForm(template, { send, cancel, answers = {} }) {
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    {
      class: "compose",
      onsubmit: (ev) => {
        ev.preventDefault();
        const picks = picksOf(template, answers);
        const problem = choicesOf(template)
          .map((c) => countProblem(c, picks[c.name]))
          .find(Boolean);
        if (problem) error.textContent = problem;
        else send(picks);
      },
    },
    h("h3", {}, template.label),
    choiceFields(template, answers),
    error,
    h("button", { type: "submit", id: "confirm" }, `Confirm: ${template.label}`),
    cancel || null,
  );
  return form;
}
