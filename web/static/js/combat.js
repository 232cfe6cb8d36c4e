// Composing an attack: choose the attackers among those the server allows, see the combat preview
// (odds, every shift and modifier with its rule, the table column), then confirm.
import { api, explain } from "./api.js";
import { describeCounter, formatValue } from "./board.js";
import { clear, h } from "./dom.js";

const tableCache = new Map();

async function crt(system) {
  if (!(system.tables || []).includes("crt")) return null;
  if (!tableCache.has(system.name)) tableCache.set(system.name, api(`/api/systems/${system.name}/tables/crt`).catch(() => null));
  return tableCache.get(system.name);
}

function numeric(v) {
  const x = v && typeof v === "object" && "value" in v ? v.value : v;
  return typeof x === "number" ? x : null;
}

// The situation for POST /api/systems/<name>/combat-preview: the server's own if the action carries
// one; otherwise, for systems whose counters show "attack" and "defence", their printed totals.
function situationFor(action, chosen, attackers, defenders) {
  if (action.situation) return { situation: action.situation, estimated: false };
  const a = attackers.filter((u) => chosen.has(u.id)).map((u) => numeric(u.values && u.values.attack));
  const d = defenders.map((u) => numeric(u.values && u.values.defence));
  if (!a.length || !d.length || [...a, ...d].some((x) => x === null)) return null;
  return { situation: { attack: a.reduce((x, y) => x + y, 0), defence: d.reduce((x, y) => x + y, 0) }, estimated: true };
}

function previewView(preview, estimated, table) {
  const odds = preview.odds || {};
  const column = odds.column || preview.column;
  const attack = odds.attack ?? preview.attack_strength;
  const defence = odds.defence ?? preview.defense_strength;
  const lines = [];
  lines.push(h("p", { class: "odds" }, `Odds column: `, h("strong", { id: "odds-column" }, column || "none (not allowed)"), attack !== undefined ? ` — attack ${formatValue(attack)} against defence ${formatValue(defence)}` : ""));
  const rules = [...(preview.shifts || []), ...(preview.strength_effects || []), ...(preview.modifiers || [])];
  if (odds.shift) rules.push({ cause: "column shift", value: odds.shift });
  if (rules.length) {
    lines.push(
      h("ul", { class: "modifiers", "aria-label": "Shifts and modifiers" }, rules.map((m) => h("li", {}, `${m.cause || "modifier"}${m.value !== undefined ? ` ${m.value > 0 ? "+" : ""}${m.value}` : m.shift !== undefined ? ` shift ${m.shift}` : ""}${m.rule ? ` (rule ${m.rule})` : ""}`))),
    );
  } else {
    lines.push(h("p", {}, "No shifts or modifiers."));
  }
  if (estimated) {
    lines.push(h("p", { class: "note" }, "Estimated from the printed values on the counters; the server applies supply, step losses, terrain and every other rule when it resolves the attack, and records each with its rule."));
  }
  if (table && column && table.columns.includes(column)) {
    const i = table.columns.indexOf(column);
    lines.push(
      h("table", { class: "crt" }, h("caption", {}, `Results on the ${column} column`), h("tr", {}, h("th", { scope: "row" }, "Roll"), table.rows.map((r) => h("td", {}, r.roll))), h("tr", {}, h("th", { scope: "row" }, "Result"), table.rows.map((r) => h("td", {}, r.results[i])))),
    );
  }
  return lines;
}

export function attackPanel({ sel, game, counters, system, send, cancel }) {
  const action = sel.actions[0];
  const byId = new Map(counters.map((c) => [c.id, c]));
  const attackers = action.attackers.map((uid) => byId.get(uid) || { id: uid, name: uid, values: {} });
  const defenders = counters.filter((c) => c.hex === sel.hex);
  const chosen = new Set(action.attackers);
  const previewBox = h("div", { class: "preview", "aria-live": "polite" }, h("p", {}, "Working out the odds…"));

  async function refreshPreview() {
    if (action.preview) return clear(previewBox, previewView(action.preview, false, await crt(system)));
    const found = situationFor(action, chosen, attackers, defenders);
    if (!found || !chosen.size) return clear(previewBox, h("p", {}, "No combat preview for this attack."));
    try {
      const [preview, table] = await Promise.all([
        api(`/api/systems/${game.system}/combat-preview`, { method: "POST", body: found.situation }),
        crt(system),
      ]);
      clear(previewBox, previewView(preview, found.estimated, table));
    } catch (err) {
      clear(previewBox, h("p", {}, `No combat preview: ${explain(err)}`));
    }
  }

  const boxes = attackers.map((u) =>
    h(
      "label",
      { class: "attacker" },
      h("input", {
        type: "checkbox",
        checked: true,
        value: u.id,
        onchange: (ev) => {
          if (ev.target.checked) chosen.add(u.id);
          else chosen.delete(u.id);
          refreshPreview();
        },
      }),
      ` ${describeCounter(u)}`,
    ),
  );
  const confirm = h(
    "button",
    {
      type: "button",
      id: "confirm",
      onclick: () => {
        if (!chosen.size) return;
        send({ ...action, attackers: action.attackers.filter((a) => chosen.has(a)) }, `Attack on ${sel.hex} resolved`);
      },
    },
    `Confirm attack on ${sel.hex}`,
  );
  refreshPreview();
  setTimeout(() => confirm.focus(), 0);
  return [
    h("h3", {}, `${action.type === "attack" ? "Attack" : action.type.replace(/_/g, " ")} ${sel.hex}`),
    h("p", {}, "Defenders: ", defenders.map(describeCounter).join("; ") || "—"),
    h("fieldset", {}, h("legend", {}, "Attackers"), boxes),
    h("section", { "aria-label": "Combat preview" }, h("h4", {}, "Combat preview"), previewBox),
    confirm,
    cancel,
  ];
}
