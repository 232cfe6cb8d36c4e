// Open games (seeks): GET /api/seeks to list, a page at a time ("More" asks for the next), POST /api/seeks/<id>/join to join (the game starts at
// once and the page opens it), POST /api/seeks to open one, DELETE /api/seeks/<id> to cancel yours.
import { api, currentUser, explain } from "./api.js";
import { pagedList } from "./paged.js";
import { clear, h, sideName, toast } from "./dom.js";
import { onSubmit, when } from "./forms.js";
import { chosenOptions, optionsPanel, optionWords } from "./options.js";
import { playableClubScenarios, systemList, systemTitles, titled } from "./titles.js";
import { clockFrom, clockText } from "./clocks.js";

function seekRow(seek, me, reload, titles) {
  const mine = me && seek.by === me.username;
  const join = async () => {
    try {
      const game = await api(`/api/seeks/${seek.id}/join`, { method: "POST" });
      window.location.assign(`/games/${game.id}`);
    } catch (err) {
      toast(explain(err));
      reload();
    }
  };
  const cancel = async () => {
    try {
      await api(`/api/seeks/${seek.id}`, { method: "DELETE" });
      reload();
    } catch (err) {
      toast(explain(err));
    }
  };
  return h(
    "li",
    { class: "game seek" },
    h("strong", {}, seek.title || seek.scenario),
    h("span", { class: "meta" }, `${titled(titles, seek.system)} · `, h("a", { href: `/users/${encodeURIComponent(seek.by)}` }, seek.by), ` plays ${sideName(seek.side)} · ${clockText(seek.clock)}`),
    seek.club_name ? h("span", { class: "meta" }, `members of ${seek.club_name} only`) : null,
    Object.keys(seek.options || {}).length ? h("span", { class: "meta seek-options" }, `options: ${optionWords(seek.options)}`) : null,
    h("span", { class: "meta" }, when(seek.opened_at)),
    me && !mine ? h("button", { type: "button", onclick: join }, "Join") : null,
    mine ? h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel") : null,
  );
}

async function list(me) {
  const reload = () => list(me);
  try {
    await pagedList({
      path: "/api/seeks",
      list: document.getElementById("seeks"),
      more: document.getElementById("seeks-more"),
      row: (seek, titles) => seekRow(seek, me, reload, titles),
      empty: () => h("li", {}, "No open game right now."),
      extra: systemTitles(),
    });
  } catch (err) {
    document.getElementById("seeks-status").textContent = explain(err);
  }
}

async function form(me) {
  const el = document.getElementById("seek-form");
  el.hidden = false;
  // my clubs (by name, the first 100: a choice, not a list to page through)
  const [systems, clubs, clubScenarios] = await Promise.all([systemList(), api("/api/clubs?mine=true&limit=100"), playableClubScenarios()]);
  const { system, scenario, side, club } = el.elements;
  clear(system, systems.map((x) => h("option", { value: x.name }, x.title || x.name)));
  clubs.forEach((c) => club.append(h("option", { value: c.id }, c.name)));
  const builtIn = () => (systems.find((x) => x.name === system.value) || { scenarios: [] }).scenarios.filter((sc) => sc.sides.length === 2);
  // each published version of a club scenario I may read, pinned by the open game as "<id>@<version>"
  const ofClubs = () =>
    clubScenarios
      .filter((sc) => sc.system === system.value && sc.sides.length === 2)
      .flatMap((sc) => [...sc.versions].reverse().map((v) => ({ id: `${sc.id}@${v.version}`, title: `${sc.title} · ${sc.club_name}, version ${v.version}`, sides: sc.sides, options: v.options })));
  const scenarios = () => [...builtIn(), ...ofClubs()];
  let specs = [];
  const sides = () => {
    const sc = scenarios().find((x) => x.id === scenario.value);
    clear(side, (sc ? sc.sides : []).map((s) => h("option", { value: s }, s)));
    specs = (sc && sc.options) || []; // the scenario's options, as controls
    optionsPanel(specs, document.getElementById("seek-options"));
  };
  const systemChanged = () => {
    const option = (sc) => h("option", { value: sc.id }, sc.title);
    const ours = ofClubs();
    clear(scenario, ours.length ? [h("optgroup", { label: "Built-in scenarios" }, builtIn().map(option)), h("optgroup", { label: "Club scenarios" }, ours.map(option))] : builtIn().map(option));
    sides();
  };
  system.addEventListener("change", systemChanged);
  scenario.addEventListener("change", sides);
  systemChanged();
  onSubmit(el, async (data) => {
    await api("/api/seeks", { method: "POST", body: { system: data.system, scenario: data.scenario, side: data.side, club: data.club || null, clock: clockFrom(data), options: chosenOptions(el, specs) } });
    toast("Your game is open: it starts when someone joins");
    await list(me);
  });
}

async function main() {
  const me = await currentUser();
  await list(me);
  if (me) await form(me);
  document.body.dataset.ready = "true";
}

main();
