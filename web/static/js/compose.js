// Filling in a legal action that leaves a choice to the player, read from the template alone:
//   - a list of unit ids (`units`, `attackers`, `artillery`) with several entries: tick some of them
//     (sent under the same key, and as `unit` too when exactly one is ticked);
//   - another plural list of strings (`troop_types`, `goings`, ...): choose one, sent under the
//     singular key (`troop_type`, `going`), defaulting to the template's `suggest`;
//   - a blank (`null`) field: typed in; in a template with blanks an empty list is typed in too
//     (comma separated).
// `suggest` holds the server's suggestions: they become the command's defaults and are not sent.
// The server checks every command; nothing here decides what is legal.
import { buyForm } from "./buy.js";
import { h, humanize } from "./dom.js";
import { checkboxes, csv } from "./forms.js";

export const UNIT_LISTS = ["units", "attackers", "artillery"];

const isStrings = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string");

export function choices(action) {
  const blanks = Object.values(action).some((v) => v === null);
  const out = [];
  for (const [key, value] of Object.entries(action)) {
    if (key === "type" || key === "suggest") continue;
    if (value === null) out.push({ key, kind: "text" });
    else if (blanks && Array.isArray(value) && value.length === 0) out.push({ key, kind: "list" });
    else if (UNIT_LISTS.includes(key) && isStrings(value) && value.length > 1) out.push({ key, kind: "subset", from: value });
    else if (!UNIT_LISTS.includes(key) && key.endsWith("s") && isStrings(value) && value.length > 1) {
      const single = key.slice(0, -1);
      out.push({ key, kind: "one", from: value, send: single, initial: action.suggest && action.suggest[single] });
    }
  }
  return out;
}

// A template with a `catalogue` (buying a unit with points) has a form of its own (buy.js).
export const needsForm = (action) => Boolean(action.catalogue) || choices(action).length > 0;

// The command as it would be sent: the template without its choices and suggestions, the
// suggestions as defaults, then the player's answers ({key: value}).
export function build(action, answers) {
  const command = { ...(action.suggest || {}), ...action };
  delete command.suggest;
  for (const c of choices(action)) {
    delete command[c.key];
    const answer = answers[c.key];
    if (c.kind === "one") command[c.send] = answer;
    else if (c.kind === "subset") {
      command[c.key] = answer;
      if (answer.length === 1 && command.unit === undefined) command.unit = answer[0];
    } else if (c.kind === "list") {
      command[c.key] = csv(answer);
    } else command[c.key] = answer === undefined || answer === "" ? null : answer;
  }
  return command;
}

// A small form for one action; `names(id)` words a unit id; `send(command)` submits it; `answers`
// keeps what was chosen when the form is drawn again (live updates redraw the panel).
export function composeForm(action, { names = (x) => x, send, cancel, label, answers = {} }) {
  if (action.catalogue) return buyForm(action, { send, cancel, label, answers });
  const fields = choices(action).map((c) => {
    const id = `compose-${c.key}`;
    if (c.kind === "subset") return checkboxes(humanize(c.key), c.from.map((uid) => [uid, names(uid)]), answers, c.key);
    if (c.kind === "one") {
      if (!c.from.includes(answers[c.key])) answers[c.key] = c.initial && c.from.includes(c.initial) ? c.initial : c.from[0];
      return h(
        "label",
        { for: id },
        humanize(c.send),
        h("select", { id, name: c.send, onchange: (ev) => (answers[c.key] = ev.target.value) }, c.from.map((v) => h("option", { value: v, selected: v === answers[c.key] }, v))),
      );
    }
    if (typeof answers[c.key] !== "string") answers[c.key] = "";
    return h(
      "label",
      { for: id },
      c.kind === "list" ? `${humanize(c.key)} (comma separated)` : humanize(c.key),
      h("input", { id, name: c.key, value: answers[c.key], oninput: (ev) => (answers[c.key] = ev.target.value) }),
    );
  });
  const form = h(
    "form",
    {
      class: "compose",
      onsubmit: (ev) => {
        ev.preventDefault();
        send(build(action, answers));
      },
    },
    h("h3", {}, label || humanize(action.type)),
    fields,
    h("button", { type: "submit", id: "confirm" }, `Confirm: ${String(action.type).replace(/_/g, " ")}`),
    cancel || null,
  );
  return form;
}
