// A club: members and their roles (admins add and remove members, grant and revoke roles), its
// ladders and campaigns (admins create them); each list a page at a time ("More …" appends the next).
import { api, currentUser, explain } from "./api.js";
import { clear, h, toast } from "./dom.js";
import { csv, onSubmit } from "./forms.js";
import { pagedList } from "./paged.js";
import { playableClubScenarios, systemAndScenario, systemList } from "./titles.js";

const root = document.getElementById("club-page");
const $ = (x) => document.getElementById(x);
const ROLES = ["player", "arbiter", "admin"];
let club;
let me;

// the caller's own roles in the club, as the club's resource says them
const isAdmin = () => !!me && (club.viewer_roles || []).includes("admin");

const countWords = () => `${club.member_count} member${club.member_count === 1 ? "" : "s"}, in the order they joined.`;

// A change to one member (`row`): the pages shown stay as they are -- the checkbox already says a
// role, a removed member's row goes; after an error, or when my own admin role changed, the list
// is read again from its first page.
async function change(method, path, text, row) {
  const wasAdmin = isAdmin();
  try {
    club = await api(`/api/clubs/${club.id}${path}`, { method });
    toast(text);
    if (isAdmin() === wasAdmin) {
      if (!path.includes("/roles/")) row.remove();
      $("members-count").textContent = countWords();
      return;
    }
  } catch (err) {
    $("club-status").textContent = explain(err);
  }
  await renderMembers();
}

function memberRow(m, admin) {
  const row = h(
    "tr",
    { "data-member": m.username },
    h("th", { scope: "row" }, m.username),
    ROLES.map((role) => {
      const has = m.roles.includes(role);
      if (!admin) return h("td", {}, has ? "✓" : "", h("span", { class: "visually-hidden" }, has ? `${role}` : `not ${role}`));
      return h(
        "td",
        {},
        h("input", {
          type: "checkbox",
          checked: has,
          "aria-label": `${m.username} is ${role}`,
          onchange: (ev) => change(ev.target.checked ? "PUT" : "DELETE", `/members/${encodeURIComponent(m.username)}/roles/${role}`, `${m.username}: ${role} ${ev.target.checked ? "granted" : "revoked"}`, row),
        }),
      );
    }),
    admin
      ? h("td", {}, h("button", { type: "button", class: "link", "aria-label": `Remove ${m.username}`, onclick: () => change("DELETE", `/members/${encodeURIComponent(m.username)}`, `${m.username} removed`, row) }, "remove"))
      : null,
  );
  return row;
}

// the members in the order they joined, a page at a time (GET /api/clubs/<id>/members)
async function renderMembers() {
  const admin = isAdmin();
  const body = h("tbody", {});
  clear(
    $("members"),
    h("caption", { class: "visually-hidden" }, "Members and roles"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Member"), ROLES.map((r) => h("th", { scope: "col" }, r)), admin ? h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Remove")) : null)),
    body,
  );
  $("members-count").textContent = countWords();
  $("member-form").hidden = !admin;
  $("ladder-form").hidden = !admin;
  $("campaign-form").hidden = !admin;
  try {
    await pagedList({ path: `/api/clubs/${club.id}/members`, list: body, more: $("members-more"), row: (m) => memberRow(m, admin) });
  } catch (err) {
    $("club-status").textContent = explain(err);
  }
}

function ladders() {
  return pagedList({
    path: `/api/clubs/${club.id}/ladders`,
    list: $("ladders"),
    more: $("ladders-more"),
    extra: systemList(),
    row: (l, systems) => {
      const systemTitle = (name) => systems.find((s) => s.name === name)?.title || name;
      return h("li", {}, h("a", { href: `/ladders/${l.id}` }, l.name), h("span", { class: "meta" }, ` ${l.scenario ? systemAndScenario(systemTitle(l.system), l.scenario_title || l.scenario) : systemTitle(l.system)} · ${l.players} players · ${l.results} results`));
    },
    empty: () => h("li", {}, "No ladder yet."),
  });
}

function campaigns() {
  return pagedList({
    path: `/api/clubs/${club.id}/campaigns`,
    list: $("campaigns"),
    more: $("campaigns-more"),
    row: (c) => h("li", {}, h("a", { href: `/campaigns/${c.id}` }, c.name)),
    empty: () => h("li", {}, "No campaign yet."),
  });
}

async function forms() {
  onSubmit($("member-form"), async (data, form) => {
    const roles = [...form.querySelectorAll("input[name=role]:checked")].map((x) => x.value);
    club = await api(`/api/clubs/${club.id}/members`, { method: "POST", body: { username: data.username.trim(), roles } });
    form.reset();
    toast("Member added");
    await renderMembers();
  });
  const [systems, clubScenarios] = await Promise.all([systemList(), playableClubScenarios()]);
  const form = $("ladder-form");
  const sys = form.elements.system;
  const sc = form.elements.scenario;
  clear(sys, systems.map((s) => h("option", { value: s.name }, s.title || s.name)));
  const scenarios = () => {
    const found = systems.find((s) => s.name === sys.value);
    // a club scenario's published version is pinned by the ladder: offered as "<id>@<version>"
    const ours = clubScenarios.filter((x) => found && x.system === found.name && x.sides.length === 2);
    const own = (found ? found.scenarios : []).map((x) => h("option", { value: x.id }, x.title));
    clear(
      sc,
      h("option", { value: "" }, "Any two-sided scenario of the system"),
      ours.length ? h("optgroup", { label: "Built-in scenarios" }, own) : own,
      ours.length &&
        h(
          "optgroup",
          { label: "Club scenarios" },
          ours.flatMap((x) => [...x.versions].reverse().map((v) => h("option", { value: `${x.id}@${v.version}` }, `${x.title} · ${x.club_name}, version ${v.version}`))),
        ),
    );
  };
  sys.addEventListener("change", scenarios);
  scenarios();
  onSubmit(form, async (data) => {
    const body = { name: data.name, system: data.system };
    if (data.scenario) body.scenario = data.scenario;
    const ladder = await api(`/api/clubs/${club.id}/ladders`, { method: "POST", body });
    window.location.assign(`/ladders/${ladder.id}`);
  });
  // what a campaign step names: each system's code, and its scenarios' codes and titles
  clear(
    $("step-codes"),
    systems.map((s) =>
      h("li", {}, h("strong", {}, s.title || s.name), ` — system `, h("code", {}, s.name), `, scenario `, s.scenarios.flatMap((x, i) => [i ? " or " : "", h("code", {}, x.id), ` (${x.title})`])),
    ),
  );
  onSubmit($("campaign-form"), async (data) => {
    const steps = String(data.steps)
      .split("\n")
      .map((line) => line.split("|").map((x) => x.trim()))
      .filter((parts) => parts[0])
      .map(([title, system, scenario]) => (system ? { title, system, scenario } : { title }));
    const scoring = {};
    for (const pair of csv(data.scoring)) {
      const [level, points] = pair.split("=").map((x) => x.trim());
      if (!level || !/^\d+$/.test(points || "")) throw new Error(`scoring: write level=points, not “${pair}”`);
      scoring[level] = Number(points);
    }
    const campaign = await api(`/api/clubs/${club.id}/campaigns`, { method: "POST", body: { name: data.name, sides: csv(data.sides), steps, scoring } });
    window.location.assign(`/campaigns/${campaign.id}`);
  });
}

async function main() {
  try {
    [me, club] = await Promise.all([currentUser(), api(`/api/clubs/${encodeURIComponent(root.dataset.club)}`)]);
  } catch (err) {
    clear($("club-name"), "Club not found");
    $("club-status").textContent = explain(err);
    return;
  }
  $("club-name").textContent = club.name;
  document.title = `${club.name} · Arbiter`;
  await Promise.all([renderMembers(), ladders(), campaigns(), forms()]);
  root.dataset.ready = "true";
}

main();
