// A campaign: its steps in order (the organiser starts a scenario step's game, scores an off-line
// step and notes carried-over effects), its scoring table and standings per side and per player.
import { api, currentUser, explain } from "./api.js";
import { clear, h, toast } from "./dom.js";
import { onSubmit } from "./forms.js";
import { chosenOptions, optionsPanel } from "./options.js";
import { systemAndScenario, systemList } from "./titles.js";

const root = document.getElementById("campaign-page");
const id = root.dataset.campaign;
const $ = (x) => document.getElementById(x);
let me;
let campaign;
let systems = [];

function sideInputs(c) {
  return h("fieldset", {}, h("legend", {}, "Who plays each side (usernames)"), c.sides.map((side) => h("label", {}, `${side} `, h("input", { name: `side:${side}`, required: true }))));
}

const sidesOf = (data) => Object.fromEntries(Object.entries(data).filter(([k]) => k.startsWith("side:")).map(([k, v]) => [k.slice(5), v.trim()]));

function organiserForms(step, c) {
  const forms = [];
  if (step.index === c.next_step && step.status === "pending" && step.scenario) {
    const specs = scenarioOf(step)?.options || [];
    const form = h("form", { class: "step-form", "aria-label": `Start step ${step.index + 1}` }, sideInputs(c), optionsPanel(specs), h("button", { type: "submit" }, "Start the game"), h("p", { class: "error", role: "alert" }));
    onSubmit(form, async (data) => {
      const options = chosenOptions(form, specs);
      const out = await api(`/api/campaigns/${id}/steps/${step.index}/start`, { method: "POST", body: { sides: sidesOf(data), options } });
      toast("Game started");
      window.location.assign(`/games/${out.game}`);
    });
    forms.push(form);
  }
  if (step.index === c.next_step && !step.scenario) {
    const form = h(
      "form",
      { class: "step-form", "aria-label": `Score step ${step.index + 1}` },
      sideInputs(c),
      h("label", {}, "Winner", h("select", { name: "winner" }, c.sides.map((s) => h("option", { value: s }, s)), h("option", { value: "" }, "Draw"))),
      h("label", {}, "Victory level", h("select", { name: "level" }, Object.keys(c.scoring).map((l) => h("option", { value: l }, l)))),
      h("button", { type: "submit" }, "Score the step"),
      h("p", { class: "error", role: "alert" }),
    );
    onSubmit(form, async (data) => {
      campaign = await api(`/api/campaigns/${id}/steps/${step.index}/result`, { method: "POST", body: { sides: sidesOf(data), winner: data.winner || null, level: data.level } });
      toast("Step scored");
      render();
    });
    forms.push(form);
  }
  const note = h("form", { class: "note-form", "aria-label": `Add a note to step ${step.index + 1}` }, h("label", {}, "Carried-over effect", h("input", { name: "text", required: true, maxlength: 2000 })), h("button", { type: "submit", class: "secondary" }, "Add the note"), h("p", { class: "error", role: "alert" }));
  onSubmit(note, async (data) => {
    campaign = await api(`/api/campaigns/${id}/steps/${step.index}/notes`, { method: "POST", body: { text: data.text } });
    render();
  });
  forms.push(h("details", {}, h("summary", {}, "Note a carried-over effect"), note));
  return forms;
}

const scenarioOf = (step) => systems.find((s) => s.name === step.system)?.scenarios.find((x) => x.id === step.scenario);

// A step's system and scenario by their titles (the codes only when the server no longer knows them)
function scenarioWords(step) {
  const system = systems.find((s) => s.name === step.system);
  const scenario = scenarioOf(step);
  if (!system) return `${step.system} · ${step.scenario}`;
  return systemAndScenario(system.title || system.name, scenario ? scenario.title : step.scenario);
}

function stepItem(step, c) {
  const r = step.result;
  const sides = Object.entries(step.sides || {}).map(([side, user]) => `${user} (${side})`).join(" vs ");
  const result = r ? `${r.winner ? `${r.winner} won` : "draw"}, ${r.level}: ${Object.entries(r.points).map(([s, p]) => `${s} ${p}`).join(", ")} points` : null;
  return h(
    "li",
    { class: `step status-${step.status}`, "data-step": step.index, "aria-current": step.index === c.next_step ? "step" : undefined },
    h("h3", {}, step.title),
    h("p", { class: "meta" }, step.scenario ? scenarioWords(step) : "played off-line", ` · ${step.status}`, sides ? ` · ${sides}` : ""),
    result ? h("p", { class: "result" }, result) : null,
    step.game_id ? h("p", {}, h("a", { href: `/games/${step.game_id}` }, step.status === "scored" ? "The game" : "Open the game")) : null,
    step.notes.length ? h("ul", { class: "notes", "aria-label": "Carried-over effects" }, step.notes.map((n) => h("li", {}, n))) : null,
    me && me.username === c.organiser ? organiserForms(step, c) : null,
  );
}

function render() {
  const c = campaign;
  $("campaign-name").textContent = c.name;
  document.title = `${c.name} · Arbiter`;
  clear($("campaign-meta"), h("a", { href: `/clubs/${c.club}` }, "The club"), ` · organised by ${c.organiser} · sides ${c.sides.join(", ")} · ${c.next_step === null ? "finished" : `next: step ${c.next_step + 1}`}`);
  clear($("steps"), c.steps.map((step) => stepItem(step, c)));
  clear(
    $("scoring"),
    h("caption", { class: "visually-hidden" }, "Campaign points by victory level"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Result"), h("th", { scope: "col" }, "Points"))),
    h("tbody", {}, Object.entries(c.scoring).map(([level, points]) => h("tr", {}, h("td", {}, level === "draw" ? "draw (each side)" : level === "victory" ? "victory (winner; also a win at a level not named here)" : `${level} (winner)`), h("td", {}, points)))),
  );
  clear(
    $("campaign-standings"),
    h("table", { id: "side-points" }, h("caption", {}, "Points per side"), h("tbody", {}, Object.entries(c.standings.sides).map(([side, p]) => h("tr", { "data-side": side }, h("th", { scope: "row" }, side), h("td", {}, p))))),
    h(
      "table",
      { id: "player-points" },
      h("caption", {}, "Points per player"),
      h("thead", {}, h("tr", {}, ["Player", "Points", "Steps", "Wins"].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        c.standings.players.length
          ? c.standings.players.map((p) => h("tr", { "data-player": p.username }, h("th", { scope: "row" }, p.username), h("td", {}, p.points), h("td", {}, p.steps), h("td", {}, p.wins)))
          : h("tr", {}, h("td", { colspan: 4 }, "No step scored yet.")),
      ),
    ),
  );
}

async function main() {
  try {
    [me, campaign, systems] = await Promise.all([currentUser(), api(`/api/campaigns/${id}`), systemList().catch(() => [])]);
  } catch (err) {
    $("campaign-name").textContent = "Campaign not found";
    $("campaign-status").textContent = explain(err);
    return;
  }
  render();
  root.dataset.ready = "true";
}

main();
