// A club event (round robin or Swiss): standings with tie-breaks and side counts, each round's
// games with their state and deadline, a join button for the club's members before the start, and
// the admins' controls (add a player, start, release the next Swiss round) and the arbiter's result
// for a game unfinished at its deadline.
import { api, currentUser, explain } from "./api.js";
import { clear, h, sideName, toast } from "./dom.js";
import { onSubmit } from "./forms.js";
import { systemAndScenario, systemList } from "./titles.js";

const root = document.getElementById("event-page");
const id = root.dataset.event;
const $ = (x) => document.getElementById(x);
let me;
let ev;
let systems = [];

const FORMATS = { round_robin: "Round robin", swiss: "Swiss" };
const STATUS = { open: "open for players", started: "being played", finished: "finished" };
const SOURCES = { game: "", forfeit: " (forfeit)", adjudication: " (adjudicated)" };
// an ISO time as the server gives it, in UTC words (no locale guesswork)
const utc = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function scenarioWords(e) {
  const system = systems.find((s) => s.name === e.system);
  const scenario = system?.scenarios.find((x) => x.id === e.scenario);
  return systemAndScenario(system?.title || e.system, scenario?.title || e.scenario);
}

function resultWords(game) {
  const r = game.result;
  if (!r) return "being played";
  if (r.winner === null) return `drawn${SOURCES[r.source] || ""}`;
  return `${game.sides[r.winner]} won with ${sideName(r.winner)}${SOURCES[r.source] || ""}`;
}

async function act(path, body, done) {
  $("event-status").textContent = "";
  try {
    ev = await api(path, { method: "POST", body });
    if (done) toast(done);
    render();
  } catch (err) {
    $("event-status").textContent = explain(err);
  }
}

function joinControls(e) {
  const v = e.viewer;
  if (!me || e.status !== "open") return null;
  if (v.joined) {
    const leave = h("button", { type: "button", class: "secondary", id: "event-leave" }, "Leave the event");
    leave.addEventListener("click", async () => {
      try {
        ev = await api(`/api/events/${id}/players/${encodeURIComponent(me.username)}`, { method: "DELETE" });
        toast("You left the event");
        render();
      } catch (err) {
        $("event-status").textContent = explain(err);
      }
    });
    return h("p", {}, "You are playing in this event. ", leave);
  }
  if (!v.member) return h("p", { class: "note" }, "Members of the club join its events.");
  const join = h("button", { type: "button", id: "event-join-button" }, "Join the event");
  join.addEventListener("click", () => act(`/api/events/${id}/join`, undefined, "You joined the event"));
  return h("p", {}, join);
}

function adminControls(e) {
  if (!e.viewer.admin) return null;
  const parts = [];
  if (e.status === "open") {
    const add = h("form", { class: "inline-form", "aria-label": "Add a player" }, h("label", {}, "Add a member as a player ", h("input", { name: "username", required: true, maxlength: 32 })), h("button", { type: "submit", class: "secondary" }, "Add"), h("p", { class: "error", role: "alert" }));
    onSubmit(add, async (data) => {
      ev = await api(`/api/events/${id}/players`, { method: "POST", body: { username: data.username.trim() } });
      toast(`${data.username.trim()} plays in the event`);
      render();
    });
    const start = h("button", { type: "button", id: "event-start" }, "Start the event");
    start.addEventListener("click", () => act(`/api/events/${id}/start`, undefined, "The event has started: the players accept their games"));
    parts.push(add, h("p", {}, start));
  }
  if (e.status === "started" && e.format === "swiss" && e.rounds.length < e.rounds_total) {
    const next = h("button", { type: "button", id: "event-next-round" }, `Release round ${e.rounds.length + 1}`);
    next.addEventListener("click", () => act(`/api/events/${id}/rounds`, {}, "The next round is paired"));
    parts.push(h("p", {}, next, " ", h("span", { class: "note" }, "once every game of the current round has its result.")));
  }
  return parts.length ? h("div", {}, h("h3", {}, "Club admin"), parts) : null;
}

function arbiterForm(e, game) {
  const form = h(
    "form",
    { class: "inline-form", "aria-label": `Record the result of ${Object.values(game.sides).join(" against ")}` },
    h("label", {}, "Result ", h("select", { name: "winner" }, e.sides.map((s) => h("option", { value: s }, `${game.sides[s]} wins (${sideName(s)})`)), h("option", { value: "" }, "Draw"))),
    h("label", {}, "As ", h("select", { name: "kind" }, h("option", { value: "forfeit" }, "a forfeit"), h("option", { value: "adjudication" }, "an adjudication"))),
    h("button", { type: "submit" }, "Record"),
    h("p", { class: "error", role: "alert" }),
  );
  onSubmit(form, async (data) => {
    ev = await api(`/api/events/${id}/results`, { method: "POST", body: { game: game.game, winner: data.winner || null, kind: data.kind } });
    toast("Result recorded");
    render();
  });
  return form;
}

function roundItem(e, rnd) {
  const mine = (g) => me && Object.values(g.sides).includes(me.username);
  return h(
    "li",
    { class: "event-round", "data-round": rnd.number },
    h("h3", {}, `Round ${rnd.number}`),
    h("p", { class: "meta" }, `Deadline ${utc(rnd.deadline)}`, rnd.overdue ? h("strong", { class: "overdue" }, " · past its deadline: the club's arbiter records what is unfinished") : ""),
    h(
      "ul",
      { class: "plain-list" },
      rnd.games.map((g) =>
        h(
          "li",
          { class: `event-game${mine(g) ? " mine" : ""}`, "data-state": g.state },
          h("a", { href: `/games/${g.game}` }, e.sides.map((s) => `${g.sides[s]} (${sideName(s)})`).join(" vs ")),
          h("span", { class: "meta" }, ` · ${resultWords(g)}`),
          rnd.overdue && !g.result && e.viewer.arbiter ? arbiterForm(e, g) : null,
        ),
      ),
      rnd.bye ? h("li", { class: "meta" }, e.format === "swiss" ? `${rnd.bye} has the bye (${e.scoring.bye} points)` : `${rnd.bye} sits out this round`) : null,
    ),
  );
}

function standingsTable(e) {
  const swiss = e.format === "swiss";
  const abbr = (short, long) => h("abbr", { title: long }, short);
  // what decides the rank first (points, then won-drawn-lost), the tie-breaks and the games played
  // with each side after: on a phone the table scrolls, and what matters most is what shows
  const heads = ["#", "Player", abbr("Pts", "Points"), abbr("W-D-L", "won, drawn, lost"), ...(swiss ? [abbr("BH", "Buchholz")] : []), abbr("SB", "Sonneborn-Berger"), ...e.sides.map((s) => sideName(s))];
  return [
    h("caption", { class: "visually-hidden" }, "Standings in rank order"),
    h("thead", {}, h("tr", {}, heads.map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      e.standings.length
        ? e.standings.map((r) =>
            h(
              "tr",
              { "data-player": r.player, class: me && r.player === me.username ? "me" : "" },
              h("td", {}, r.rank),
              h("th", { scope: "row" }, r.player),
              h("td", {}, r.points),
              h("td", { class: "record" }, `${r.wins}-${r.draws}-${r.losses}`),
              swiss ? h("td", {}, r.buchholz) : null,
              h("td", {}, r.sonneborn_berger),
              e.sides.map((s) => h("td", {}, r.sides[s])),
            ),
          )
        : h("tr", {}, h("td", { colspan: heads.length }, "Nobody has joined yet.")),
    ),
  ];
}

function render() {
  const e = ev;
  $("event-name").textContent = e.name;
  document.title = `${e.name} · Arbiter`;
  const length = e.format === "swiss" ? `${e.rounds_total} round${e.rounds_total === 1 ? "" : "s"}` : e.double ? "double (each pair plays both sides)" : "single";
  const s = e.scoring;
  clear(
    $("event-meta"),
    h("a", { href: `/clubs/${e.club}` }, e.club_name),
    ` · ${FORMATS[e.format]}, ${length} · ${scenarioWords(e)} · ${e.round_days} days a round · win ${s.win}, draw ${s.draw}, loss ${s.loss}${e.format === "swiss" ? `, bye ${s.bye}` : ""} · `,
    h("strong", { id: "event-state" }, STATUS[e.status] || e.status),
    ` · ${e.players.length} players`,
  );
  const join = joinControls(e);
  const admin = adminControls(e);
  clear($("event-join"), join);
  clear($("event-admin"), admin);
  $("event-actions").hidden = !join && !admin;
  clear($("event-standings"), standingsTable(e));
  $("event-tiebreaks").textContent = `Ties are broken by ${e.format === "swiss" ? "Buchholz (BH: the opponents' points), then " : ""}Sonneborn-Berger (SB: the points of the opponents beaten, and a share of those drawn), then the games between the tied players.`;
  clear($("event-rounds"), e.rounds.length ? [...e.rounds].reverse().map((rnd) => roundItem(e, rnd)) : h("li", { class: "note" }, e.status === "open" ? `Not started. Players: ${e.players.join(", ") || "none yet"}.` : "No round yet."));
}

async function main() {
  try {
    [me, ev, systems] = await Promise.all([currentUser(), api(`/api/events/${id}`), systemList().catch(() => [])]);
  } catch (err) {
    $("event-name").textContent = "Event not found";
    $("event-status").textContent = explain(err);
    return;
  }
  render();
  root.dataset.ready = "true";
}

main();
