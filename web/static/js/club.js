// A club: how to join it (ask, or answer an invitation), members and their roles (admins invite,
// add and remove members, grant and revoke roles, answer join requests), its arbiters (admins
// appoint and remove them), its ladders, events and campaigns (admins create them); each list a page at a
// time ("More …" appends the next).
import { api, currentUser, explain, inWords } from "./api.js";
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
      if (path.endsWith("/roles/arbiter") || !path.includes("/roles/")) await renderArbiters();
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
  $("arbiter-form").hidden = !admin;
  renderJoin();
  await Promise.all([renderWaiting(), renderArbiters()]);
  $("ladder-form").hidden = !admin;
  $("campaign-form").hidden = !admin;
  $("event-form").hidden = !admin;
  try {
    await pagedList({ path: `/api/clubs/${club.id}/members`, list: body, more: $("members-more"), row: (m) => memberRow(m, admin) });
  } catch (err) {
    $("club-status").textContent = explain(err);
  }
}

const roleWords = (roles) => (roles.length > 1 ? `${roles.slice(0, -1).join(", ")} and ${roles[roles.length - 1]}` : roles.join(""));

// How to join, for the one reading the page: a member's roles; an invitation to answer; a request
// waiting; else a button to ask (signed out: sign in first).
function renderJoin() {
  const box = $("join");
  const act = async (method, path, body, text) => {
    try {
      club = await api(`/api/clubs/${club.id}${path}`, { method, body });
      toast(text);
    } catch (err) {
      $("club-status").textContent = inWords(err);
      return;
    }
    await renderMembers();
  };
  const roles = club.viewer_roles || [];
  const how = h("p", { class: "note" }, "A club's admins invite new members, and approve or refuse requests to join. Whoever is invited, or asks, is told the answer.");
  if (!me) {
    clear(box, h("p", {}, h("a", { href: `/?next=${encodeURIComponent(location.pathname)}` }, "Sign in"), " to ask to join, or to answer an invitation."), how);
  } else if (roles.length) {
    clear(box, h("p", {}, `You are a member of ${club.name}: ${roleWords(roles)}.`));
  } else if (club.viewer_invitation) {
    const inv = club.viewer_invitation;
    clear(
      box,
      h("p", {}, `${inv.by} invites you to join ${club.name} as ${roleWords(inv.roles)}.`),
      h("button", { type: "button", onclick: () => act("POST", "/invitation", { accept: true }, `You joined ${club.name}`) }, "Accept the invitation"),
      " ",
      h("button", { type: "button", class: "secondary", onclick: () => act("POST", "/invitation", { accept: false }, "Invitation declined") }, "Decline"),
    );
  } else if (club.viewer_requested) {
    clear(
      box,
      h("p", {}, "You asked to join: the club's admins will approve or refuse it, and you will be told."),
      h("button", { type: "button", class: "secondary", onclick: () => act("DELETE", `/requests/${encodeURIComponent(me.username)}`, undefined, "Request withdrawn") }, "Withdraw my request"),
    );
  } else {
    clear(
      box,
      h("p", {}, "Ask to join: the club's admins are told, and approve or refuse your request. An admin may also invite you."),
      h("button", { type: "button", onclick: () => act("POST", "/requests", undefined, "Request sent to the club's admins") }, "Ask to join"),
    );
  }
  $("join-title").textContent = roles.length ? "Your membership" : "How to join";
  $("join-box").hidden = false;
}

// For admins: the join requests to approve or refuse, and the invitations not yet answered
// (withdraw one), each a page at a time.
async function renderWaiting() {
  const admin = isAdmin();
  $("waiting").hidden = !admin;
  if (!admin) return;
  const answer = async (row, method, path, body, text) => {
    try {
      club = await api(`/api/clubs/${club.id}${path}`, { method, body });
      toast(text);
      row.remove();
      if (body && body.accept) await renderMembers();
    } catch (err) {
      $("club-status").textContent = inWords(err);
    }
  };
  try {
    await Promise.all([
      pagedList({
        path: `/api/clubs/${club.id}/requests`,
        list: $("requests"),
        more: $("requests-more"),
        empty: () => h("li", {}, "Nobody is asking to join."),
        row: (r) => {
          const user = encodeURIComponent(r.username);
          const row = h("li", { "data-request": r.username }, `${r.username} asks to join `);
          row.append(
            h("button", { type: "button", "aria-label": `Approve ${r.username}`, onclick: () => answer(row, "POST", `/requests/${user}`, { accept: true }, `${r.username} joined the club`) }, "Approve"),
            " ",
            h("button", { type: "button", class: "secondary", "aria-label": `Refuse ${r.username}`, onclick: () => answer(row, "POST", `/requests/${user}`, { accept: false }, `${r.username}'s request refused`) }, "Refuse"),
          );
          return row;
        },
      }),
      pagedList({
        path: `/api/clubs/${club.id}/invitations`,
        list: $("invitations"),
        more: $("invitations-more"),
        empty: () => h("li", {}, "No invitation is waiting."),
        row: (r) => {
          const row = h("li", { "data-invitation": r.username }, `${r.username} as ${roleWords(r.roles)} (invited by ${r.by}) `);
          row.append(h("button", { type: "button", class: "link", "aria-label": `Withdraw the invitation of ${r.username}`, onclick: () => answer(row, "DELETE", `/invitations/${encodeURIComponent(r.username)}`, undefined, "Invitation withdrawn") }, "withdraw"));
          return row;
        },
      }),
    ]);
  } catch (err) {
    $("club-status").textContent = explain(err);
  }
}

// The club's arbiters (GET …/members?role=arbiter), a page at a time; admins remove one here
async function renderArbiters() {
  const admin = isAdmin();
  try {
    await pagedList({
      path: `/api/clubs/${club.id}/members?role=arbiter`,
      list: $("arbiters"),
      more: $("arbiters-more"),
      empty: () => h("li", {}, "No arbiter yet."),
      row: (m) => {
        const row = h("li", { "data-arbiter": m.username }, m.username, " ");
        if (admin) {
          const path = `/members/${encodeURIComponent(m.username)}/roles/arbiter`;
          const remove = async () => {
            try {
              club = await api(`/api/clubs/${club.id}${path}`, { method: "DELETE" });
              toast(`${m.username}: arbiter revoked`);
            } catch (err) {
              $("club-status").textContent = inWords(err);
            }
            await renderMembers();
          };
          row.append(h("button", { type: "button", class: "link", "aria-label": `Remove ${m.username} as arbiter`, onclick: remove }, "remove as arbiter"));
        }
        return row;
      },
    });
  } catch (err) {
    $("club-status").textContent = explain(err);
  }
}

// Appoint an arbiter: a member gets the role at once; anyone else is invited as an arbiter only
async function appoint(data) {
  const username = String(data.username || "").trim();
  const user = encodeURIComponent(username);
  try {
    club = await api(`/api/clubs/${club.id}/members/${user}/roles/arbiter`, { method: "PUT" });
    toast(`${username} is an arbiter of the club`);
  } catch (err) {
    if (!(err.status === 404 && err.details.user)) throw err; // not a member: invite them
    club = await api(`/api/clubs/${club.id}/invitations`, { method: "POST", body: { username, roles: ["arbiter"] } });
    toast(`${username} is invited as an arbiter: they rule once they accept`);
  }
  $("arbiter-form").reset();
  await renderMembers();
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

const FORMAT_WORDS = { swiss: "Swiss", round_robin: "round robin" };
const EVENT_STATUS = { open: "open for players", started: "being played", finished: "finished" };

function clubEvents() {
  return pagedList({
    path: `/api/clubs/${club.id}/events`,
    list: $("events"),
    more: $("events-more"),
    row: (e) => h("li", {}, h("a", { href: `/events/${e.id}` }, e.name), h("span", { class: "meta" }, ` ${FORMAT_WORDS[e.format] || e.format} · ${EVENT_STATUS[e.status] || e.status}`)),
    empty: () => h("li", {}, "No event yet."),
  });
}

function eventForm(systems) {
  const form = $("event-form");
  const sys = form.elements.system;
  const sc = form.elements.scenario;
  const two = systems.filter((s) => s.scenarios.some((x) => (x.sides || []).length === 2 || !x.sides));
  clear(sys, two.map((s) => h("option", { value: s.name }, s.title || s.name)));
  const scenarios = () => {
    const found = systems.find((s) => s.name === sys.value);
    clear(sc, (found ? found.scenarios : []).filter((x) => !x.sides || x.sides.length === 2).map((x) => h("option", { value: x.id }, x.title)));
  };
  sys.addEventListener("change", scenarios);
  scenarios();
  onSubmit(form, async (data) => {
    const swiss = data.format === "swiss";
    const body = {
      name: data.name,
      format: swiss ? "swiss" : "round_robin",
      system: data.system,
      scenario: data.scenario,
      round_days: Number(data.round_days),
      scoring: { win: Number(data.win), draw: Number(data.draw), loss: Number(data.loss) },
    };
    if (swiss) body.rounds = Number(data.rounds);
    else body.double = data.format === "double";
    const made = await api(`/api/clubs/${club.id}/events`, { method: "POST", body });
    window.location.assign(`/events/${made.id}`);
  });
}

async function forms() {
  // Nobody joins without consent: one who asked to join is a member at once, anyone else is
  // invited (they are told, and accept or decline)
  onSubmit($("member-form"), async (data, form) => {
    const roles = [...form.querySelectorAll("input[name=role]:checked")].map((x) => x.value);
    const body = { username: data.username.trim(), roles };
    const before = club.member_count;
    club = await api(`/api/clubs/${club.id}/members`, { method: "POST", body });
    form.reset();
    toast(club.member_count > before ? `${body.username} joined: they had asked to` : `${body.username} is invited: they are told, and accept or decline`);
    await renderMembers();
  });
  onSubmit($("arbiter-form"), appoint);
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
  eventForm(systems);
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
  await Promise.all([renderMembers(), ladders(), clubEvents(), campaigns(), forms()]);
  root.dataset.ready = "true";
}

main();
