// A ladder's challenges (issue, accept -> the new game, decline, claim a forfeit) and face-to-face
// results (report, confirm, reject).  The server checks ranges, deadlines and who may answer.
import { api, explain } from "./api.js";
import { clear, h, sideName, toast } from "./dom.js";
import { onSubmit, when } from "./forms.js";
import { chosenOptions, optionsPanel, optionWords } from "./options.js";

export function challengeItem(c, me, refresh) {
  const act = (path, text, body) => async () => {
    try {
      const out = await api(`/api/challenges/${c.id}/${path}`, { method: "POST", body });
      toast(text);
      if (path === "accept" && out.game) return window.location.assign(`/games/${out.game}`);
    } catch (err) {
      document.getElementById("ladder-status").textContent = explain(err);
    }
    refresh();
  };
  const mine = me && me.username === c.opponent;
  const sides = Object.entries(c.sides || {}).map(([side, user]) => `${user} (${side})`).join(" vs ");
  const late = new Date(c.deadline) < new Date();
  return h(
    "li",
    { class: `challenge status-${c.status}`, "data-challenge": c.id },
    h("p", {}, h("strong", {}, `${c.challenger} challenges ${c.opponent}`), ` · ${c.scenario_title || c.scenario}${c.challenger_side ? ` · ${c.challenger} plays ${sideName(c.challenger_side)}` : ""} · `, h("span", { class: "status" }, c.status)),
    h("p", { class: "meta" }, `issued ${when(c.issued_at)} · answer by ${when(c.deadline)}${sides ? ` · ${sides}` : ""}`),
    Object.keys(c.options || {}).length ? h("p", { class: "meta challenge-options" }, `options: ${optionWords(c.options)}`) : null,
    c.status === "open" && mine && !late
      ? h(
          "p",
          { class: "buttons" },
          h("button", { type: "button", onclick: act("accept", "Challenge accepted") }, "Accept and start the game"),
          h("button", { type: "button", class: "secondary", onclick: act("decline", "Challenge declined", { reason: "" }) }, "Decline"),
        )
      : null,
    c.status === "open" && late && me && me.username === c.challenger
      ? h("button", { type: "button", onclick: act("forfeit", "Forfeit claimed") }, "Claim the win by forfeit")
      : null,
    c.game ? h("p", {}, h("a", { href: `/games/${c.game}` }, "Open the game")) : null,
  );
}

export function reportItem(r, me, refresh) {
  const act = (path, text, body) => async () => {
    try {
      await api(`/api/reports/${r.id}/${path}`, { method: "POST", body });
      toast(text);
    } catch (err) {
      document.getElementById("ladder-status").textContent = explain(err);
    }
    refresh();
  };
  const sides = Object.entries(r.sides).map(([side, user]) => `${user} (${side})`).join(" vs ");
  const result = r.winner ? `${r.sides[r.winner]} (${r.winner}) won${r.level ? `, ${r.level}` : ""}` : "draw";
  return h(
    "li",
    { class: `report status-${r.status}`, "data-report": r.id },
    h("p", {}, h("strong", {}, sides), ` · ${r.scenario_title || r.scenario}: ${result} · `, h("span", { class: "status" }, r.status === "reported" ? "waiting for confirmation" : r.status)),
    h("p", { class: "meta" }, `reported by ${r.reporter} ${when(r.reported_at)}`),
    r.status === "reported" && me && me.username === r.opponent
      ? h(
          "p",
          { class: "buttons" },
          h("button", { type: "button", onclick: act("confirm", "Result confirmed") }, "Confirm the result"),
          h("button", { type: "button", class: "secondary", onclick: act("reject", "Result rejected", { reason: "" }) }, "Reject"),
        )
      : null,
  );
}

// The challenge and report forms, given the ladder, the scenarios it covers and the players.
export function setUpForms({ ladder, scenarios, me, players, refresh }) {
  const cForm = document.getElementById("challenge-form");
  const rForm = document.getElementById("report-form");
  const playing = me && players.some((p) => p.username === me.username);
  cForm.hidden = rForm.hidden = !playing;
  if (!playing) return;
  const others = players.filter((p) => p.username !== me.username);
  let specs = [];
  for (const form of [cForm, rForm]) {
    const scenario = form.elements.scenario;
    clear(scenario, scenarios.map((x) => h("option", { value: x.id }, x.title)));
    scenario.closest("label").hidden = scenarios.length < 2;
    const fill = () => {
      const sc = scenarios.find((x) => x.id === scenario.value) || scenarios[0];
      const sides = sc ? sc.sides : [];
      if (form === cForm) {
        // the scenario's options as controls (a pinned club version's too)
        specs = (sc && sc.options) || [];
        optionsPanel(specs, document.getElementById("challenge-options"));
      }
      clear(form.elements.side, form === cForm ? h("option", { value: "" }, "Drawn at random") : null, sides.map((x) => h("option", { value: x }, x)));
      if (form === rForm) {
        const winner = form.elements.winner;
        clear(winner, sides.map((x) => h("option", { value: x }, `${x} won`)), h("option", { value: "" }, "Draw"));
      }
    };
    scenario.addEventListener("change", fill);
    fill();
  }
  // those ranked above me, nearest first (the server checks the ladder's challenge range)
  const mine = players.find((p) => p.username === me.username);
  const above = others.filter((p) => p.rank < mine.rank).reverse();
  clear(cForm.elements.opponent, above.map((p) => h("option", { value: p.username }, `#${p.rank} ${p.username} (${Math.round(p.rating)})`)));
  if (!above.length) cForm.replaceChildren(h("p", { class: "note" }, "Nobody is ranked above you: others challenge you."));
  clear(rForm.elements.opponent, others.map((p) => h("option", { value: p.username }, p.username)));
  onSubmit(cForm, async (data) => {
    const options = chosenOptions(cForm, specs);
    const body = { opponent: data.opponent, options };
    if (!ladder.scenario) body.scenario = data.scenario;
    if (data.side) body.side = data.side;
    await api(`/api/ladders/${ladder.id}/challenges`, { method: "POST", body });
    toast(`${data.opponent} challenged`);
    refresh();
  });
  onSubmit(rForm, async (data) => {
    const sc = scenarios.find((x) => x.id === data.scenario) || scenarios[0];
    const other = sc.sides.find((x) => x !== data.side);
    const body = { sides: { [data.side]: me.username, [other]: data.opponent }, winner: data.winner || null };
    if (data.level) body.level = data.level;
    if (!ladder.scenario) body.scenario = data.scenario;
    await api(`/api/ladders/${ladder.id}/reports`, { method: "POST", body });
    toast("Result reported: it counts once your opponent confirms it");
    refresh();
  });
}
