// The password reset page: without a token, ask for a link by user name or e-mail address
// (POST /api/password-resets: the same answer whether or not the account exists); with the
// link's token (after "#token=", never sent to the server in the address), set a new password
// (POST /api/password-resets/use).
import { api, inWords } from "./api.js";

// The fields' words, never their internal names; a message said by a reason is shown once.
const FIELDS = { token: "The link", new_password: "New password", account: "User name or e-mail address" };
const reasons = (err) => inWords(err, FIELDS);

function askForm() {
  const form = document.getElementById("reset-ask");
  const error = form.querySelector(".error");
  form.hidden = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const answer = await api("/api/password-resets", { method: "POST", body: { account: form.account.value.trim() } });
      form.hidden = true;
      document.getElementById("reset-asked-text").textContent = answer.message;
      document.getElementById("reset-asked").hidden = false;
    } catch (err) {
      error.textContent = reasons(err);
    } finally {
      button.disabled = false;
    }
  });
  form.account.focus();
}

function setForm(token) {
  const form = document.getElementById("reset-set");
  const error = form.querySelector(".error");
  form.hidden = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (form.new_password.value !== form.confirm.value) {
      error.textContent = "The two passwords differ: type the same one twice.";
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await api("/api/password-resets/use", { method: "POST", body: { token, new_password: form.new_password.value } });
      form.hidden = true;
      document.getElementById("reset-done").hidden = false;
    } catch (err) {
      error.textContent = reasons(err);
      document.getElementById("reset-again").hidden = !(err.details && err.details.token);
    } finally {
      button.disabled = false;
    }
  });
  form.new_password.focus();
}

// a link opened over this page changes only the part after "#": read it afresh
window.addEventListener("hashchange", () => location.reload());

const token = new URLSearchParams(location.hash.slice(1)).get("token");
if (token) {
  history.replaceState(null, "", location.pathname); // the token leaves the address bar
  setForm(token);
} else {
  askForm();
}
