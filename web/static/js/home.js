// Home: sign in / create an account, or my games (whose turn) and a form to start a game.
import { api, currentUser, explain } from "./api.js";
import { clear, h } from "./dom.js";

function formData(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function onSubmit(form, handler) {
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await handler(formData(form));
    } catch (err) {
      error.textContent = explain(err);
    } finally {
      button.disabled = false;
    }
  });
}

async function signIn({ username, password }) {
  await api("/api/session", { method: "POST", body: { username, password } });
  window.location.assign(new URLSearchParams(location.search).get("next") || "/");
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
  if (game.status === "ended") {
    const winner = game.result && game.result.winner;
    return winner ? `Ended: ${winner} won` : "Ended";
  }
  const active = game.active_sides || [];
  const mine = active.filter((side) => game.sides[side] === me.username);
  if (mine.length) return `Your turn (${mine.join(", ")})`;
  return active.length ? `Waiting for ${active.map((s) => `${game.sides[s]} (${s})`).join(", ")}` : "";
}

async function listGames(me) {
  const list = document.getElementById("games");
  const rows = await api("/api/games?mine=true");
  document.getElementById("games-empty").hidden = rows.length > 0;
  // the summary has no whose-turn: read each game (a club member has a handful)
  const details = await Promise.all(rows.map((row) => api(`/api/games/${row.id}`).catch(() => row)));
  clear(
    list,
    details.map((game) => {
      const turn = turnText(game, me);
      const sides = Object.entries(game.sides).map(([side, user]) => `${side}: ${user}`).join(", ");
      const phase = game.phase && game.phase.turn ? `Turn ${game.phase.turn}, ${game.phase.phase || ""}` : "";
      return h(
        "li",
        { class: turn.startsWith("Your turn") ? "game mine" : "game" },
        h("a", { href: `/games/${game.id}` }, game.title || game.scenario),
        h("span", { class: "meta" }, `${game.system} · ${sides}`),
        phase && h("span", { class: "meta" }, phase),
        h("span", { class: "turn" }, turn),
      );
    }),
  );
}

async function createForm(me) {
  const form = document.getElementById("create-form");
  const systems = await api("/api/systems");
  const systemSelect = form.elements.system;
  const scenarioSelect = form.elements.scenario;
  const sides = document.getElementById("sides");
  clear(systemSelect, systems.map((sys) => h("option", { value: sys.name }, sys.title || sys.name)));

  function scenarioChanged() {
    const system = systems.find((x) => x.name === systemSelect.value);
    const scenario = system && system.scenarios.find((x) => x.id === scenarioSelect.value);
    const legend = sides.querySelector("legend");
    clear(sides, legend);
    (scenario ? scenario.sides : []).forEach((side, i) =>
      sides.append(
        h("label", {}, `${side} `, h("input", { name: `side:${side}`, required: true, value: i === 0 ? me.username : "" })),
      ),
    );
  }
  function systemChanged() {
    const system = systems.find((x) => x.name === systemSelect.value);
    clear(
      scenarioSelect,
      (system ? system.scenarios : []).map((sc) =>
        h("option", { value: sc.id }, sc.title + (sc.placeholder ? " (has placeholder values)" : "")),
      ),
    );
    scenarioChanged();
  }
  systemSelect.addEventListener("change", systemChanged);
  scenarioSelect.addEventListener("change", scenarioChanged);
  systemChanged();

  onSubmit(form, async (data) => {
    const sidesMap = {};
    for (const [key, value] of Object.entries(data)) if (key.startsWith("side:")) sidesMap[key.slice(5)] = value.trim();
    let options = {};
    if (data.options && data.options.trim()) {
      try {
        options = JSON.parse(data.options);
      } catch {
        throw new Error("the options are not valid JSON");
      }
    }
    const game = await api("/api/games", {
      method: "POST",
      body: { system: data.system, scenario: data.scenario, sides: sidesMap, options },
    });
    window.location.assign(`/games/${game.id}`);
  });
}

async function main() {
  const me = await currentUser();
  if (!me) return signedOut();
  document.getElementById("signed-in").hidden = false;
  await Promise.all([listGames(me), createForm(me)]);
}

main();
