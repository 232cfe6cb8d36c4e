// Home: sign in / create an account, or my games (whose turn, from GET /api/games?mine=true), the
// open disputes I am involved in or may resolve, my ladders, and a form to start a game (of a
// system's own scenario, or of a published version of a club scenario I may read).
import { api, currentUser, explain } from "./api.js";
import { clear, h, humanize, sideName, toast } from "./dom.js";
import { onSubmit, when } from "./forms.js";
import { chosenOptions, optionsPanel } from "./options.js";
import { invitationsCard, seeksCard } from "./lifecycle_home.js";
import { clockFrom } from "./clocks.js";
import { playableClubScenarios, systemList, systemTitles, titled } from "./titles.js";
import { pagedList } from "./paged.js";

// Where to go after signing in: the `next` parameter only when it is a path on this site ("/games/…"),
// judged as the browser will read it -- dot segments resolved ("/x/..//elsewhere", "/%2e//elsewhere"),
// backslashes as slashes ("/.\\/elsewhere"), percent-escapes decoded ("/%5celsewhere") -- never one
// that then starts "//" or "/\\" (another host). Anything else (javascript:, data:, another site,
// "//elsewhere", a control character) goes home.
const OWN_PATH = /^\/(?![\/\\])/;
export function nextPath(search, origin) {
  const next = new URLSearchParams(search).get("next") || "";
  if (!OWN_PATH.test(next) || /[\u0000-\u001f\u007f]/.test(next)) return "/";
  let url;
  let decoded;
  try {
    url = new URL(next, origin);
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return "/";
  }
  if (url.origin !== origin || !OWN_PATH.test(url.pathname) || !OWN_PATH.test(decoded)) return "/";
  return url.pathname + url.search + url.hash;
}

async function signIn({ username, password }) {
  await api("/api/session", { method: "POST", body: { username, password } });
  window.location.assign(nextPath(location.search, location.origin));
}

function signedOut() {
  document.getElementById("signed-out").hidden = false;
  onSubmit(document.getElementById("signin-form"), signIn);
  onSubmit(document.getElementById("register-form"), async (data) => {
    await api("/api/users", { method: "POST", body: data });
    await signIn(data);
  });
  document.querySelector("#signin-form input").focus();
}

function turnText(game, me) {
  if (game.status === "invited") return "Waiting for the invited players to accept";
  if (game.status === "declined") return "Declined: never started";
  if (game.status === "ended") {
    const winner = game.result && game.result.winner;
    return winner ? `Ended: ${sideName(winner)}${game.sides[winner] ? ` (${game.sides[winner]})` : ""} won` : "Ended";
  }
  const active = game.active_sides || [];
  const mine = active.filter((side) => game.sides[side] === me.username);
  if (mine.length) return `Your turn (${mine.map(humanize).join(", ")})`;
  return active.length ? `Waiting for ${active.map((s) => `${game.sides[s]} (${humanize(s)})`).join(", ")}` : "";
}

function gameRow(game, me, titles) {
  const turn = turnText(game, me);
  const sides = Object.entries(game.sides).map(([side, user]) => `${humanize(side)}: ${user}`).join(", ");
  // the system's title once: Merida's scenario title already begins with it
  const system = titled(titles, game.system);
  const title = game.title || game.scenario;
  const phase = game.phase && game.phase.turn ? `Turn ${game.phase.turn}, ${game.phase.phase || ""}` : "";
  return h(
    "li",
    { class: turn.startsWith("Your turn") ? "game mine" : "game" },
    h("a", { href: `/games/${game.id}` }, title),
    h("span", { class: "meta" }, title.startsWith(system) ? sides : `${system} · ${sides}`),
    phase && h("span", { class: "meta" }, phase),
    h("span", { class: "turn" }, turn),
  );
}

// My games, a page at a time ("More games" appends the next); the first page's games.
async function listGames(me) {
  const rows = await pagedList({
    path: "/api/games?mine=true",
    list: document.getElementById("games"),
    more: document.getElementById("games-more"),
    row: (game, titles) => gameRow(game, me, titles),
    extra: systemTitles(),
  });
  document.getElementById("games-empty").hidden = rows.length > 0;
  return rows;
}

// The open disputes of my games on the first page (an ended game's too: its dispute waits for a
// verdict all the same), then those I may resolve as an arbiter.
async function listDisputes(games) {
  const active = games.filter((g) => g.status === "active" || g.status === "ended");
  const [mine, queue] = await Promise.all([
    Promise.all(active.map((g) => api(`/api/games/${g.id}/disputes`).then((ds) => ds.filter((d) => d.status === "open").map((d) => ({ ...d, game: g })), () => []))),
    api("/api/disputes/queue").catch(() => []),
  ]);
  const items = [
    ...mine.flat().map((d) =>
      h("li", { class: "involved" }, h("a", { href: `/games/${d.game.id}` }, d.game.title), ` · ${d.by} (${humanize(d.side)}) disputes event #${d.seq}: “${d.claim}” · waiting for an arbiter`),
    ),
    ...queue.map((d) =>
      h("li", { class: "to-resolve" }, h("a", { href: "/disputes" }, `Resolve: ${d.title}`), ` · ${d.by} (${humanize(d.side)}) disputes event #${d.seq} · ${when(d.opened_at)}`),
    ),
  ];
  clear(document.getElementById("home-disputes"), items.length ? items : h("li", {}, "None."));
}

// The ladders I play (GET /api/me/ladders: by name, with my rank and rating), a page at a time
// ("More ladders" appends the next); with none, whether I am in a club at all.
async function listLadders() {
  const list = document.getElementById("home-ladders");
  const items = await pagedList({
    path: "/api/me/ladders",
    list,
    more: document.getElementById("home-ladders-more"),
    row: (l) =>
      h(
        "li",
        {},
        h("a", { href: `/ladders/${l.id}` }, l.name),
        l.club_name ? ` (${l.club_name})` : "",
        l.me ? ` · rank ${l.me.rank} of ${l.players} · rating ${Math.round(l.me.rating)}` : " · not ranked yet",
      ),
  });
  if (items.length) return;
  const clubs = await api("/api/clubs?mine=true&limit=1");
  clear(list, h("li", {}, clubs.length ? "You play in no ladder of your clubs yet." : "You are in no club yet: ", clubs.length ? null : h("a", { href: "/clubs" }, "see the clubs")));
}

// The clubs inviting me (GET /api/me/club-invitations), a page at a time, each answered here
async function clubInvitations() {
  const box = document.getElementById("home-club-invitations-box");
  const answer = async (row, inv, accept) => {
    try {
      await api(`/api/clubs/${inv.club}/invitation`, { method: "POST", body: { accept } });
      toast(accept ? `You joined ${inv.club_name}` : "Invitation declined");
      row.remove();
    } catch (err) {
      toast(explain(err));
    }
  };
  const rows = await pagedList({
    path: "/api/me/club-invitations",
    list: document.getElementById("home-club-invitations"),
    more: document.getElementById("home-club-invitations-more"),
    row: (inv) => {
      const row = h("li", { class: "invitation" }, h("a", { href: `/clubs/${inv.club}` }, inv.club_name), ` · ${inv.by} invites you as ${inv.roles.join(", ")} `);
      row.append(
        h("button", { type: "button", "aria-label": `Join ${inv.club_name}`, onclick: () => answer(row, inv, true) }, "Join"),
        " ",
        h("button", { type: "button", class: "secondary", "aria-label": `Decline ${inv.club_name}`, onclick: () => answer(row, inv, false) }, "Decline"),
      );
      return row;
    },
  }).catch(() => []);
  box.hidden = !rows.length;
}

async function createForm(me) {
  const form = document.getElementById("create-form");
  const [systems, clubScenarios] = await Promise.all([systemList(), playableClubScenarios()]);
  const systemSelect = form.elements.system;
  const scenarioSelect = form.elements.scenario;
  const sides = document.getElementById("sides");
  clear(systemSelect, systems.map((sys) => h("option", { value: sys.name }, sys.title || sys.name)));

  // a club scenario's version is offered as "<id>@<version>"; its sides are the latest's
  const clubVersion = (value) => {
    const [id, version] = value.split("@");
    const found = version && clubScenarios.find((x) => x.id === id);
    return found ? { scenario: found, version: Number(version) } : null;
  };
  let specs = []; // the chosen scenario's options
  function scenarioChanged() {
    const system = systems.find((x) => x.name === systemSelect.value);
    const club = clubVersion(scenarioSelect.value);
    const scenario = club ? { sides: club.scenario.sides } : system && system.scenarios.find((x) => x.id === scenarioSelect.value);
    const legend = sides.querySelector("legend");
    clear(sides, legend);
    (scenario ? scenario.sides : []).forEach((side, i) =>
      sides.append(h("label", {}, `${humanize(side)} `, h("input", { name: `side:${side}`, required: true, value: i === 0 ? me.username : "" }))),
    );
    // the scenario's options as controls: a built-in one's, or the chosen version of a club's
    const version = club && club.scenario.versions.find((v) => v.version === club.version);
    specs = (club ? version && version.options : scenario && scenario.options) || [];
    optionsPanel(specs, document.getElementById("create-options"));
    // what of it is a stand-in, said before the game is created (issue 32)
    const topics = (!club && scenario && scenario.placeholder_topics) || [];
    const note = document.getElementById("create-placeholders");
    note.hidden = !topics.length;
    note.textContent = topics.length
      ? `Placeholder data in this scenario, stand-ins until a club enters the printed values: ${topics.map((t) => t.topic.toLowerCase() + (t.count > 1 ? ` (${t.count})` : "")).join(", ")}. The game page lists them.`
      : "";
  }
  function systemChanged() {
    const system = systems.find((x) => x.name === systemSelect.value);
    const own = (system ? system.scenarios : []).map((sc) => h("option", { value: sc.id }, sc.title + (sc.placeholder ? " (has placeholder values)" : "")));
    const clubs = clubScenarios.filter((sc) => system && sc.system === system.name);
    clear(
      scenarioSelect,
      clubs.length ? h("optgroup", { label: "Built-in scenarios" }, own) : own,
      clubs.length &&
        h(
          "optgroup",
          { label: "Club scenarios" },
          clubs.flatMap((sc) =>
            [...sc.versions].reverse().map((v) => h("option", { value: `${sc.id}@${v.version}` }, `${sc.title} · ${sc.club_name}, version ${v.version}${v.version === sc.latest ? " (latest)" : ""}`)),
          ),
        ),
    );
    scenarioChanged();
  }
  // the clubs I am in (the first 100, by name): a game of one is a club game (its arbiters rule);
  // when I am in just one, it is chosen already
  const clubSelect = form.elements.club;
  const myClubs = await api("/api/clubs?mine=true&limit=100").catch(() => []);
  clubSelect.append(...myClubs.map((c) => h("option", { value: c.id }, c.name)));
  if (myClubs.length === 1) clubSelect.value = myClubs[0].id;
  systemSelect.addEventListener("change", systemChanged);
  scenarioSelect.addEventListener("change", scenarioChanged);
  systemChanged();

  onSubmit(form, async (data) => {
    const sidesMap = {};
    for (const [key, value] of Object.entries(data)) if (key.startsWith("side:")) sidesMap[key.slice(5)] = value.trim();
    const options = chosenOptions(form, specs);
    const clock = clockFrom(data);
    const club = clubVersion(data.scenario);
    const scenario = club ? { scenario: club.scenario.id, scenario_version: club.version } : { scenario: data.scenario };
    const game = await api("/api/games", { method: "POST", body: { system: data.system, ...scenario, sides: sidesMap, options, ...(clock ? { clock } : {}), ...(data.club ? { club: data.club } : {}) } });
    window.location.assign(`/games/${game.id}`);
  });
}

async function main() {
  const me = await currentUser();
  if (!me) return signedOut();
  document.getElementById("signed-in").hidden = false;
  const games = listGames(me);
  await Promise.all([games.then(listDisputes), listLadders(), createForm(me), invitationsCard(me), seeksCard(me), clubInvitations()]);
  document.body.dataset.ready = "true";
}

main();
