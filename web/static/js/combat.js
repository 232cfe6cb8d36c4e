// Composing an attack (a template with a target hex and a `some_of` of units, see actions.js):
// tick the units among those the server allows, see the server's preview (POST
// /api/games/<id>/preview: odds, every shift and modifier with its rule, computed on what this side
// may see), then confirm.  Nothing about the odds is worked out in the browser.  The same preview
// box serves a shot on a table (a preview with `targets`).
import { api, explain } from "./api.js";
import { choicesOf, command, targetOf } from "./actions.js";
import { countProblem, choiceFields, picksOf } from "./compose.js";
import { describeCounter, formatValue } from "./board.js";
import { clear, h, humanize, ruleWords } from "./dom.js";
import { gridTable, valueWords } from "./aids.js";
import { inches } from "./table.js";

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

// `codes`: the table's key to its result codes ({code: meaning}), when the system has one.
function previewView(preview, crt, codes = null) {
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
      ? h("ul", { class: "modifiers", "aria-label": "Shifts and modifiers" }, rules.map((m) => h("li", {}, m.text, m.rule ? h("span", { class: "rule" }, ` (${ruleWords(m.rule)})`) : "")))
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
    // what each result of the column means, not its code alone
    const seen = [...new Set(crt.rows.map((r) => r.results[i]))].filter((c) => codes && typeof codes === "object" && codes[c] !== undefined);
    if (seen.length) lines.push(h("dl", { class: "codes column-codes", "aria-label": "What the column's results mean" }, seen.map((c) => [h("dt", {}, c), h("dd", {}, valueWords(codes[c]))])));
  }
  return lines;
}

// The table a preview is read on: the one it names, else one named like the command, else the CRT.
function tableName(system, preview, command) {
  if (preview.table) return preview.table;
  return (system.tables || []).includes(command.type) ? command.type : "crt";
}

// A shot's preview: per target the range, the score needed and every modifier with its heading,
// or the 2d6 KO numbers against an AFV.
function shotView(p, name) {
  const parts = [];
  if (p.may_fire_now === false) parts.push(h("p", { class: "over" }, "This weapon may not fire now."));
  for (const t of p.targets || []) {
    const lines = [h("strong", {}, `${name(t.target)}: `), `${inches(t.distance)} of ${inches(t.range)} range`];
    if (t.refused) lines.push(h("span", { class: "over" }, ` — refused: ${t.refused}`));
    if (t.needed !== undefined) lines.push(h("span", { id: "shot-needed" }, ` — hits on ${t.needed}+`));
    if (t.modifier_total) lines.push(` (modifiers ${t.modifier_total > 0 ? "+" : ""}${t.modifier_total})`);
    if (t.ko) lines.push(` — 2d6 KO on ${t.ko.join(", ")}${t.bonus ? ` (+${t.bonus})` : ""} (AFVs)`);
    if (t.template_ko) lines.push(` — template: KO on ${t.template_ko.join(", ")}`);
    parts.push(h("p", {}, lines));
    if ((t.modifiers || []).length) {
      parts.push(h("ul", { class: "modifiers", "aria-label": "Modifiers" }, t.modifiers.map((m) => h("li", {}, `${m.modifier || m.cause}: ${m.value > 0 ? "+" : ""}${m.value}`, m.rule ? h("span", { class: "rule" }, ` (${m.rule})`) : ""))));
    } else if (t.needed !== undefined) parts.push(h("p", {}, "No modifiers."));
  }
  const notes = p.weapon_list && p.weapon_list.notes;
  if (notes && notes.length) parts.push(h("p", { class: "note" }, `${p.weapon}: ${notes.join("; ")}`));
  return parts;
}

// Ask the server's preview of `cmd` into `box` (the latest question wins).  `name(id)` words a unit.
let asked = 0;
// `quiet`: an order the server has no preview for shows nothing (the box is emptied).
export async function showPreview({ game, side, system, cmd, box, name = (x) => x, quiet = false }) {
  const mine = ++asked;
  // only what the rules preview (a deployment, say, has nothing to preview: never asked)
  if (!(system.previews || []).includes(cmd.type)) {
    clear(box);
    return;
  }
  clear(box, h("p", {}, "Asking the server…"));
  // busy until the answer is shown: what lies below it (Confirm) may still move
  box.setAttribute("aria-busy", "true");
  try {
    const body = { command: cmd };
    if (side) body.side = side;
    const preview = await api(`/api/games/${game.id}/preview`, { method: "POST", body });
    if (!preview.odds && !preview.column && !Array.isArray(preview.targets)) {
      if (mine === asked) clear(box, consequencesView(preview));
      return;
    }
    if (Array.isArray(preview.targets)) {
      if (mine === asked) clear(box, shotView(preview, name));
      return;
    }
    const named = tableName(system, preview, cmd);
    const [crt, codes] = await Promise.all([table(system, named), table(system, `${named}_results`)]);
    if (mine === asked) clear(box, previewView(preview, crt, codes), consequencesView(preview));
  } catch (err) {
    if (mine === asked) clear(box, quiet ? null : h("p", {}, `No preview: ${explain(err)}. The server still checks every rule when you confirm.`));
  } finally {
    box.removeAttribute("aria-busy");
  }
}

// A preview of an order that is not a combat: what it costs (a move's movement points, hex by hex)
// and what it would trigger automatically (a retreat out of command, an overrun, a forced combat),
// in the server's words with the rule, before Confirm.
export function consequencesView(preview) {
  const items = [...(preview.consequences || []), ...(preview.triggers || []), ...(preview.warnings || [])];
  const text = (c) => (typeof c === "string" ? c : c.text || c.words || c.reason || valueWords(c));
  const rule = (c) => (c.rule ? h("span", { class: "rule" }, ` (${ruleWords(c.rule)})`) : "");
  const costs = (preview.costs || []).filter((c) => c && c.text);
  const parts = [];
  if (costs.length) {
    parts.push(h("div", { class: "note move-costs" }, h("strong", {}, "Movement points: "), h("ul", {}, costs.map((c) => h("li", {}, c.text, rule(c))))));
  }
  if (items.length) {
    parts.push(h("div", { class: "note consequences-list" }, h("strong", {}, "This order will also: "), h("ul", {}, items.map((c) => h("li", {}, text(c), rule(c))))));
  }
  if (!parts.length) return preview.text ? h("p", {}, preview.text) : null;
  return parts;
}

// The outcome of an order, in place: each rules event in the server's sentence; for a combat (an
// event with a `column` and a roll) the table with its column and the roll's row marked, the die,
// the modified roll and the key to the result codes.  What happened to the units is told by the
// events' own words (the losses and retreats that follow are events of the same order), never
// guessed here from the combat's payload.
// A rules event's facts (`data`) that resolve a combat on a table: a column and a roll.
export const resolvesCombat = (p) => p.column !== undefined && Boolean(p.die || p.modified_roll !== undefined);

export function resultView(events, { system, loadTable }) {
  return events.map((e) => {
    // a rules event's facts are its payload's `data` (the record its rules module wrote)
    const p = (e.payload && e.payload.data) || e.payload || {};
    const parts = [h("p", { class: "result-text" }, e.text || humanize(e.type))];
    if (resolvesCombat(p)) {
      const die = p.die && p.die.value !== undefined ? p.die.value : null;
      parts.push(
        h(
          "p",
          { class: "result-roll" },
          `Column ${p.column}`,
          die !== null ? ` · die ${die}` : "",
          p.modified_roll !== undefined ? ` · modified roll ${p.modified_roll}` : "",
          p.result ? [" · result ", h("strong", { class: "result-code" }, p.result)] : "",
        ),
      );
      const grid = h("div", { class: "result-crt" });
      const key = h("div", { class: "result-key" });
      parts.push(grid, key);
      const name = p.table || "crt";
      loadTable(system, name).then((table) => {
        if (!table || !Array.isArray(table.rows)) return;
        const rolls = table.rows.map((r) => r.roll);
        const roll = p.modified_roll !== undefined ? Math.min(Math.max(p.modified_roll, Math.min(...rolls)), Math.max(...rolls)) : die;
        clear(grid, gridTable(table, { column: p.column, roll, caption: `${humanize(name === "crt" ? "combat results" : name)}: column ${p.column}, row ${roll}` }));
      });
      loadTable(system, `${name}_results`).then((codes) => {
        if (!codes || typeof codes !== "object") return;
        clear(
          key,
          p.result && codes[p.result] ? h("p", { class: "result-meaning" }, h("strong", {}, p.result), `: ${valueWords(codes[p.result])}`) : null,
          h("details", {}, h("summary", {}, "Key to every result code"), h("dl", { class: "codes" }, Object.entries(codes).map(([k, v]) => [h("dt", {}, k), h("dd", {}, valueWords(v))]))),
        );
      });
    }
    return h("div", { class: "result-event", "data-type": e.type }, parts);
  });
}

const name = (counters, uid) => {
  const c = counters.find((x) => x.id === uid);
  return c ? describeCounter(c) : uid;
};

// An attack's units start all ticked (up to the most allowed); other choices at their first option.
const everyUnit = (c) => (c.many ? c.options.slice(0, c.max) : c.options[0]);

export function attackPanel({ sel, game, side, counters, system, send, cancel, choose, hexName }) {
  const template = sel.templates[sel.option || 0];
  const target = targetOf(template);
  const defenders = counters.filter((c) => c.hex === target.hex);
  const previewBox = h("div", { class: "preview", "aria-live": "polite" });
  const picks = () => picksOf(template, sel.answers, everyUnit);
  const problem = () => choicesOf(template).map((c) => countProblem(c, picks()[c.name])).find(Boolean);
  const refreshPreview = () => {
    const wrong = problem();
    if (wrong) clear(previewBox, h("p", {}, wrong));
    else showPreview({ game, side, system, cmd: command(template, picks()), box: previewBox });
  };
  const fields = choiceFields(template, sel.answers, { initial: everyUnit, changed: refreshPreview });
  const confirm = h(
    "button",
    { type: "button", id: "confirm", onclick: () => !problem() && send(command(template, picks()), `${template.label}: done`) },
    `Confirm: ${template.label}`,
  );
  const options =
    sel.templates.length > 1
      ? h(
          "fieldset",
          {},
          h("legend", {}, "What"),
          sel.templates.map((t, i) =>
            h("label", { class: "choice" }, h("input", { type: "radio", name: "target-option", checked: i === (sel.option || 0), onchange: () => choose(i) }), ` ${t.label}`),
          ),
        )
      : null;
  refreshPreview();
  setTimeout(() => confirm.focus(), 0);
  return [
    h("h3", {}, template.label),
    options,
    h("p", {}, `In ${hexName(target.hex)}: `, defenders.map(describeCounter).join("; ") || "—"),
    target.units.length ? h("p", { class: "with-units" }, "With: ", target.units.map((uid) => name(counters, uid)).join("; ")) : null,
    fields,
    h("section", { "aria-label": "Preview" }, h("h4", {}, "Preview"), previewBox),
    confirm,
    cancel,
  ];
}
