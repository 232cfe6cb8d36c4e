// The scenario editor's counter sheet: one row per counter, one input per field and value, each
// problem shown in its row.  A changed input is one `unit_edited` change sent by the page.
import { clear, h, sideName } from "./dom.js";

const FIELDS = ["side", "type", "name", "steps", "hex"];

// What a counter dragged onto the map carries (its id): the map sets it up in the hex it is dropped on.
export const UNIT_DRAG = "application/x-arbiter-unit";

export function dragUnit(ev, id) {
  ev.dataTransfer.setData(UNIT_DRAG, id);
  ev.dataTransfer.setData("text/plain", id);
  ev.dataTransfer.effectAllowed = "move";
}

export const unwrap = (v) => (v && typeof v === "object" && !Array.isArray(v) && "placeholder" in v && "value" in v ? unwrap(v.value) : v);
const isPlaceholder = (v) => !!(v && typeof v === "object" && !Array.isArray(v) && v.placeholder === true && "value" in v);

export function valueKeys(units) {
  const keys = [];
  for (const u of units) for (const k of Object.keys(unwrap(u.values) || {})) if (!keys.includes(k)) keys.push(k);
  return keys;
}

// A typed cell as the value it stands for: a number when it reads as one, empty as none.
export function parseCell(text) {
  const t = String(text).trim();
  if (t === "") return null;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

// A scenario field's path in words, for the organiser: "units[1].values.strength" -> "strength",
// "map.orientation" -> "the map's hex orientation"; never the path itself.
const FIELD_WORDS = {
  "map.orientation": "the map's hex orientation",
  "map.offset": "the map's offset parity",
  "map.default_terrain": "the map's default terrain",
  "map.coordinates": "the map's hex numbering",
  "map.bounds": "the map's size",
  "map.terrain_types": "the map's terrain types",
  "map.supply_sources": "the supply sources",
  "map.notes": "the map's notes",
  placeholder: "the scenario as a whole",
  turns: "the game's length in turns",
};
export function fieldWords(path) {
  const p = String(path || "");
  if (FIELD_WORDS[p]) return FIELD_WORDS[p];
  const words = p.replace(/^units\[\d+\]\.?/, "").replace(/\[\d+\]/g, "").split(".").filter(Boolean);
  const last = words.filter((w) => !/^[A-Z]+\d+$/.test(w) && w !== "values").pop() || "";
  return last.replace(/_/g, " ");
}

// Render the table.  `errors`: Map("unit <id>" -> [{field, reason}]); `onEdit(unit, field, value)`.
export function renderUnits(table, doc, errors, onEdit) {
  const units = (unwrap(doc.units) || []).map((u) => unwrap(u));
  const keys = valueKeys(units);
  const sides = unwrap(doc.sides) || [];
  const cell = (unit, index, field, raw) => {
    const value = unwrap(raw);
    const label = `${unit.name || unit.id} ${field.replace("values.", "")}`;
    const unitErrors = errors.get(`unit ${unit.id}`) || [];
    const wrong = unitErrors.some((e) => e.field === `units[${index}].${field}` || e.field.startsWith(`units[${index}].${field}`));
    const attrs = {
      value: value === undefined || value === null ? "" : String(value),
      "aria-label": label,
      "aria-invalid": wrong ? "true" : null,
      class: isPlaceholder(raw) ? "placeholder" : null,
      title: isPlaceholder(raw) ? `placeholder: ${raw.note || ""}` : null,
      size: field === "name" ? 12 : 5,
      "data-field": field,
      onchange: (ev) => onEdit(unit.id, field, field === "side" || field === "type" || field === "name" ? ev.target.value || null : parseCell(ev.target.value)),
    };
    if (field === "side" && sides.length) {
      return h("td", {}, h("select", { ...attrs, value: null, size: null }, sides.map((s) => h("option", { value: s, selected: s === value ? true : null }, sideName(s)))));
    }
    return h("td", {}, h("input", attrs));
  };
  clear(
    table,
    h("caption", { class: "visually-hidden" }, "Counters"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Counter"), FIELDS.map((f) => h("th", { scope: "col" }, f)), keys.map((k) => h("th", { scope: "col" }, k)), h("th", { scope: "col" }, "Problems"))),
    h(
      "tbody",
      {},
      units.map((unit, index) => {
        const raw = (unwrap(doc.units) || [])[index];
        const rawUnit = unwrap(raw) || {};
        const unitErrors = errors.get(`unit ${unit.id}`) || [];
        return h(
          "tr",
          { "data-unit": unit.id, class: unitErrors.length ? "has-error" : null },
          h("th", { scope: "row" }, h("span", { draggable: "true", class: "ed-drag", title: "Drag onto a hex of the map to set this counter up there", "aria-label": `drag ${unit.name || unit.id} onto a hex`, ondragstart: (ev) => dragUnit(ev, unit.id) }, "⠿ ", unit.name || `Counter ${index + 1}`)),
          FIELDS.map((f) => cell(unit, index, f, rawUnit[f])),
          keys.map((k) => cell(unit, index, `values.${k}`, (unwrap(rawUnit.values) || {})[k])),
          h("td", { class: "error" }, unitErrors.map((e) => h("div", {}, `${fieldWords(e.field) || "counter"}: ${e.reason}`))),
        );
      }),
    ),
  );
}
