// The header's notification count and panel: the newest notifications, marked read on a click or
// all at once, refreshed live when the user's stream says a new one was recorded.
import { api, currentUser, explain } from "./api.js";
import { clear, h, toast } from "./dom.js";

const root = document.getElementById("notif");
const bell = document.getElementById("notif-bell");
const panel = document.getElementById("notif-panel");
const list = document.getElementById("notif-list");
const count = document.getElementById("notif-count");

function when(iso) {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function row(item) {
  const text = item.url ? h("a", { href: item.url }, item.text) : h("span", {}, item.text);
  const li = h(
    "li",
    { class: item.read ? "read" : "unread", dataset: { id: item.id } },
    text,
    h("time", { datetime: item.created }, when(item.created)),
  );
  li.addEventListener("click", () => markRead([item.id]));
  return li;
}

async function refresh() {
  const data = await api("/api/me/notifications?limit=20");
  // the server counts unread notices after a "mark all read" up to 1,000 (README)
  count.textContent = !data.unread ? "" : data.unread > 999 ? "999+" : String(data.unread);
  bell.setAttribute("aria-label", `Notifications: ${data.unread} unread`);
  clear(list, data.notifications.length ? data.notifications.map(row) : h("li", { class: "empty" }, "Nothing yet."));
}

async function markRead(ids) {
  try {
    await api("/api/me/notifications/read", { method: "POST", body: ids ? { ids } : { all: true } });
    await refresh();
  } catch (err) {
    toast(explain(err));
  }
}

function listen() {
  if (!window.EventSource) return;
  const stream = new EventSource("/api/me/notifications/stream");
  // the server subscribes before it answers: a notice recorded between the page's first read
  // and this moment is read now, and every later one comes as a "notification"
  stream.addEventListener("open", () => refresh().catch(() => {}));
  stream.addEventListener("notification", () => refresh().catch(() => {}));
}

async function start() {
  if (!root || !(await currentUser())) return;
  root.hidden = false;
  bell.addEventListener("click", () => {
    const open = panel.hidden;
    panel.hidden = !open;
    bell.setAttribute("aria-expanded", String(open));
  });
  document.getElementById("notif-all-read").addEventListener("click", () => markRead(null));
  await refresh();
  listen();
}

start().catch(() => {});
