// A ladder: settings, standings that update live (GET /api/ladders/<id>/stream), challenges,
// face-to-face results, latest results and a rating-history chart per player.
import { follow } from "./live.js";
import { api, currentUser, explain } from "./api.js";
import { challengeItem, reportItem, setUpForms } from "./challenges.js";
import { ratingChart } from "./chart.js";
import { clear, h, humanize, toast } from "./dom.js";
import { onSubmit, when } from "./forms.js";
import { pagedList } from "./paged.js";
import { systemAndScenario, systemList, systemTitles, titled } from "./titles.js";

const root = document.getElementById("ladder-page");
const id = root.dataset.ladder;
const $ = (x) => document.getElementById(x);
const st = { me: null, ladder: null, club: null, standings: [], changed: new Set(), chartPlayer: null };

const SETTINGS = {
  rating_system: { label: "Rating system", options: ["glicko2"] },
  tau: { label: "Glicko-2 τ (0.2 to 1.2)", type: "number", step: "0.05", min: 0.2, max: 1.2 },
  rating_period_days: { label: "Rating period (days)", type: "number", min: 1, max: 365 },
  takeback: { label: "Take backs", options: ["never", "casual", "always"] },
  challenge_range: { label: "May challenge up to N places above", type: "number", min: 1, max: 100 },
  challenge_deadline_hours: { label: "Hours to answer a challenge", type: "number", min: 1, max: 1440 },
  disputes_pause: { label: "A dispute pauses the game", bool: true },
  side_adjustment: { label: "Side adjustment applies to ratings", bool: true },
};

// the games' correspondence clock (set through PATCH /api/ladders/<id>/settings {"clock": ...})
const clockWords = (c) => (!c ? "no clock" : `${c.days} days ${c.kind === "per-turn" ? "per side per game turn" : "per move"}, ${c.vacation_days} vacation days, on time-out: ${c.on_timeout === "forfeit" ? "forfeit" : "the opponent claims"}${c.low_hours ? `, low below ${c.low_hours} hours` : ""}`);

// the game options every game of the ladder is created with (PATCH .../settings {"options": ...})
const optionWord = (v) => (typeof v === "boolean" ? (v ? "yes" : "no") : Array.isArray(v) ? v.map(optionWord).join(", ") : humanize(String(v)).toLowerCase());
const optionsWords = (o) => (!o || !Object.keys(o).length ? "the scenario's own" : Object.entries(o).map(([k, v]) => `${humanize(k).toLowerCase()}: ${optionWord(v)}`).join("; "));
const settingWords = (k, v) => (k === "clock" ? clockWords(v) : k === "options" ? optionsWords(v) : typeof v === "boolean" ? (v ? "yes" : "no") : String(v));

// the caller's own roles in the ladder's club, as the club's resource says them
const isAdmin = () => !!st.me && !!st.club && (st.club.viewer_roles || []).includes("admin");
const isPlayer = () => !!st.me && st.standings.some((r) => r.username === st.me.username);

function renderStandings() {
  const rows = st.standings;
  clear(
    $("standings"),
    h("caption", { class: "visually-hidden" }, "Standings, best first"),
    h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "RD", "Games"].map((t) => h("th", { scope: "col" }, t)), h("th", { scope: "col" }, h("abbr", { title: "won, drawn, lost" }, "W–D–L")))),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          { "data-player": r.username, class: [st.changed.has(r.username) ? "changed" : "", st.me && r.username === st.me.username ? "me" : ""].join(" ").trim() || undefined },
          h("td", {}, r.rank),
          h("th", { scope: "row" }, h("button", { type: "button", class: "link", "aria-label": `Rating history of ${r.username}`, onclick: () => chart(r.username) }, r.username)),
          h("td", { class: "rating" }, Math.round(r.rating)),
          h("td", {}, Math.round(r.rd)),
          h("td", { class: "games" }, r.games),
          h("td", { class: "record", "aria-label": `${r.wins} won, ${r.draws} drawn, ${r.losses} lost` }, `${r.wins}–${r.draws}–${r.losses}`),
        ),
      ),
    ),
  );
  if (!rows.length) $("standings-note").textContent = "No player yet.";
  const select = $("history-player");
  const current = st.chartPlayer || (st.me && rows.some((r) => r.username === st.me.username) ? st.me.username : rows[0] && rows[0].username);
  clear(select, rows.map((r) => h("option", { value: r.username, selected: r.username === current }, r.username)));
  if (current) chart(current);
}

async function chart(username) {
  st.chartPlayer = username;
  $("history-player").value = username;
  try {
    const found = await api(`/api/ladders/${id}/history/${encodeURIComponent(username)}`);
    clear($("chart"), ratingChart(username, found.history));
  } catch (err) {
    clear($("chart"), h("p", {}, explain(err)));
  }
}

function renderLadder() {
  const l = st.ladder;
  $("ladder-name").textContent = l.name;
  document.title = `${l.name} · Arbiter`;
  clear(
    $("ladder-meta"),
    st.club ? [h("a", { href: `/clubs/${l.club}` }, st.club.name), " · "] : null,
    `${l.scenario ? systemAndScenario(titled(st.titles || new Map(), l.system), l.scenario_title || l.scenario, ", scenario ") : `${titled(st.titles || new Map(), l.system)}, any two-sided scenario`} · ${l.players} players · ${l.results} results · rating period ${l.period}`,
  );
  clear(
    $("settings"),
    Object.entries(l.settings).flatMap(([k, v]) => [h("dt", {}, SETTINGS[k] ? SETTINGS[k].label : k === "options" ? "Game options" : humanize(k)), h("dd", { "data-setting": k }, settingWords(k, v))]),
  );
  clear(
    $("recent"),
    (l.recent_results || []).length
      ? l.recent_results.map((r) => {
          const sides = Object.entries(r.sides).map(([side, user]) => `${user} (${side})`).join(" vs ");
          const result = r.winner ? `${r.sides[r.winner]} won` : "draw";
          return h("li", {}, `${sides}: ${result}${r.level ? ` (${r.level})` : ""} · ${r.source}`, r.source === "game" ? [" · ", h("a", { href: `/games/${r.source_id}` }, "the game")] : null, h("span", { class: "meta" }, ` ${when(r.at)}`));
        })
      : h("li", {}, "No result yet."),
  );
  const m = $("membership");
  if (!st.me) clear(m, h("p", {}, h("a", { href: `/?next=/ladders/${id}` }, "Sign in"), " to join or challenge."));
  else if (isPlayer()) clear(m, h("button", { type: "button", class: "secondary", onclick: () => membership("DELETE", "You left the ladder") }, "Leave the ladder"));
  else clear(m, h("button", { type: "button", onclick: () => membership("POST", "You joined the ladder") }, "Join the ladder"));
}

async function membership(method, text) {
  try {
    await api(`/api/ladders/${id}/players`, { method });
    toast(text);
    window.location.reload(); // the forms depend on being a player
  } catch (err) {
    $("ladder-status").textContent = explain(err);
  }
}

function settingsForm() {
  const form = $("settings-form");
  form.hidden = !isAdmin();
  if (form.hidden) return;
  clear(
    $("settings-fields"),
    Object.entries(SETTINGS).map(([k, spec]) => {
      const v = st.ladder.settings[k];
      if (spec.bool) return h("label", { class: "choice" }, h("input", { type: "checkbox", name: k, checked: !!v }), ` ${spec.label}`);
      if (spec.options) return h("label", {}, spec.label, h("select", { name: k }, spec.options.map((o) => h("option", { value: o, selected: o === v }, o))));
      return h("label", {}, spec.label, h("input", { name: k, type: "number", value: v, step: spec.step || "1", min: spec.min, max: spec.max }));
    }),
  );
}

async function loadStandings() {
  st.standings = (await api(`/api/ladders/${id}/standings`)).standings;
  renderStandings();
}

// newest first, a page at a time ("More …" appends the next); a refresh starts again at the first
async function loadLists() {
  await Promise.all([
    pagedList({ path: `/api/ladders/${id}/challenges`, list: $("challenges"), more: $("challenges-more"), row: (c) => challengeItem(c, st.me, loadAll), empty: () => h("li", {}, "No challenge yet.") }),
    pagedList({ path: `/api/ladders/${id}/reports`, list: $("reports"), more: $("reports-more"), row: (r) => reportItem(r, st.me, loadAll), empty: () => h("li", {}, "No face-to-face result reported.") }),
  ]);
}

async function loadAll() {
  st.ladder = await api(`/api/ladders/${id}`);
  await Promise.all([loadStandings(), loadLists()]);
  renderLadder();
}

async function sidesAdjustment() {
  try {
    const found = await api(`/api/ladders/${id}/sides`);
    const rows = Object.entries(found.scenarios);
    if (!rows.length) return;
    clear(
      $("sides-adjustment"),
      h("h3", {}, `Side adjustment${found.applied ? "" : " (learned, not applied)"}`),
      h("ul", {}, rows.map(([sc, a]) => h("li", {}, `${a.title || sc}: ${a.favoured ? `${a.favoured} favoured by ${Math.abs(Math.round(a.delta))} points` : "balanced"} after ${a.results} results`))),
    );
  } catch {
    /* optional */
  }
}

function live() {
  const words = { open: "· live", reconnecting: "· reconnecting", waiting: "· reconnecting shortly" };
  follow(
    () => `/api/ladders/${id}/stream`,
    {
      standings: async (ev) => {
        const note = JSON.parse(ev.data);
        st.changed = new Set(note.changed || []);
        await loadAll();
        $("standings-note").textContent = `Updated just now: ${note.results} result${note.results === 1 ? "" : "s"}${st.changed.size ? `; ${[...st.changed].join(", ")} moved` : ""}.`;
      },
    },
    (state) => {
      if (state === "open") root.dataset.live = "open";
      if (words[state]) $("live").textContent = words[state];
    },
  );
}

async function main() {
  try {
    [st.me, st.ladder] = await Promise.all([currentUser(), api(`/api/ladders/${id}`)]);
  } catch (err) {
    $("ladder-name").textContent = "Ladder not found";
    $("ladder-status").textContent = explain(err);
    return;
  }
  const [club, systems, titles] = await Promise.all([api(`/api/clubs/${st.ladder.club}`).catch(() => null), systemList(), systemTitles()]);
  const system = systems.find((s) => s.name === st.ladder.system) || { scenarios: [] };
  st.titles = titles;
  st.club = club;
  await loadAll();
  // a ladder on a club scenario plays the version it pinned (not one of the system's own)
  const pinned = st.ladder.scenario && st.ladder.scenario_sides && { id: st.ladder.scenario, title: st.ladder.scenario_title, sides: st.ladder.scenario_sides, options: st.ladder.scenario_options || [] };
  const own = (system.scenarios || []).filter((x) => (st.ladder.scenario ? x.id === st.ladder.scenario : x.sides.length === 2));
  const scenarios = own.length || !pinned ? own : [pinned];
  setUpForms({ ladder: st.ladder, scenarios, me: st.me, players: st.standings, refresh: loadAll });
  settingsForm();
  onSubmit($("settings-form"), async (_data, form) => {
    const body = {};
    for (const [k, spec] of Object.entries(SETTINGS)) {
      const el = form.elements[k];
      body[k] = spec.bool ? el.checked : spec.type === "number" ? Number(el.value) : el.value;
    }
    st.ladder = await api(`/api/ladders/${id}/settings`, { method: "PATCH", body });
    toast("Settings saved");
    renderLadder();
  });
  $("history-player").addEventListener("change", (ev) => chart(ev.target.value));
  sidesAdjustment();
  live();
  root.dataset.ready = "true";
}

main();
