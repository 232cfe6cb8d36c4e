// The rules systems (GET /api/systems: their titles, scenarios and options), fetched once per page
// however many scripts ask; and their printed titles by name ("merida" -> "Closing the Merida
// Pocket"): lists of games show the game's title, never the system's internal name.
import { api } from "./api.js";

let systems = null;
let titles = null;

export function systemList() {
  systems ??= api("/api/systems");
  return systems;
}

export function systemTitles() {
  titles ??= systemList()
    .then((list) => new Map(list.map((s) => [s.name, s.title || s.name])))
    .catch(() => new Map());
  return titles;
}

export function titled(map, system) {
  return map.get(system) || system;
}

// A system and one of its scenarios in one phrase, the system once ("Closing the Merida Pocket -
// Extremadura, 1938" is both Merida's title and its scenario's).
export function systemAndScenario(systemTitle, scenarioTitle, joiner = " · ") {
  return scenarioTitle.startsWith(systemTitle) ? scenarioTitle : `${systemTitle}${joiner}${scenarioTitle}`;
}

// The published club scenarios the caller may start a game from, for a form's choices: the first
// 100 of each system (GET /api/club-scenarios?system=, by title; the library is paged), asked once
// per page however many scripts want them.
let playable = null;

export function playableClubScenarios() {
  playable ??= systemList()
    .then((list) => Promise.all(list.map((s) => api(`/api/club-scenarios?system=${encodeURIComponent(s.name)}&limit=100`).catch(() => []))))
    .then((pages) => pages.flat())
    .catch(() => []);
  return playable;
}
