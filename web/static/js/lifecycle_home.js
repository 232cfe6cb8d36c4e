// The home page's invitations (GET /api/games?invited=true, answered with POST …/accept or
// …/decline) and the newest open games (GET /api/seeks, joined with POST /api/seeks/<id>/join).
import { api, explain } from "./api.js";
import { clear, h, sideName, toast } from "./dom.js";
import { clockText } from "./clocks.js";
import { systemTitles, titled } from "./titles.js";

export async function invitationsCard(me) {
  const list = document.getElementById("home-invitations");
  if (!list) return;
  const rows = await api("/api/games?invited=true").catch(() => []);
  const answer = async (game, verb) => {
    try {
      await api(`/api/games/${game.id}/${verb}`, { method: "POST" });
      if (verb === "accept") return window.location.assign(`/games/${game.id}`);
      toast("Invitation declined");
      await invitationsCard(me);
    } catch (err) {
      toast(explain(err));
    }
  };
  clear(
    list,
    rows.length
      ? rows.map((game) => {
          const mine = Object.entries(game.sides).filter(([, name]) => name === me.username).map(([side]) => sideName(side));
          const others = Object.entries(game.sides).filter(([, name]) => name !== me.username).map(([side, name]) => `${name} (${sideName(side)})`);
          return h(
            "li",
            { class: "invitation" },
            h("a", { href: `/games/${game.id}` }, game.title || game.scenario),
            ` · you play ${mine.join(", ")} against ${others.join(", ")} `,
            h("button", { type: "button", onclick: () => answer(game, "accept") }, "Accept"),
            " ",
            h("button", { type: "button", class: "secondary", onclick: () => answer(game, "decline") }, "Decline"),
          );
        })
      : h("li", {}, "No invitation waits for you."),
  );
}

export async function seeksCard(me) {
  const list = document.getElementById("home-seeks");
  if (!list) return;
  const [all, titles] = await Promise.all([api("/api/seeks").catch(() => []), systemTitles()]);
  const seeks = all.filter((s) => s.by !== me.username).slice(0, 5);
  const join = async (seek) => {
    try {
      const game = await api(`/api/seeks/${seek.id}/join`, { method: "POST" });
      window.location.assign(`/games/${game.id}`);
    } catch (err) {
      toast(explain(err));
    }
  };
  clear(
    list,
    seeks.length
      ? seeks.map((s) => h("li", {}, `${s.title || s.scenario} (${titled(titles, s.system)}) · ${s.by} plays ${sideName(s.side)} · ${clockText(s.clock)} `, h("button", { type: "button", onclick: () => join(s) }, "Join")))
      : h("li", {}, "No open game right now."),
  );
}
