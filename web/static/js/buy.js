// Buying a unit with points (a `buy` template with a `catalogue`, e.g. Barcelona's `points`
// forces): the form is built from the catalogue alone -- the kinds and the fields each one takes,
// the troop types and their grades, attributes, weapons and vehicles with their printed prices.
// The command is {type: "buy", unit: {kind, ...fields}}; the server prices it and checks the budget.
import { h, humanize } from "./dom.js";
import { checkboxes } from "./forms.js";

const NUMBERS = { figures: 10, lmg: 0, grade: 0 };

const marked = (spec) => (spec && spec.placeholder ? ", placeholder price" : "");

function options(name, cat, answers) {
  if (name === "troop_type") {
    return Object.entries(cat.troop_types).map(([type, t]) => [
      type,
      `${type} (${t.grades.map((g) => g.points).join("/")} points a figure${t.attributes.length ? ", " + t.attributes.join(", ") : ""})`,
    ]);
  }
  if (name === "grade") {
    const type = cat.troop_types[answers.troop_type] || Object.values(cat.troop_types)[0];
    return type.grades.map((g) => [String(g.grade), `morale ${g.morale}, tactical ${g.tactical}, ${g.points} points a figure`]);
  }
  if (name === "weapon") return Object.entries(cat.teams).map(([w, t]) => [w, `${w} (${t.per_crew} points a crew figure${marked(t)})`]);
  if (name === "vehicle") return Object.entries(cat.vehicles).map(([v, t]) => [v, `${v} (${t.points} points, ${humanize(t.kind).toLowerCase()}${marked(t)})`]);
  return null;
}

function defaults(cat, answers) {
  for (const name of ["troop_type", "grade", "weapon", "vehicle"]) {
    const found = options(name, cat, answers);
    if (!found.some(([v]) => v === answers[name])) answers[name] = found[0][0];
  }
  for (const [name, value] of Object.entries(NUMBERS)) if (answers[name] === undefined) answers[name] = String(value);
  if (answers.crew === undefined) answers.crew = String(cat.crew.default);
  if (answers.bombs === undefined) answers.bombs = true;
  if (!Array.isArray(answers.attributes)) answers.attributes = [];
}

// The command as it would be sent, from the answers.
export function buyCommand(action, answers) {
  const fields = action.catalogue.kinds[answers.kind] || [];
  const unit = { kind: answers.kind };
  for (const name of fields) {
    const value = answers[name];
    unit[name] = ["figures", "lmg", "grade", "crew"].includes(name) ? Number(value) : value;
  }
  return { type: "buy", unit };
}

export function buyForm(action, { send, cancel, label, answers = {} }) {
  const cat = action.catalogue;
  const kinds = Object.keys(cat.kinds);
  if (!kinds.includes(answers.kind)) answers.kind = kinds[0];
  defaults(cat, answers);
  const box = h("div", { class: "buy-fields" });

  const field = (name) => {
    const id = `buy-${name}`;
    const found = options(name, cat, answers);
    if (found) {
      const change = (ev) => {
        answers[name] = ev.target.value;
        if (name === "troop_type") {
          answers.grade = "0"; // the grades are the troop type's
          draw();
        }
      };
      return h("label", { for: id }, humanize(name), h("select", { id, name, onchange: change }, found.map(([v, text]) => h("option", { value: v, selected: v === answers[name] }, text))));
    }
    if (name === "attributes") {
      return checkboxes("Attributes bought", Object.entries(cat.attributes).map(([a, cost]) => [a, `${a} (+${cost} a figure)`]), answers, "attributes");
    }
    if (name === "bombs") {
      return h(
        "label",
        { class: "choice-line" },
        h("input", { type: "checkbox", name, checked: answers.bombs, onchange: (ev) => (answers.bombs = ev.target.checked) }),
        ` Bombs (without: ${cat.per_figure.no_bombs} a figure)`,
      );
    }
    const text = { figures: "Figures", lmg: `LMGs (${cat.lmg} points each)`, crew: `Crew${cat.crew.placeholder ? " (placeholder size)" : ""}` }[name] || humanize(name);
    return h("label", { for: id }, text, h("input", { id, name, type: "number", min: name === "lmg" ? 0 : 1, value: answers[name], oninput: (ev) => (answers[name] = ev.target.value) }));
  };

  function draw() {
    const fields = cat.kinds[answers.kind].map(field);
    const price = answers.kind === "aircraft" ? h("p", {}, `An aeroplane: ${cat.aircraft.points} points.`) : null;
    const cavalry = answers.kind === "cavalry" ? h("p", {}, `Cavalry: +${cat.per_figure.cavalry} a figure.`) : null;
    box.replaceChildren(...[...fields, price, cavalry].filter(Boolean));
  }
  draw();

  const kind = h(
    "label",
    { for: "buy-kind" },
    "Kind",
    h(
      "select",
      {
        id: "buy-kind",
        name: "kind",
        onchange: (ev) => {
          answers.kind = ev.target.value;
          draw();
        },
      },
      kinds.map((k) => h("option", { value: k, selected: k === answers.kind }, humanize(k))),
    ),
  );
  return h(
    "form",
    {
      class: "compose buy",
      onsubmit: (ev) => {
        ev.preventDefault();
        send(buyCommand(action, answers));
      },
    },
    h("h3", {}, label || "Buy"),
    h("p", {}, `Points left: ${action.budget} (${cat.rule}).`),
    kind,
    box,
    h("button", { type: "submit", id: "confirm" }, "Confirm: buy"),
    cancel || null,
  );
}
