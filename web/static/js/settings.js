// The settings page: e-mail address, password, notifications on this device (web push),
// notification preferences per kind and channel, webhooks and their delivery logs.
import { api, currentUser, explain, inWords } from "./api.js";
import { clear, h, toast } from "./dom.js";
import { onSubmit } from "./forms.js";

const WORDS = {
  turn: "Your turn",
  invitation: "Invitations",
  challenge: "Ladder challenges",
  takeback: "Takebacks to answer",
  draw: "Draw offers",
  dispute: "Disputes opened or decided",
  clock: "Clocks running low or expired",
  ended: "Games ended",
  club: "Club invitations and requests to join",
  chat: "Chat messages in your games",
  event: "Club events: new rounds, deadlines, results",
};

const CHANNEL_WORDS = { web: "in the app", email: "by e-mail", push: "pushed to devices" };

// The account forms' errors in words: their fields' names, never the internal ones.
const ACCOUNT_FIELDS = {
  email: "Address",
  current_password: "Current password",
  new_password: "New password",
};
const accountWords = (err) => inWords(err, ACCOUNT_FIELDS);

async function loadPrefs() {
  const data = await api("/api/me/notification-preferences");
  document.querySelector('#email-form [name="email"]').value = data.email || ""; // the page shows after this
  const rows = data.kinds.map((kind) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, WORDS[kind] || kind),
      ...["web", "email", "push"].map((channel) =>
        h(
          "td",
          {},
          h("input", {
            type: "checkbox",
            name: `${kind}.${channel}`,
            "aria-label": `${WORDS[kind] || kind}: ${CHANNEL_WORDS[channel]}`,
            checked: data.preferences[kind]?.[channel] !== false,
          }),
        ),
      ),
    ),
  );
  clear(document.getElementById("prefs-rows"), rows);
  clear(
    document.getElementById("hook-kinds"),
    data.kinds.map((kind) => h("label", { class: "inline" }, h("input", { type: "checkbox", name: "kind", value: kind }), " ", WORDS[kind] || kind)),
  );
}

function status(delivery) {
  const last = delivery.attempts[delivery.attempts.length - 1];
  const words = { sent: "sent", pending: "waiting", retrying: "will retry", failed: "gave up" }[delivery.status] || delivery.status;
  return last && last.error ? `${words} (${last.error})` : words;
}

async function showLog(hook) {
  const data = await api(`/api/me/webhooks/${hook.id}/deliveries`);
  document.getElementById("hook-log").hidden = false;
  document.getElementById("hook-log-title").textContent = `Deliveries to ${hook.url}`;
  clear(
    document.getElementById("hook-log-rows"),
    data.deliveries.length
      ? data.deliveries.map((d) => h("li", {}, h("span", {}, d.text), " — ", h("em", {}, status(d)), ` · ${d.attempts.length} attempt(s)`))
      : h("li", {}, "Nothing sent yet."),
  );
}

async function loadHooks() {
  const data = await api("/api/me/webhooks");
  const items = data.webhooks.map((hook) => {
    const kinds = hook.kinds.length ? hook.kinds.map((k) => WORDS[k] || k).join(", ") : "every kind";
    const log = h("button", { type: "button", class: "link" }, "Deliveries");
    log.addEventListener("click", () => showLog(hook).catch((err) => toast(explain(err))));
    const remove = h("button", { type: "button", class: "link" }, "Remove");
    remove.addEventListener("click", async () => {
      try {
        await api(`/api/me/webhooks/${hook.id}`, { method: "DELETE" });
        await loadHooks();
      } catch (err) {
        toast(explain(err));
      }
    });
    return h("li", {}, h("code", {}, hook.url), ` — ${kinds} `, log, " ", remove);
  });
  clear(document.getElementById("hooks"), items.length ? items : h("li", {}, "No webhooks yet."));
}

// Change the password (POST /api/me/password): this browser stays signed in (its cookie gets the
// new token), every other session and token is signed out.
function passwordForm(me) {
  const form = document.getElementById("password-form");
  form.username.value = me.username; // for password managers
  onSubmit(
    form,
    async (data) => {
      if (data.new_password !== data.confirm) throw new Error("The two new passwords differ: type the same one twice.");
      const done = await api("/api/me/password", {
        method: "POST",
        body: { current_password: data.current_password, new_password: data.new_password },
      });
      form.reset();
      form.username.value = me.username;
      const others = done.signed_out === 1 ? "1 other session or token" : `${done.signed_out} other sessions or tokens`;
      toast(`Password changed. ${others} signed out.`);
    },
    accountWords,
  );
}

// Every form is wired before the page shows (a form shown unwired would submit itself as a
// GET, the typed password in its address), and the page shows once its data is in.
async function start() {
  const me = await currentUser();
  if (!me) {
    document.getElementById("settings-signin").hidden = false;
    return;
  }
  passwordForm(me);
  emailForm(me);
  prefsForm();
  hookForm();
  // the device switch stays disabled until it is wired (its service worker may take a while)
  deviceSwitch().catch((err) => toast(explain(err)));
  try {
    await Promise.all([loadPrefs(), loadHooks()]);
  } finally {
    document.getElementById("settings").hidden = false;
  }
}

// Change or remove the address (PUT /api/me/email) with the current password: it is where
// reset links go. The old address is told; links sent to it stop working.
function emailForm(me) {
  const form = document.getElementById("email-form");
  form.username.value = me.username; // for password managers
  onSubmit(
    form,
    async (data) => {
      const email = data.email.trim();
      const saved = await api("/api/me/email", { method: "PUT", body: { email: email || null, current_password: data.current_password } });
      form.current_password.value = "";
      toast(saved.email ? "Address saved" : "Address removed");
    },
    accountWords,
  );
}

function prefsForm() {
  const form = document.getElementById("prefs-form");
  onSubmit(form, async () => {
    const preferences = {};
    for (const box of form.querySelectorAll('input[type="checkbox"]')) {
      const [kind, channel] = box.name.split(".");
      (preferences[kind] ||= {})[channel] = box.checked;
    }
    await api("/api/me/notification-preferences", { method: "PUT", body: { preferences } });
    toast("Preferences saved");
  });
}

function hookForm() {
  const form = document.getElementById("hook-form");
  onSubmit(form, async () => {
    const kinds = [...form.querySelectorAll('input[name="kind"]:checked')].map((b) => b.value);
    const made = await api("/api/me/webhooks", { method: "POST", body: { url: form.url.value.trim(), kinds } });
    form.reset();
    toast(`Webhook added. Its secret (shown once): ${made.secret}`);
    const secret = h("p", { class: "note", role: "status" }, "Secret for checking signatures (shown once): ", h("code", {}, made.secret));
    form.after(secret);
    await loadHooks();
  });
}

// "Notifications on this device": on, the browser asks permission, subscribes with the server's
// key (GET /api/push/key) and the subscription is given to the server (POST
// /api/me/push-subscriptions); off, it is withdrawn here and there. The switch shows whether this
// browser holds a subscription.
function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function pushRegistration() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return null;
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

async function deviceSwitch() {
  const box = document.getElementById("device-push");
  const state = document.getElementById("device-push-state");
  const say = (text) => {
    state.textContent = text;
  };
  let registration;
  try {
    registration = await pushRegistration();
  } catch (err) {
    registration = null;
  }
  if (!registration) {
    say("This browser cannot show pushed notifications (or the site is not on HTTPS).");
    return;
  }
  const current = await registration.pushManager.getSubscription();
  box.checked = Boolean(current);
  box.disabled = false;
  say(current ? "On: your notices are pushed to this device." : "Off.");
  box.addEventListener("change", async () => {
    box.disabled = true;
    try {
      if (box.checked) {
        const permission = await Notification.requestPermission();
        if (permission !== "granted") {
          box.checked = false;
          say("The browser's permission to show notifications was not given: allow it in the site's settings, then try again.");
          return;
        }
        const { public_key: key } = await api("/api/push/key");
        const made = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
        try {
          await api("/api/me/push-subscriptions", { method: "POST", body: made.toJSON() });
        } catch (err) {
          await made.unsubscribe(); // the server refused it (too many devices?): none kept here either
          throw err;
        }
        say("On: your notices are pushed to this device.");
        toast("Notifications on this device are on");
      } else {
        const held = await registration.pushManager.getSubscription();
        if (held) {
          const { subscriptions } = await api("/api/me/push-subscriptions?limit=100");
          const mine = subscriptions.find((s) => s.endpoint === held.endpoint);
          if (mine) await api(`/api/me/push-subscriptions/${mine.id}`, { method: "DELETE" });
          await held.unsubscribe();
        }
        say("Off.");
        toast("Notifications on this device are off");
      }
    } catch (err) {
      box.checked = !box.checked;
      say(`Not changed: ${explain(err)}`);
    } finally {
      box.disabled = false;
    }
  });
}

start().catch((err) => toast(explain(err)));
