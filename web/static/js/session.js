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
