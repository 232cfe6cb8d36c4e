// Every club by name, a page at a time ("More clubs" appends the next), and a form to found one.
import { api, currentUser, explain } from "./api.js";
import { h } from "./dom.js";
import { onSubmit } from "./forms.js";
import { pagedList } from "./paged.js";

async function main() {
  const listed = pagedList({
    path: "/api/clubs",
    list: document.getElementById("clubs"),
    more: document.getElementById("clubs-more"),
    row: (c) => h("li", {}, h("a", { href: `/clubs/${c.id}` }, c.name)),
    empty: () => h("li", {}, "No club yet."),
  }).catch((err) => {
    document.getElementById("clubs-status").textContent = explain(err);
  });
  const [me] = await Promise.all([currentUser(), listed]);
  const form = document.getElementById("club-form");
  form.hidden = !me;
  onSubmit(form, async (data) => {
    const club = await api("/api/clubs", { method: "POST", body: { name: data.name } });
    window.location.assign(`/clubs/${club.id}`);
  });
  document.body.dataset.ready = "true";
}

main();
