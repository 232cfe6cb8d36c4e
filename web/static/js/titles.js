// The rules systems' printed titles by name ("merida" -> "Closing the Merida Pocket"), fetched once
// per page: lists of games show the game's title, never the system's internal name.
import { api } from "./api.js";

let titles = null;

export function systemTitles() {
  titles ??= api("/api/systems")
    .then((systems) => new Map(systems.map((s) => [s.name, s.title || s.name])))
    .catch(() => new Map());
  return titles;
}

export function titled(map, system) {
  return map.get(system) || system;
}
