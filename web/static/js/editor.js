// The scenario editor (docs/scenario-library.md): a club's library of scenarios, and one scenario's
// draft -- paint terrain (click or drag), set hexside features, move set-up hexes, edit the counter
// sheet (CSV in and out), see every error and placeholder at its place, undo and redo, publish.
// Every edit is a change sent to the API; the page redraws from the draft the server answers.
import { api, currentUser, explain } from "./api.js";
import { clear, h, plural, toast } from "./dom.js";
import { drawHexes, drawTable, terrainColour } from "./editor_map.js";
import { scanSection } from "./editor_scan.js";
import { dragUnit, fieldWords, renderUnits, unwrap } from "./editor_units.js";
import { onSubmit } from "./forms.js";
import { pagedList } from "./paged.js";

const root = document.getElementById("editor-page");
const $ = (x) => document.getElementById(x);
const HEXSIDE_FEATURES = ["river", "road", "rail", "strait", "impassable"];

const st = {
  scenario: null, // the API's view of the scenario
  board: null,
  mode: "terrain",
  brush: null, // terrain or hexside feature chosen
  unit: null, // the counter whose set-up hex a click sets
  first: null, // the first hex of a hexside
  painting: null, // {hexes: Set} while dragging
  undo: [],
  redo: [],
  scale: window.innerWidth < 600 ? 14 : 22,
  scan: null, // the "Printed map" section (editor_scan.js)
};

const status = (text) => ($("ed-status").textContent = text);
const isTable = () => !!(st.scenario && st.scenario.document && st.scenario.document.table);

// The title of the scenario a club's scenario started from (its id only when no title is known).
function baseTitle(systems, system, base) {
  if (base === "blank") return "a blank map";
  const found = systems.find((x) => x.name === system);
  const scenario = found && found.scenarios.find((x) => x.id === base);
  return scenario ? scenario.title : base;
}

// -- the library ------------------------------------------------------------------------------------
async function showLibrary(club) {
  const [found, systems, me] = await Promise.all([api(`/api/clubs/${encodeURIComponent(club)}`), api("/api/systems"), currentUser()]);
  $("ed-title").textContent = `${found.name}: scenarios`;
  $("library").hidden = false;
  // by title, a page at a time ("More scenarios" appends the next)
  const body = h("tbody", {});
  clear(
    $("library-table"),
    h("caption", { class: "visually-hidden" }, "The club's scenarios"),
    h("thead", {}, h("tr", {}, ["Title", "System", "From", "Sharing", "Latest version", "Hash"].map((x) => h("th", { scope: "col" }, x)))),
    body,
  );
  await pagedList({
    path: `/api/clubs/${found.id}/scenarios`,
    list: body,
    more: $("library-more"),
    row: (r) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, h("a", { href: `/club-scenarios/${r.id}` }, r.title)),
        h("td", {}, (systems.find((x) => x.name === r.system) || {}).title || r.system),
        h("td", {}, baseTitle(systems, r.system, r.base)),
        h("td", {}, r.sharing),
        h("td", {}, r.latest ? `version ${r.latest}` : "not published"),
        h("td", { class: "hash" }, r.hash ? r.hash.slice(0, 19) + "…" : ""),
      ),
    empty: () => h("tr", {}, h("td", { colspan: 6 }, "No scenario yet.")),
  });
  const admin = me && (found.viewer_roles || []).includes("admin");
  const form = $("create-form");
  form.hidden = !admin;
  const systemSelect = form.elements.system;
  const baseSelect = form.elements.base;
  const fillBases = () => {
    const system = systems.find((x) => x.name === systemSelect.value);
    clear(baseSelect, (system ? system.scenarios : []).map((sc) => h("option", { value: sc.id }, sc.title)));
  };
  clear(systemSelect, systems.map((x) => h("option", { value: x.name }, x.title)));
  systemSelect.addEventListener("change", fillBases);
  fillBases();
  onSubmit(form, async (data) => {
    const made = await api(`/api/clubs/${found.id}/scenarios`, { method: "POST", body: { system: data.system, base: data.base, title: data.title } });
    window.location.assign(`/club-scenarios/${made.id}`);
  });
}

// -- the editor ---------------------------------------------------------------------------------------
function errorsByPlace() {
  const map = new Map();
  for (const e of st.scenario.errors || []) {
    if (!map.has(e.place)) map.set(e.place, []);
    map.get(e.place).push(e);
  }
  return map;
}

function unitsByHex() {
  const map = new Map();
  for (const raw of unwrap(st.scenario.document.units) || []) {
    const u = unwrap(raw);
    const hex = unwrap(u.hex);
    if (!hex) continue;
    if (!map.has(hex)) map.set(hex, []);
    map.get(hex).push(unwrap(u.name) || u.id);
  }
  return map;
}

// Edits go to the server one after another, in the order they were made (a later one never lands
// first, and the undo list keeps their order); the editor says aria-busy while any is on its way.
let queued = Promise.resolve();
let sending = 0;
function send(changes, inverse) {
  sending += 1;
  $("editor").setAttribute("aria-busy", "true");
  const run = queued.then(() => sendNow(changes, inverse));
  queued = run.catch(() => {});
  return run.finally(() => {
    sending -= 1;
    if (!sending) $("editor").removeAttribute("aria-busy");
  });
}

async function sendNow(changes, inverse) {
  $("ed-publish-error").textContent = "";
  try {
    st.scenario = await api(`/api/club-scenarios/${st.scenario.id}/edits`, { method: "POST", body: { changes } });
    if (inverse) {
      st.undo.push({ changes, inverse });
      st.redo = [];
    }
    await redraw();
    return true;
  } catch (err) {
    status(explain(err));
    return false;
  }
}

function terrainOf(hex) {
  const cell = st.board && st.board.hexes.find((x) => x.hex === hex);
  return cell ? cell.terrain : null;
}

function featuresOf(a, b) {
  const side = (st.board.hexsides || []).find((x) => (x.hexes[0] === a && x.hexes[1] === b) || (x.hexes[0] === b && x.hexes[1] === a));
  return side ? side.features : [];
}

function unitDoc(id) {
  return (unwrap(st.scenario.document.units) || []).map(unwrap).find((u) => u.id === id);
}

const handlers = {
  down(hex) {
    if (st.scan && st.scan.takeHex(hex)) return; // the printed map section is open: it picks
    if (st.mode === "terrain" || st.mode === "feature") {
      st.painting = new Set([hex]);
      highlight(hex);
    } else if (st.mode === "hexside") {
      if (!st.first) {
        st.first = hex;
        $("ed-hint").textContent = `Hexside from ${hex}: now click the hex on the other side.`;
        highlight(hex);
      } else {
        const [a, b] = [st.first, hex];
        st.first = null;
        $("ed-hint").textContent = "";
        if (a === b) return redraw();
        const before = featuresOf(a, b);
        const after = st.brush === "none" ? [] : Array.from(new Set([...before, st.brush]));
        send([{ kind: "hexside", hexes: [a, b], features: after }], [{ kind: "hexside", hexes: [a, b], features: before }]);
      }
    } else if (st.mode === "place") {
      namePlace(hex);
    } else if (st.mode === "setup" && st.unit) {
      const before = unwrap(unitDoc(st.unit)?.hex) || null;
      send([{ kind: "setup", unit: st.unit, hex }], [{ kind: "setup", unit: st.unit, hex: before }]);
    }
  },
  // a counter dragged onto a hex (from the counter sheet or the set-up palette): its set-up hex
  drop(hex, unit) {
    if (!unitDoc(unit)) return;
    const before = unwrap(unitDoc(unit).hex) || null;
    if (before === hex) return;
    send([{ kind: "setup", unit, hex }], [{ kind: "setup", unit, hex: before }]);
  },
  over(hex) {
    if (st.painting && !st.painting.has(hex)) {
      st.painting.add(hex);
      highlight(hex);
    }
  },
};

function highlight(hex) {
  const g = $("ed-map").querySelector(`[data-hex="${hex}"] polygon`);
  if (g) g.setAttribute("fill", st.mode === "terrain" ? terrainColour(st.brush, terrainTypes()) : "#ffe08a");
}

document.addEventListener("pointerup", () => {
  if (!st.painting) return;
  if (st.mode === "feature") {
    const hexes = [...st.painting];
    st.painting = null;
    const features = st.brush === "none" ? [] : [st.brush];
    send(
      hexes.map((hex) => ({ kind: "hex_features", hex, features })),
      hexes.map((hex) => ({ kind: "hex_features", hex, features: (st.board.hex_features || {})[hex] || [] })),
    );
    return;
  }
  const hexes = [...st.painting].filter((x) => terrainOf(x) !== st.brush);
  st.painting = null;
  if (!hexes.length) return;
  const changes = hexes.map((hex) => ({ kind: "terrain", hex, terrain: st.brush }));
  const inverse = hexes.map((hex) => ({ kind: "terrain", hex, terrain: terrainOf(hex) }));
  send(changes, inverse);
});

function hexFeatureNames() {
  const names = new Set(["town", "city"]);
  for (const list of Object.values(st.board ? st.board.hex_features || {} : {})) for (const name of list) names.add(name);
  return [...names];
}

async function namePlace(hex) {
  const here = (st.board.places || []).find((p) => p.hex === hex);
  const name = window.prompt(`Name of the place in ${hex}`, here ? here.name : "");
  if (!name) return;
  const kind = window.prompt("Its kind (objective, city, set-up area …)", here ? here.kind : "objective") || "";
  const vp = window.prompt("Victory points (empty: none)", here && here.values.vp !== undefined ? String(here.values.vp) : "");
  const values = vp && !Number.isNaN(Number(vp)) ? { vp: Number(vp) } : {};
  const inverse = here ? [{ kind: "place", name: here.name, hex: here.hex, place_kind: here.kind, values: here.values }] : [{ kind: "place_removed", name }];
  await send([{ kind: "place", name, hex, place_kind: kind, values }], inverse);
}

function terrainTypes() {
  const map = unwrap(st.scenario.document.map) || {};
  const types = unwrap(map.terrain_types);
  return types && types.length ? types : [unwrap(map.default_terrain) || "clear"];
}

function renderModes() {
  const modes = isTable()
    ? [["objective", "place an objective"], ["entry", "set an entry point"]]
    : [["terrain", "paint terrain"], ["feature", "set a hex's feature"], ["hexside", "set a hexside"], ["place", "name a place"], ["setup", "set a counter's set-up hex"]];
  if (!modes.some(([m]) => m === st.mode)) st.mode = modes[0][0];
  clear(
    $("ed-modes"),
    h("legend", {}, "Click on the map to"),
    modes.map(([mode, label]) =>
      h("label", { class: "choice" }, h("input", { type: "radio", name: "mode", value: mode, checked: st.mode === mode ? true : null, onchange: () => { st.mode = mode; st.first = null; renderPalette(); } }), ` ${label}`),
    ),
  );
  renderPalette();
}

function renderPalette() {
  const palette = $("ed-palette");
  let options = [];
  if (st.mode === "terrain") options = terrainTypes();
  else if (st.mode === "hexside") options = [...HEXSIDE_FEATURES, "none"];
  else if (st.mode === "feature") options = [...hexFeatureNames(), "none"];
  if (st.mode === "place") {
    clear(palette);
    $("ed-hint").textContent = "Click the hex the place stands on: you are asked its name, kind and victory points.";
    return;
  }
  if (st.mode === "setup") {
    const units = (unwrap(st.scenario.document.units) || []).map(unwrap);
    if (!st.unit && units.length) st.unit = units[0].id;
    clear(
      palette,
      h("label", {}, "Counter ", h("select", { onchange: (ev) => { st.unit = ev.target.value; renderPalette(); } }, units.map((u) => h("option", { value: u.id, selected: u.id === st.unit ? true : null }, `${unwrap(u.name) || u.id} (${unwrap(u.hex) || "no set-up hex"})`)))),
      st.unit ? h("span", { class: "ed-swatch ed-drag", draggable: "true", title: "Drag onto a hex", ondragstart: (ev) => dragUnit(ev, st.unit) }, `⠿ ${unwrap(unitDoc(st.unit)?.name) || st.unit}`) : null,
    );
    $("ed-hint").textContent = "Click the hex the counter sets up in, or drag it (here or from the counter sheet) onto the hex.";
    return;
  }
  if (isTable()) {
    clear(palette);
    $("ed-hint").textContent = st.mode === "objective" ? "Click the table where the objective stands (inches, to the half inch)." : "Click where the side enters.";
    return;
  }
  if (!options.includes(st.brush)) st.brush = options[0];
  clear(
    palette,
    options.map((name) =>
      h(
        "label",
        { class: `ed-swatch${st.brush === name ? " chosen" : ""}` },
        h("input", { type: "radio", name: "brush", value: name, checked: st.brush === name ? true : null, onchange: () => { st.brush = name; renderPalette(); } }),
        st.mode === "terrain" ? h("span", { class: "ed-chip", style: `background:${terrainColour(name, options)}` }) : null,
        ` ${name}`,
      ),
    ),
  );
  $("ed-hint").textContent = {
    terrain: "Click a hex, or drag across several, to paint them.",
    feature: "Click a hex, or drag across several, to give them this feature (none clears them).",
    hexside: "Click a hex, then the hex across the edge.",
  }[st.mode];
}

async function onTablePoint(point) {
  if (st.mode === "objective") {
    const name = window.prompt("Objective name");
    if (!name) return;
    await send([{ kind: "objective", name, point, values: { vp: 1 } }], [{ kind: "objective_removed", name }]);
  } else {
    const sides = unwrap(st.scenario.document.sides) || [];
    const side = window.prompt(`Entry point of which side? (${sides.join(", ")})`, sides[0]);
    if (!side) return;
    const before = (unwrap(st.scenario.document.entries) || {})[side];
    await send([{ kind: "entry_point", side, point }], before ? [{ kind: "entry_point", side, point: before }] : null);
  }
}

function undoButtons() {
  $("ed-undo").disabled = !st.undo.length;
  $("ed-redo").disabled = !st.redo.length;
}

async function redraw() {
  const sc = st.scenario;
  $("ed-title").textContent = sc.title;
  $("ed-system").textContent = `${st.systemTitle || sc.system} · from ${baseTitle(st.systems || [], sc.system, sc.base)} · ${sc.club_name}`;
  $("ed-versions").textContent = sc.latest ? `published version ${sc.latest} (${sc.versions[sc.versions.length - 1].hash.slice(0, 19)}…)` : "not published yet";
  $("ed-complete").value = sc.completeness;
  $("ed-complete-text").textContent = `${sc.completeness}% of the placeholders dealt with`;
  $("ed-sharing").value = sc.sharing;
  $("ed-sharing").disabled = !sc.may_edit;
  $("ed-publish").disabled = !sc.may_edit || !sc.publishable;
  $("ed-publish").title = sc.publishable ? "" : "Correct the errors first";
  undoButtons();
  const errors = errorsByPlace();
  if (isTable()) {
    st.board = await api(`/api/club-scenarios/${sc.id}/board`);
    drawTable($("ed-map"), st.board, { errors }, onTablePoint, st.scale * 0.7);
  } else {
    try {
      st.board = await api(`/api/club-scenarios/${sc.id}/board`);
      st.board.terrain_types = terrainTypes();
      drawHexes($("ed-map"), st.board, { errors, units: unitsByHex(), selected: st.first }, handlers, st.scale);
      if (st.mode === "setup") renderPalette(); // the counters' set-up hexes as they now are
    } catch (err) {
      clear($("ed-map"), h("p", { class: "error" }, explain(err)));
    }
  }
  renderProblems(errors);
  renderUnits($("ed-units"), sc.document, errors, (unit, field, value) => {
    const before = unitDoc(unit);
    const old = field.startsWith("values.") ? unwrap((unwrap(before.values) || {})[field.slice(7)]) : unwrap(before[field]);
    send([{ kind: "unit_edited", unit, field, value }], [{ kind: "unit_edited", unit, field, value: old === undefined ? null : old }]);
  });
  $("ed-csv-export").href = `/api/club-scenarios/${sc.id}/units.csv`;
  renderVersions();
  if (st.scan) st.scan.refresh();
}

function jump(item) {
  const hex = /^hex (\S+)/.exec(item.place);
  if (hex) {
    const g = $("ed-map").querySelector(`[data-hex="${hex[1]}"]`);
    if (g) {
      g.scrollIntoView({ block: "center", inline: "center" });
      g.classList.add("flash");
      setTimeout(() => g.classList.remove("flash"), 1600);
    }
    return;
  }
  const unit = /^unit (\S+)/.exec(item.place);
  if (unit) {
    const row = document.querySelector(`tr[data-unit="${CSS.escape(unit[1])}"]`);
    const field = item.field.replace(/^units\[\d+\]\.?/, "");
    const input = row && (row.querySelector(`[data-field="${CSS.escape(field)}"]`) || row.querySelector("input,select"));
    if (input) input.focus();
    return;
  }
  $("ed-hint").textContent = `${placeWords(item)}: ${item.reason || item.note}`;
}

// Where a problem or placeholder is, in words: a counter by its printed name (the server's place
// names it by id: "unit n-19-div"), a field of the scenario by what it is ("field map.orientation"
// -> "the map's hex orientation"); a counter's field is added ("19 Div, strength").
function placeWords(item) {
  const place = String(item.place || "");
  const named = (id) => {
    const u = unitDoc(id);
    return (u && unwrap(u.name)) || "a counter without a name";
  };
  const unit = /^unit (\S+)$/.exec(place);
  if (unit) {
    const field = fieldWords(item.field);
    return `counter ${named(unit[1])}${field && field !== "name" ? `, ${field}` : ""}`;
  }
  const reinforcement = /^reinforcement of (\S+)$/.exec(place);
  if (reinforcement) return `reinforcement of ${named(reinforcement[1])}`;
  const field = /^field (.+)$/.exec(place);
  if (field) return fieldWords(field[1]) || "the scenario";
  return place;
}

function renderProblems(errors) {
  const sc = st.scenario;
  $("ed-error-count").textContent = `(${sc.errors.length})`;
  $("ed-placeholder-count").textContent = `(${sc.placeholders.length})`;
  clear(
    $("ed-errors"),
    sc.errors.length ? sc.errors.map((e) => h("li", { class: "error" }, h("button", { type: "button", class: "link", onclick: () => jump(e) }, placeWords(e)), `: ${e.reason}`)) : h("li", {}, "None: the scenario can be published."),
  );
  const shown = sc.placeholders.slice(0, 200);
  clear(
    $("ed-placeholders"),
    shown.map((p) =>
      h(
        "li",
        {},
        h("button", { type: "button", class: "link", onclick: () => jump(p) }, placeWords(p)),
        `: ${p.note} `,
        sc.may_edit ? h("button", { type: "button", class: "link", "aria-label": `${placeWords(p)} is right as it stands`, onclick: () => confirmPlaceholder(p) }, "it is right") : null,
      ),
    ),
    sc.placeholders.length > shown.length ? h("li", { class: "note" }, `and ${sc.placeholders.length - shown.length} more`) : null,
  );
}

// The club checked a placeholder against the box and found it right: it stops being one.
function confirmPlaceholder(p) {
  const change = p.field === "placeholder" ? { kind: "field", path: "placeholder", value: false } : { kind: "confirm", path: p.field };
  return send([change], null);
}

function renderVersions() {
  const form = $("diff-form");
  const versions = st.scenario.versions.map((v) => v.version);
  const keep = (select, options) => {
    const value = select.value;
    clear(select, options.map(([v, label]) => h("option", { value: v }, label)));
    if (options.some(([v]) => String(v) === value)) select.value = value;
  };
  keep(form.elements.from, versions.map((v) => [v, `version ${v}`]));
  keep(form.elements.to, [...versions.map((v) => [v, `version ${v}`]), ["draft", "the draft"]]);
  if (!form.elements.to.dataset.touched) form.elements.to.value = "draft";
  form.hidden = !versions.length;
}

async function showEditor(id) {
  $("editor").hidden = false;
  st.scenario = await api(`/api/club-scenarios/${id}`);
  if (!st.scenario.document) {
    status("Only the club's members see the draft; published versions can be played and forked.");
    $("editor").hidden = true;
    return;
  }
  try {
    const system = await api(`/api/systems/${st.scenario.system}`);
    st.systems = [system];
    st.systemTitle = system.title;
  } catch (err) {
    st.systems = [];
  }
  if (!st.scenario.may_edit) status("You may read this scenario; only the club's organisers (admins) edit it.");
  renderModes();
  st.scan = scanSection({
    scenario: () => st.scenario,
    board: () => st.board,
    terrainTypes,
    palette: renderPalette,
    reload: async () => {
      st.scenario = await api(`/api/club-scenarios/${st.scenario.id}`);
      await redraw();
    },
    // a proposal accepted: the draft the server answered, and the edits it made (for undo)
    accepted: async (scenario, changes, inverse) => {
      st.scenario = scenario;
      if (changes.length) {
        st.undo.push({ changes, inverse });
        st.redo = [];
      }
      await redraw();
    },
  });
  await redraw();
  // an undone (redone) edit moves to the other list once the server has it, or back to its own
  // list if it refused; the page was drawn by the edit itself (drawn again, it once replaced a
  // field of the counter sheet the person was already typing in)
  $("ed-undo").addEventListener("click", async () => {
    const step = st.undo.pop();
    if (step) ((await send(step.inverse)) ? st.redo : st.undo).push(step);
    undoButtons();
  });
  $("ed-redo").addEventListener("click", async () => {
    const step = st.redo.pop();
    if (step) ((await send(step.changes)) ? st.undo : st.redo).push(step);
    undoButtons();
  });
  $("ed-publish").addEventListener("click", async () => {
    $("ed-publish-error").textContent = "";
    try {
      st.scenario = await api(`/api/club-scenarios/${st.scenario.id}/versions`, { method: "POST", body: {} });
      toast(`Published version ${st.scenario.latest}`);
      await redraw();
    } catch (err) {
      $("ed-publish-error").textContent = explain(err);
    }
  });
  $("ed-sharing").addEventListener("change", async (ev) => {
    try {
      st.scenario = await api(`/api/club-scenarios/${st.scenario.id}/sharing`, { method: "PUT", body: { sharing: ev.target.value } });
      toast(`Now ${st.scenario.sharing}`);
    } catch (err) {
      status(explain(err));
    }
  });
  $("ed-add-unit").addEventListener("click", async () => {
    const units = (unwrap(st.scenario.document.units) || []).map(unwrap);
    const model = units[units.length - 1] || { side: (unwrap(st.scenario.document.sides) || [""])[0], type: "infantry", values: {} };
    let n = units.length + 1;
    while (units.some((u) => u.id === `new-${n}`)) n += 1;
    const unit = { id: `new-${n}`, side: unwrap(model.side), type: unwrap(model.type), name: `New counter ${n}`, values: Object.fromEntries(Object.keys(unwrap(model.values) || {}).map((k) => [k, 0])) };
    if (await send([{ kind: "unit_added", unit }], [{ kind: "unit_removed", unit: unit.id }])) toast(`Added ${unit.name}: give it a set-up hex or a reinforcement turn`);
  });
  $("ed-csv-import").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    try {
      const result = await api(`/api/club-scenarios/${st.scenario.id}/units.csv`, { method: "POST", body: { csv: await file.text() } });
      st.scenario = result;
      st.undo = [];
      st.redo = [];
      toast(`${plural(result.changes, "change")} from ${file.name}`);
      await redraw();
    } catch (err) {
      status(explain(err));
    }
    ev.target.value = "";
  });
  const form = $("diff-form");
  form.elements.to.addEventListener("change", () => (form.elements.to.dataset.touched = "1"));
  onSubmit(form, async (data) => {
    const diff = await api(`/api/club-scenarios/${st.scenario.id}/diff?from=${encodeURIComponent(data.from)}&to=${encodeURIComponent(data.to)}`);
    clear($("ed-diff"), diff.changes.length ? diff.changes.map((line) => h("li", {}, line)) : h("li", {}, "Nothing changed."));
  });
}

(async () => {
  try {
    if (root.dataset.scenario) await showEditor(root.dataset.scenario);
    else await showLibrary(root.dataset.club);
  } catch (err) {
    status(explain(err));
  }
})();
