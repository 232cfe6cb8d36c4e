// The header's "signed in as ... / Sign out" on every page.
import { api, currentUser } from "./api.js";
import { clear, h } from "./dom.js";

async function showWho() {
  const who = document.getElementById("who");
  const user = await currentUser();
  if (!user) {
    clear(who, h("a", { href: "/" }, "Sign in"));
    return;
  }
  const out = h("button", { type: "button", class: "link", id: "signout" }, "Sign out");
  out.addEventListener("click", async () => {
    await api("/api/session", { method: "DELETE" });
    window.location.assign("/");
  });
  clear(who, h("span", {}, "Signed in as ", h("strong", { id: "username" }, user.username)), " ", out);
}

showWho();

// On a phone the header folds its links and the signed-in line behind one button (the CSS hides
// them below 600 px unless the header is open), so a page's own content starts near the top.
const menu = document.getElementById("menu-toggle");
if (menu) {
  menu.addEventListener("click", () => {
    const open = menu.closest(".top").classList.toggle("open");
    menu.setAttribute("aria-expanded", String(open));
  });
}

// The service worker (/sw.js, the whole site its scope): the installable app's fast start and
// offline page, and pushed notices. A browser without one, or a refusal, changes nothing here.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
}
