// The archive: finished games (GET /api/games?status=ended) to replay move by move from version 1
// on the game page (?v=N), and public games in play (…?status=active&public=true) to watch; each
// list a page at a time ("More …" appends the next).
import { explain } from "./api.js";
import { h } from "./dom.js";
import { pagedList } from "./paged.js";
import { when } from "./forms.js";
import { systemTitles, titled } from "./titles.js";
import { resultText } from "./results.js";

function players(game) {
  return Object.entries(game.sides).flatMap(([side, name], i) => [i ? ", " : "", `${side}: `, h("a", { href: `/users/${encodeURIComponent(name)}` }, name)]);
}

function row(game, ended, titles) {
  return h(
    "li",
    { class: "game" },
    h("a", { href: `/games/${game.id}` }, game.title || game.scenario),
    h("span", { class: "meta" }, titled(titles, game.system), " · ", players(game)),
    ended ? h("span", { class: "turn" }, resultText(game)) : null,
    ended ? h("span", { class: "meta" }, when(game.ended_at || game.created_at)) : null,
    ended ? h("a", { href: `/games/${game.id}?v=1`, class: "replay" }, "Replay from the start") : h("a", { href: `/games/${game.id}` }, "Watch"),
  );
}

async function main() {
  // each list a page at a time, its own "More" appending the next; the titles asked for once
  const titles = systemTitles();
  const lists = [
    { path: "/api/games?status=ended", id: "ended", ended: true, none: "No finished game yet." },
    { path: "/api/games?status=active&public=true", id: "watch", ended: false, none: "No public game in play." },
  ];
  try {
    await Promise.all(
      lists.map((l) =>
        pagedList({
          path: l.path,
          list: document.getElementById(l.id),
          more: document.getElementById(`${l.id}-more`),
          row: (game, names) => row(game, l.ended, names),
          empty: () => h("li", {}, l.none),
          extra: titles,
        }),
      ),
    );
  } catch (err) {
    document.getElementById("archive-status").textContent = explain(err);
  }
  document.body.dataset.ready = "true";
}

main();
