// A player's profile (GET /api/users/<name>/profile): record, games, clubs, and per ladder the
// rating, rank and the rating-history chart.
import { api, explain } from "./api.js";
import { resultText } from "./results.js";
import { ratingChart } from "./chart.js";
import { clear, h, humanize, plural, sideName } from "./dom.js";
import { when } from "./forms.js";
import { systemTitles, titled } from "./titles.js";

const root = document.getElementById("profile-page");
const username = root.dataset.username;

const STATUS = { invited: "Waiting for players to accept", active: "In play", ended: "Finished" };

function gameRow(game, titles) {
  const opponents = Object.entries(game.sides).filter(([side]) => !game.played.includes(side));
  return h(
    "li",
    { class: "game" },
    h("a", { href: `/games/${game.id}` }, game.title),
    h("span", { class: "meta" }, `${titled(titles, game.system)} · played ${game.played.map(sideName).join(", ")} against `, opponents.flatMap(([side, name], i) => [i ? ", " : "", h("a", { href: `/users/${encodeURIComponent(name)}` }, name), ` (${sideName(side)})`])),
    h("span", { class: "turn" }, game.status === "ended" ? resultText(game) : STATUS[game.status] || humanize(game.status)),
    h("span", { class: "meta" }, when(game.ended_at || game.created_at)),
  );
}

// Luck across the player's finished games (measured from the dice in each game's own terms,
// docs/review.md): the sums by unit, then each game's figure with a link to its review.
function luckView(luck) {
  if (!luck || !luck.games.length) return h("p", { class: "note" }, "No finished game with measured dice yet.");
  const signed = (v) => `${v > 0 ? "+" : ""}${Number(v).toFixed(1)}`;
  return [
    h("ul", { class: "plain-list", id: "profile-luck-totals" }, luck.totals.map((t) => h("li", {}, `${signed(t.figure)} ${t.unit} against the average over ${t.games} game${t.games === 1 ? "" : "s"}`))),
    h(
      "ul",
      { class: "plain-list", id: "profile-luck-games" },
      luck.games.map((g) => h("li", {}, h("a", { href: `/games/${g.game}/review` }, g.title || "A game"), ` · ${g.side.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}: ${signed(g.figure)} ${g.unit} (${g.rolls} roll${g.rolls === 1 ? "" : "s"})`)),
    ),
  ];
}

async function main() {
  try {
    const [p, titles] = await Promise.all([api(`/api/users/${encodeURIComponent(username)}/profile`), systemTitles()]);
    const r = p.record;
    document.getElementById("profile-record").textContent = `${plural(r.played, "finished game")}: ${r.won} won, ${r.drawn} drawn, ${r.lost} lost`;
    clear(document.getElementById("profile-games"), p.games.length ? p.games.map((g) => gameRow(g, titles)) : h("li", {}, "No game yet."));
    clear(
      document.getElementById("profile-clubs"),
      p.clubs.length ? p.clubs.map((c) => h("li", {}, h("a", { href: `/clubs/${c.id}` }, c.name), ` · ${c.roles.join(", ")}`)) : h("li", {}, "In no club."),
    );
    clear(document.getElementById("profile-luck"), luckView(p.luck));
    clear(
      document.getElementById("profile-ladders"),
      p.ladders.length
        ? p.ladders.map((l) =>
            h(
              "div",
              { class: "profile-ladder" },
              h("h3", {}, h("a", { href: `/ladders/${l.id}` }, l.name)),
              h("p", { class: "meta" }, l.rating === null || l.rating === undefined ? "Not rated yet" : `Rank ${l.rank} · rating ${Math.round(l.rating)} ± ${Math.round(2 * (l.deviation || 0))}`),
              l.history.length ? ratingChart(p.username, l.history) : h("p", { class: "note" }, "No rated result yet."),
            ),
          )
        : h("p", {}, "Plays in no ladder."),
    );
  } catch (err) {
    document.getElementById("profile-status").textContent = explain(err);
  }
  document.body.dataset.ready = "true";
}

main();
