// The page an e-mail's unsubscribe link opens: opening it changes nothing (a GET never writes,
// and mail scanners follow links); the button sends the signed link's fields
// (POST /api/unsubscribe?user=&kind=&token=) and shows what stops.
import { api, inWords } from "./api.js";

const FIELDS = { token: "The link", kind: "The link", user: "The link" };
const form = document.getElementById("unsubscribe");
const error = form.querySelector(".error");
const link = new URLSearchParams(location.search);
const query = new URLSearchParams(["user", "kind", "token"].map((k) => [k, link.get(k) || ""]));

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const answer = await api(`/api/unsubscribe?${query}`, { method: "POST" });
    form.hidden = true;
    document.getElementById("unsubscribed-text").textContent = answer.message;
    document.getElementById("unsubscribed").hidden = false;
  } catch (err) {
    error.textContent = inWords(err, FIELDS);
  } finally {
    button.disabled = false;
  }
});
