// Composing an attack: choose the attackers among those the server allows, see the server's combat
// preview (POST /api/games/<id>/preview: odds, every shift and modifier with its rule, computed on
// what this side may see), then confirm.  Nothing about the odds is worked out in the browser.
import { api, explain } from "./api.js";
import { actionLabel, listKey } from "./actions.js";
import { describeCounter, formatValue } from "./board.js";
import { clear, h, humanize } from "./dom.js";

const tableCache = new Map();

async function table(system, name) {
  if (!name || !(system.tables || []).includes(name)) return null;
  const key = `${system.name}/${name}`;
  if (!tableCache.has(key)) tableCache.set(key, api(`/api/systems/${system.name}/tables/${name}`).catch(() => null));
  return tableCache.get(key);
}

const signed = (v) => `${v > 0 ? "+" : ""}${v}`;

// Every shift and modifier of a preview as {text, rule}, whatever the rules module calls them.
export function previewRules(preview) {
  const out = [];
  const add = (m) => {
    if (!m) return;
    if (typeof m === "number") return m && out.push({ text: `modifier ${signed(m)}`, rule: null });
    const amount = m.shift !== undefined ? `column shift ${signed(m.shift)}` : m.value !== undefined ? `die modifier ${signed(m.value)}` : "";
    out.push({ text: [m.cause || m.reason, amount].filter(Boolean).join(": ") || "modifier", rule: m.rule || null });
  };
  for (const key of ["shifts", "strength_effects", "modifiers"]) (preview[key] || []).forEach(add);
  add(preview.modifier);
  return out;
}

function previewView(preview, crt) {
  const odds = preview.odds || {};
  const column = odds.column || preview.column || odds.label;
  const attack = preview.attack ?? odds.attack ?? preview.attack_strength;
  const defence = preview.defence ?? odds.defence ?? preview.defense_strength;
  const lines = [
    h(
      "p",
      { class: "odds" },
      "Odds column: ",
      h("strong", { id: "odds-column" }, column || "none (not allowed)"),
      attack !== undefined ? ` — attack ${formatValue(attack)} against defence ${formatValue(defence)}` : "",
      preview.factors !== undefined ? ` — ${formatValue(preview.factors)} factors` : "",
    ),
  ];
  if (odds.below_min || odds.above_max) lines.push(h("p", { class: "note" }, odds.below_min ? "Worse than the table's first column." : "Better than the table's last column: the last column is used."));
  const rules = previewRules(preview);
  lines.push(
    rules.length
      ? h("ul", { class: "modifiers", "aria-label": "Shifts and modifiers" }, rules.map((m) => h("li", {}, m.text, m.rule ? h("span", { class: "rule" }, ` (rule ${m.rule})`) : "")))
      : h("p", {}, "No shifts or modifiers."),
  );
  if (crt && column && crt.columns.includes(column)) {
    const i = crt.columns.indexOf(column);
    lines.push(
      h(
        "table",
        { class: "crt" },
        h("caption", {}, `Results on the ${column} column`),
        h("tr", {}, h("th", { scope: "row" }, "Roll"), crt.rows.map((r) => h("td", {}, r.roll))),
        h("tr", {}, h("th", { scope: "row" }, "Result"), crt.rows.map((r) => h("td", {}, r.results[i]))),
      ),
    );
  }
  return lines;
}

// The table a preview is read on: the one it names, else one named like the command, else the CRT.
function tableName(system, preview, command) {
  if (preview.table) return preview.table;
  return (system.tables || []).includes(command.type) ? command.type : "crt";
}

export function attackPanel({ sel, game, side, counters, system, send, cancel, choose }) {
  const action = sel.actions[sel.option || 0];
  const key = listKey(action);
  const byId = new Map(counters.map((c) => [c.id, c]));
  const attackers = action[key].map((uid) => byId.get(uid) || { id: uid, name: uid, values: {} });
  const defenders = counters.filter((c) => c.hex === sel.hex);
  const chosen = new Set(action[key]);
  const previewBox = h("div", { class: "preview", "aria-live": "polite" }, h("p", {}, "Working out the odds…"));
  const command = () => ({ ...action, [key]: action[key].filter((a) => chosen.has(a)) });
  let asked = 0;

  async function refreshPreview() {
    if (!chosen.size) return clear(previewBox, h("p", {}, "Choose at least one attacker."));
    const mine = ++asked;
    try {
      const body = { command: command() };
      if (side) body.side = side;
      const preview = await api(`/api/games/${game.id}/preview`, { method: "POST", body });
      const crt = await table(system, tableName(system, preview, body.command));
      if (mine === asked) clear(previewBox, previewView(preview, crt));
    } catch (err) {
      if (mine === asked) clear(previewBox, h("p", {}, `No combat preview: ${explain(err)}. The server still checks every rule when you confirm.`));
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
  const verb = humanize(action.type);
  const confirm = h(
    "button",
    { type: "button", id: "confirm", onclick: () => chosen.size && send(command(), `${verb} on ${sel.hex} done`) },
    `Confirm ${verb.toLowerCase()} on ${sel.hex}`,
  );
  const options =
    sel.actions.length > 1
      ? h(
          "fieldset",
          {},
          h("legend", {}, "What"),
          sel.actions.map((a, i) =>
            h("label", { class: "choice" }, h("input", { type: "radio", name: "target-option", checked: i === (sel.option || 0), onchange: () => choose(i) }), ` ${actionLabel(a)}`),
          ),
        )
      : null;
  refreshPreview();
  setTimeout(() => confirm.focus(), 0);
  return [
    h("h3", {}, `${verb} ${sel.hex}`),
    options,
    h("p", {}, "In the hex: ", defenders.map(describeCounter).join("; ") || "—"),
    h("fieldset", {}, h("legend", {}, key === "attackers" ? "Attackers" : humanize(key)), boxes),
    h("section", { "aria-label": "Combat preview" }, h("h4", {}, "Combat preview"), previewBox),
    confirm,
    cancel,
  ];
}
