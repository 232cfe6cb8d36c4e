// Reading the server's legal actions (GET /api/games/<id>/actions) into what can be clicked.  The
// browser never works out what is legal: it only reads these command templates.
//   - a unit's move: {unit | units, reachable: {hex: {cost, path}}}  or  {paths: {hex: [path]}}
//     or {hexes: [hex, ...]} -> clicking a destination sends the action with its "path" or "hex"
//     (with `units`, a stack moving together: offered on each of its units);
//   - an attack or barrage: {attackers | units | artillery: [...], defender_hex | hex | target} -> clicking
//     the target hex composes it (which of those units take part, the server's preview);
//   - anything else (end_phase, ...) is a button that sends the action as it is, or opens a small
//     form when the template leaves a choice (see compose.js).

const DEST_KEYS = ["reachable", "paths", "hexes"];

export function unitOf(action) {
  if (typeof action.unit === "string") return action.unit;
  if (Array.isArray(action.units) && action.units.length === 1) return action.units[0];
  return null;
}

// The units a move names: its `unit`, or every unit of its `units` (a stack).
export function unitsOf(action) {
  if (typeof action.unit === "string") return [action.unit];
  if (Array.isArray(action.units)) return action.units.filter((u) => typeof u === "string");
  return [];
}

// The list of units an attack-like action draws from: attackers, units or artillery.
export function listKey(action) {
  return ["attackers", "units", "artillery"].find((k) => Array.isArray(action[k]) && action[k].length) || null;
}

// The hex an attack-like action aims at: `defender_hex`, `hex` or `target` (Backbone).
export function targetOf(action) {
  const hex = [action.hex, action.target].find((x) => typeof x === "string") || null;
  if (Array.isArray(action.attackers)) return action.defender_hex || hex;
  if (DEST_KEYS.some((k) => k in action) || !hex) return null;
  return listKey(action) ? hex : null;
}

function without(action, keys) {
  const out = { ...action };
  for (const key of keys) delete out[key];
  return out;
}

// {hex: {command, cost?, path?}} for a unit-bound action with destinations, else null.
export function destinations(action) {
  const base = without(action, DEST_KEYS);
  if (action.reachable && typeof action.reachable === "object") {
    return Object.fromEntries(
      Object.entries(action.reachable).map(([hex, r]) => [hex, { command: { ...base, path: r.path }, cost: r.cost, path: r.path }]),
    );
  }
  if (action.paths && typeof action.paths === "object" && !Array.isArray(action.paths)) {
    return Object.fromEntries(Object.entries(action.paths).map(([hex, path]) => [hex, { command: { ...base, path }, path }]));
  }
  if (Array.isArray(action.hexes)) {
    return Object.fromEntries(action.hexes.map((hex) => [hex, { command: { ...base, hex } }]));
  }
  return null;
}

export function interpret(actions) {
  const byUnit = new Map();
  const unitOther = new Map(); // a unit's orders without destinations (shown when it is selected)
  const targets = new Map();
  const general = [];
  for (const action of actions || []) {
    const unit = unitOf(action);
    const dests = unitsOf(action).length ? destinations(action) : null;
    const target = targetOf(action);
    if (dests) {
      for (const uid of unitsOf(action)) {
        if (!byUnit.has(uid)) byUnit.set(uid, []);
        byUnit.get(uid).push({ action, destinations: dests });
      }
    } else if (unit && !target) {
      if (!unitOther.has(unit)) unitOther.set(unit, []);
      unitOther.get(unit).push(action);
    } else if (target) {
      if (!targets.has(target)) targets.set(target, []);
      targets.get(target).push(action);
    } else {
      general.push(action);
    }
  }
  // a unit with no destination to click keeps its orders among the buttons
  for (const [unit, actions] of unitOther) {
    if (!byUnit.has(unit)) {
      general.push(...actions);
      unitOther.delete(unit);
    }
  }
  return { byUnit, unitOther, targets, general };
}

export function actionLabel(action) {
  const words = String(action.type || "action").replace(/_/g, " ");
  const extra = [];
  const units = unitsOf(action);
  if (units.length) extra.push(units.length > 3 ? `${units.slice(0, 3).join(", ")} and ${units.length - 3} more` : units.join(", "));
  else if (Array.isArray(action.units)) extra.push("none");
  for (const key of ["leader", "mode", "chit", "weapon", "to"]) if (typeof action[key] === "string") extra.push(action[key]);
  for (const [key, value] of Object.entries(action)) if (value === true) extra.push(key.replace(/_/g, " "));
  const target = targetOf(action) || action.hex;
  if (typeof target === "string") extra.push(target);
  const text = words.charAt(0).toUpperCase() + words.slice(1);
  return extra.length ? `${text} (${extra.join(", ")})` : text;
}
