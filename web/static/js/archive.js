// The archive: finished games (GET /api/games?status=ended) to replay move by move from version 1
// on the game page (?v=N), and public games in play (…?status=active&public=true) to watch.
import { api, explain } from "./api.js";
import { clear, h } from "./dom.js";
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
  try {
    const [ended, watch, titles] = await Promise.all([api("/api/games?status=ended"), api("/api/games?status=active&public=true"), systemTitles()]);
    clear(document.getElementById("ended"), ended.length ? ended.map((g) => row(g, true, titles)) : h("li", {}, "No finished game yet."));
    clear(document.getElementById("watch"), watch.length ? watch.map((g) => row(g, false, titles)) : h("li", {}, "No public game in play."));
  } catch (err) {
    document.getElementById("archive-status").textContent = explain(err);
  }
  document.body.dataset.ready = "true";
}

main();
