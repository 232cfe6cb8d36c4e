// Form helpers shared by the pages: submit handlers that show the server's reason on failure.
import { explain } from "./api.js";
import { h } from "./dom.js";

export function formData(form) {
  return Object.fromEntries(new FormData(form).entries());
}

// `handler(data, form)` on submit, the button held meanwhile; a failure's reason in the form's
// `.error`, in `words(err)` (default: the server's message and fields).
export function onSubmit(form, handler, words = explain) {
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (error) error.textContent = "";
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      await handler(formData(form), form);
    } catch (err) {
      if (error) error.textContent = words(err);
      else throw err;
    } finally {
      if (button) button.disabled = false;
    }
  });
}

export const csv = (text) =>
  String(text || "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

// Check boxes for `items` ([value, text] pairs): `answers[key]` holds the ticked values, in the
// items' order, and keeps them when the form is drawn again.  A value offered more than once (two
// air points of one type) has a box for each: ticking one ticks only it, and the answer holds the
// value as many times as its boxes are ticked.
export function checkboxes(legend, items, answers, key) {
  if (!Array.isArray(answers[key])) answers[key] = [];
  const order = items.map(([value]) => value);
  const seen = new Map(); // value -> boxes of it so far: each box's rank among its equals
  const ranked = items.map(([value, text]) => {
    const rank = seen.get(value) || 0;
    seen.set(value, rank + 1);
    return [value, text, rank];
  });
  const toggle = (value, on) => {
    const ticked = answers[key].slice();
    if (on) ticked.push(value);
    else if (ticked.includes(value)) ticked.splice(ticked.indexOf(value), 1);
    answers[key] = inOrder(order, ticked);
  };
  const count = (value) => answers[key].filter((v) => v === value).length;
  return h(
    "fieldset",
    {},
    h("legend", {}, legend),
    ranked.map(([value, text, rank]) =>
      h(
        "label",
        { class: "choice-line" },
        h("input", { type: "checkbox", value, checked: count(value) > rank, onchange: (ev) => toggle(value, ev.target.checked) }),
        ` ${text}`,
      ),
    ),
  );
}

// `picked` (values, each as many times as picked) in the order of `offered`, never more of a value
// than it is offered.
export function inOrder(offered, picked) {
  const left = new Map();
  for (const v of picked) left.set(v, (left.get(v) || 0) + 1);
  return offered.filter((v) => {
    const n = left.get(v) || 0;
    if (!n) return false;
    left.set(v, n - 1);
    return true;
  });
}
