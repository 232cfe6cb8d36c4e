// Every club, and a form to found one.
import { api, currentUser } from "./api.js";
import { clear, h } from "./dom.js";
import { onSubmit } from "./forms.js";

async function main() {
  const [me, clubs] = await Promise.all([currentUser(), api("/api/clubs")]);
  clear(
    document.getElementById("clubs"),
    clubs.length ? clubs.map((c) => h("li", {}, h("a", { href: `/clubs/${c.id}` }, c.name))) : h("li", {}, "No club yet."),
  );
  const form = document.getElementById("club-form");
  form.hidden = !me;
  onSubmit(form, async (data) => {
    const club = await api("/api/clubs", { method: "POST", body: { name: data.name } });
    window.location.assign(`/clubs/${club.id}`);
  });
  document.body.dataset.ready = "true";
}

main();
