// Form helpers shared by the pages: submit handlers that show the server's reason on failure.
import { explain } from "./api.js";

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
