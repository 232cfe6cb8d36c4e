// Form helpers shared by the pages: submit handlers that show the server's reason on failure.
import { explain } from "./api.js";
import { h } from "./dom.js";

export function formData(form) {
  return Object.fromEntries(new FormData(form).entries());
}

export function onSubmit(form, handler) {
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (error) error.textContent = "";
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      await handler(formData(form), form);
    } catch (err) {
      if (error) error.textContent = explain(err);
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
// items' order, and keeps them when the form is drawn again.
export function checkboxes(legend, items, answers, key) {
  if (!Array.isArray(answers[key])) answers[key] = [];
  const order = items.map(([value]) => value);
  const toggle = (value, on) => {
    const set = new Set(answers[key]);
    if (on) set.add(value);
    else set.delete(value);
    answers[key] = order.filter((v) => set.has(v));
  };
  return h(
    "fieldset",
    {},
    h("legend", {}, legend),
    items.map(([value, text]) =>
      h(
        "label",
        { class: "choice-line" },
        h("input", { type: "checkbox", value, checked: answers[key].includes(value), onchange: (ev) => toggle(value, ev.target.checked) }),
        ` ${text}`,
      ),
    ),
  );
}
