// Arbiter's service worker, served at /sw.js (scope /): the installable app's fast start and
// offline page, and pushed notices (docs/notifications.md "Web push").
//
// - Pages (navigations): from the network, each kept as the page's last shell; offline, the last
//   shell of that page (or of the home page) with a notice that the site cannot be reached.
// - Scripts, styles and icons under /static/: from the cache at once, refreshed behind (the next
//   load has the new one).
// - Nothing else is touched: /api/ (the data, the live streams) always goes to the server.
// - A push shows its notice; a click on it opens (or focuses) the page it is about.

const SHELLS = "arbiter-shells-v1";
const STATIC = "arbiter-static-v1";
const KEPT = [SHELLS, STATIC];
const OFFLINE_NOTE =
  '<p class="offline-note" role="alert">The site cannot be reached just now: this is the page as you last saw it. It comes back by itself once the connection does.</p>';

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(STATIC)
      .then((cache) => cache.addAll(["/static/css/app.css", "/static/js/api.js", "/static/js/dom.js", "/static/js/session.js"]))
      .catch(() => undefined) // a first visit offline: the worker installs all the same
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => !KEPT.includes(n)).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

async function page(request) {
  const cache = await caches.open(SHELLS);
  try {
    const response = await fetch(request);
    if (response.ok && (response.headers.get("Content-Type") || "").includes("text/html")) {
      await cache.put(request, response.clone());
      await cache.put("/__last__", response.clone());
    }
    return response;
  } catch (err) {
    const kept = (await cache.match(request)) || (await cache.match("/__last__"));
    if (!kept) throw err;
    const html = (await kept.text()).replace(/<main id="main"[^>]*>/, (tag) => tag + OFFLINE_NOTE);
    return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

async function asset(event) {
  const cache = await caches.open(STATIC);
  const kept = await cache.match(event.request);
  const fresh = fetch(event.request)
    .then(async (response) => {
      if (response.ok) await cache.put(event.request, response.clone());
      return response;
    })
    .catch(() => undefined);
  if (kept) {
    event.waitUntil(fresh);
    return kept;
  }
  return (await fresh) || Response.error();
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && !url.pathname.startsWith("/api/")) {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(asset(event));
  }
});

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch (err) {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const title = notice.title || "Arbiter";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: notice.body || "",
      icon: "/static/icons/icon-192.png",
      badge: "/static/icons/icon-192.png",
      data: { url: notice.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const win of windows) {
        const open = new URL(win.url);
        if (open.pathname + open.search === target.pathname + target.search && "focus" in win) return win.focus();
      }
      // the page on this site, whatever host ARBITER_PUBLIC_URL names
      return self.clients.openWindow(target.pathname + target.search + target.hash);
    }),
  );
});
