// The scenario editor's "Printed map" section (docs/scenario-library.md, "Map image"): upload the
// club's scan, calibrate it (click hex centres on the scan, say which hex each is), show example
// hexes and hexsides, see the terrain proposed from the scan over it, lowest confidence first, and
// accept all of it or hex by hex. The page (editor.js) owns the draft: this module asks it to
// reload after a write, and takes clicks on the editor's own hex map while the section is open.
import { ApiError, api, inWords } from "./api.js";
import { clear, h, s, toast } from "./dom.js";
import { terrainColour } from "./editor_map.js";
import { unwrap } from "./editor_units.js";

const $ = (x) => document.getElementById(x);
const MAX_BYTES = 20 * 1024 * 1024;
const TYPES = { "image/png": "PNG", "image/jpeg": "JPEG" };
// Every hexside feature the API reads (HEXSIDE_FEATURES in service/application/map_images.py), each
// drawn over the scan in its own colour, and named in words wherever it is shown.
const SIDE_FEATURES = ["river", "road", "rail", "strait", "impassable"];
const SIDE_COLOURS = { river: "#1f5fbf", road: "#b3261e", rail: "#1b1b1b", strait: "#0b8a8f", impassable: "#7b2cbf" };
const PAGE = 60;
const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";

const number = (n) => Number(n).toLocaleString("en-GB");
const px = (n) => `${Number(n).toFixed(1)} px`;
const percent = (c) => `${Math.round(Number(c) * 100)} %`;

// `page`: {scenario(), board(), terrainTypes(), reload(), accepted(scenario, changes, inverse),
// palette()} -- palette() redraws the editor's palette and its hint
export function scanSection(page) {
  const sc = {
    sha: null,
    points: [], // [{hex, x, y, problem}]: kept (a refused fit too) until a fit is accepted
    fit: null, // {residual_px, per_point}
    pick: "point",
    first: null, // the first hex of an example hexside
    proposal: null,
    untickedHexes: new Set(),
    untickedSides: new Set(),
    shown: PAGE,
    terrains: "",
  };
  const section = $("scan");
  const details = $("scan-details");

  const scenario = () => page.scenario();
  const mapDoc = () => unwrap(scenario().document.map) || {};
  const image = () => unwrap(mapDoc().image) || null;
  const base = () => `/api/club-scenarios/${scenario().id}/map-image`;

  // -- upload ------------------------------------------------------------------------------------
  $("scan-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    const error = $("scan-upload-error");
    error.textContent = "";
    if (!file) return;
    if (!TYPES[file.type]) {
      error.textContent = `${file.name} is not a PNG or JPEG image: save the scan as one of those.`;
      ev.target.value = "";
      return;
    }
    if (file.size > MAX_BYTES) {
      error.textContent = `${file.name} is ${number(Math.ceil(file.size / 1024 / 1024))} MB: at most 20 MB. Scan at a lower resolution or save as JPEG.`;
      ev.target.value = "";
      return;
    }
    $("scan-facts").textContent = `Sending ${file.name} …`;
    try {
      const response = await fetch(base(), { method: "POST", body: file, headers: { "Content-Type": file.type, "X-CSRF-Token": csrf, Accept: "application/json" }, credentials: "same-origin" });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) throw new ApiError(response.status, body);
      forgetKept();
      sc.points = [];
      sc.fit = null;
      sc.proposal = null;
      toast(`Scan kept: ${number(body.width)} × ${number(body.height)} pixels`);
      await page.reload();
    } catch (err) {
      error.textContent = inWords(err, { image: "The scan" });
      refresh();
    }
    ev.target.value = "";
  });

  // -- what a click gives ------------------------------------------------------------------------
  function renderPicks() {
    const options = [["point", "a calibration point"], ...terrains().map((t) => [`t:${t}`, `an example of ${t}`]), ...SIDE_FEATURES.map((f) => [`s:${f}`, `an example ${f} hexside`])];
    if (!options.some(([v]) => v === sc.pick)) sc.pick = "point";
    clear(
      $("scan-click"),
      h("legend", {}, "A click on the scan (or on the map below) gives"),
      options.map(([value, label]) =>
        h("label", { class: "choice" }, h("input", { type: "radio", name: "scan-pick", value, checked: sc.pick === value ? true : null, onchange: () => choose(value) }), ` ${label}`),
      ),
    );
  }

  function choose(value) {
    sc.pick = value;
    sc.first = null;
    hint();
  }

  function hint() {
    const text = sc.pick === "point"
      ? "Click the centre of a hex on the scan, then the same hex on the map below (or type its label)."
      : sc.pick.startsWith("t:")
        ? `Click hexes of ${sc.pick.slice(2)} on the scan or on the map below.`
        : sc.first
          ? `Hexside from ${sc.first}: now click the hex on the other side.`
          : `Click a hex beside a ${sc.pick.slice(2)}, then the hex across it.`;
    say(text);
  }

  // What a click gives now, said beside the scan and under the editor's palette
  function say(text) {
    $("scan-hint").textContent = text;
    $("ed-hint").textContent = `Printed map: ${text}`;
  }

  function terrains() {
    return page.terrainTypes();
  }

  // A hex clicked on the editor's map or on the scan's fitted grid. True when taken.
  function takeHex(hex) {
    if (section.hidden || !details.open || !image()) return false;
    if (sc.pick === "point") {
      const form = $("scan-point");
      form.elements.hex.value = hex;
      if (form.elements.x.value !== "" && form.elements.y.value !== "") addPoint();
      else form.elements.x.focus();
    } else if (sc.pick.startsWith("t:")) {
      const input = $(`scan-ex-${sc.pick.slice(2)}`);
      const list = words(input.value);
      input.value = (list.includes(hex) ? list.filter((x) => x !== hex) : [...list, hex]).join(" ");
      drawMarks();
    } else if (!sc.first) {
      sc.first = hex;
    } else {
      const input = $(`scan-ex-${sc.pick.slice(2)}`);
      if (sc.first !== hex) input.value = [...words(input.value), `${sc.first}/${hex}`].join(" ");
      sc.first = null;
      drawMarks();
    }
    hint();
    return true;
  }

  const words = (text) => String(text).split(/[\s,;]+/).filter(Boolean);

  // -- the scan and what lies over it ---------------------------------------------------------------
  let svg = null;
  let img = null;
  let gridLayer = null;
  let markLayer = null;

  function drawScan() {
    const im = image();
    const view = $("scan-view");
    const zoom = $("scan-zoom").value;
    const wanted = zoom === "fit" ? Math.min(im.width, Math.ceil((view.clientWidth || 800) * (window.devicePixelRatio || 1))) : im.width;
    const stage = h("div", { class: "scan-stage" });
    if (zoom !== "fit") stage.style.width = `${im.width}px`;
    img = h("img", { class: "scan-img", src: `${base()}?width=${wanted}`, alt: "The club's scan of the printed map", width: im.width, height: im.height });
    svg = s("svg", { class: "scan-overlay", viewBox: `0 0 ${im.width} ${im.height}`, preserveAspectRatio: "none", role: "group", "aria-label": "The scan: click a hex centre to calibrate, or a hex for an example" });
    gridLayer = s("g", { class: "scan-grid" });
    markLayer = s("g", { class: "scan-marks" });
    svg.append(gridLayer, markLayer);
    svg.addEventListener("click", onScanClick);
    stage.append(img, svg);
    clear(view, stage);
    drawGrid();
    drawMarks();
  }

  // The grid as fitted, hexes filled with the proposal's terrain when there is one.
  function drawGrid() {
    if (!gridLayer) return;
    const calibration = unwrap((image() || {}).calibration);
    const board = page.board();
    gridLayer.replaceChildren();
    if (!calibration || !calibration.affine || !board || !board.hexes) return;
    const [[a, b, c], [d, e, f]] = calibration.affine;
    gridLayer.setAttribute("transform", `matrix(${a} ${d} ${b} ${e} ${c} ${f})`);
    gridLayer.classList.toggle("off", !$("scan-grid").checked);
    const proposed = sc.proposal ? sc.proposal.hexes : {};
    const known = terrains();
    const corners = (x, y) =>
      [0, 1, 2, 3, 4, 5]
        .map((i) => {
          const t = (Math.PI / 180) * (60 * i - (board.orientation === "pointy" ? 30 : 0));
          return `${(x + Math.cos(t)).toFixed(3)},${(y + Math.sin(t)).toFixed(3)}`;
        })
        .join(" ");
    const centres = new Map();
    for (const cell of board.hexes) {
      centres.set(cell.hex, cell);
      const p = proposed[cell.hex];
      gridLayer.append(
        s(
          "polygon",
          { points: corners(cell.x, cell.y), "data-hex": cell.hex, class: p ? "proposed" : "", fill: p ? terrainColour(p.terrain, known) : "transparent" },
          s("title", {}, p ? `${cell.hex}: ${p.terrain}, ${percent(p.confidence)} sure` : cell.hex),
        ),
      );
    }
    for (const side of sc.proposal ? sc.proposal.hexsides : []) {
      const [p, q] = side.between.map((x) => centres.get(x));
      if (!p || !q) continue;
      const mx = (p.x + q.x) / 2;
      const my = (p.y + q.y) / 2;
      const len = Math.hypot(q.x - p.x, q.y - p.y) || 1;
      const ux = (-(q.y - p.y) / len) * 0.5;
      const uy = ((q.x - p.x) / len) * 0.5;
      gridLayer.append(
        s("line", { x1: mx - ux, y1: my - uy, x2: mx + ux, y2: my + uy, class: `proposed-side side-${side.feature}`, "data-feature": side.feature, stroke: SIDE_COLOURS[side.feature] || "#7a1f5c" }, s("title", {}, `${side.between.join("/")}: ${side.feature}, ${percent(side.confidence)} sure`)),
      );
    }
  }

  // Calibration points (numbered) and the point being placed; example hexes outlined.
  function drawMarks() {
    if (!markLayer) return;
    const im = image();
    const r = Math.max(4, Math.min(im.width, im.height) / 120);
    markLayer.replaceChildren();
    sc.points.forEach((p, i) => {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return;
      const bad = Boolean(p.problem);
      const title = `Point ${i + 1}: hex ${p.hex || "not given"}${bad ? ` (${p.problem})` : ""}`;
      markLayer.append(s("circle", { cx: p.x, cy: p.y, r, class: bad ? "scan-point bad" : "scan-point", "data-point": i + 1 }, s("title", {}, title)));
      const flag = bad ? (p.farthest ? " (farthest)" : " (off)") : "";
      const left = p.x > im.width * 0.7; // near the right edge: the label reads leftwards
      markLayer.append(
        s("text", { x: p.x + (left ? -1 : 1) * r * 1.3, y: p.y - r * 1.3, "text-anchor": left ? "end" : "start", class: bad ? "scan-point-label bad" : "scan-point-label", "font-size": r * 2.6 }, `${i + 1}: ${p.hex || "?"}${flag}`),
      );
    });
    const form = $("scan-point");
    if (form.elements.x.value !== "" && form.elements.y.value !== "") {
      markLayer.append(s("circle", { cx: Number(form.elements.x.value), cy: Number(form.elements.y.value), r, class: "scan-point pending" }));
    }
    const examples = new Set();
    for (const t of terrains()) {
      const input = $(`scan-ex-${t}`);
      if (input) for (const hex of words(input.value)) examples.add(hex);
    }
    for (const poly of gridLayer.querySelectorAll("polygon")) poly.classList.toggle("example", examples.has(poly.dataset.hex));
  }

  function onScanClick(ev) {
    if (sc.pick === "point") {
      const point = svg.createSVGPoint();
      point.x = ev.clientX;
      point.y = ev.clientY;
      const at = point.matrixTransform(svg.getScreenCTM().inverse());
      const form = $("scan-point");
      form.elements.x.value = String(Math.round(at.x * 2) / 2);
      form.elements.y.value = String(Math.round(at.y * 2) / 2);
      drawMarks();
      form.elements.hex.focus();
      say(`Point at x ${form.elements.x.value}, y ${form.elements.y.value}. Which hex is it? Type its label or click it on the map below.`);
      return;
    }
    const hex = ev.target.closest && ev.target.closest("[data-hex]");
    if (!hex) {
      say("Fit the grid first (step 2) to click hexes on the scan, or click them on the map below.");
      return;
    }
    takeHex(hex.dataset.hex);
  }

  // -- calibration --------------------------------------------------------------------------------------
  function addPoint() {
    const form = $("scan-point");
    const hex = form.elements.hex.value.trim().toUpperCase();
    const x = Number(form.elements.x.value);
    const y = Number(form.elements.y.value);
    $("scan-fit-error").textContent = "";
    if (!hex || form.elements.x.value === "" || form.elements.y.value === "") {
      $("scan-fit-error").textContent = "Give the point on the scan (click it, or its x and y) and the hex it is the centre of.";
      return;
    }
    const same = sc.points.findIndex((p) => p.hex === hex);
    if (same >= 0) {
      $("scan-fit-error").textContent = `Hex ${hex} is point ${same + 1} already: correct that point in the list, or remove it first.`;
      return;
    }
    sc.points = [...sc.points, { hex, x, y, problem: null }];
    sc.fit = null;
    keepPoints();
    form.reset();
    renderPoints();
    drawMarks();
    say(`Point ${sc.points.length} added: hex ${hex} at x ${x}, y ${y}.`);
  }

  $("scan-point").addEventListener("submit", (ev) => {
    ev.preventDefault();
    addPoint();
  });
  for (const name of ["x", "y"]) $("scan-point").elements[name].addEventListener("change", () => drawMarks());

  // Each point as a row the admin corrects in place (its hex, x and y) or removes; a refused fit's
  // reason for a point is written beside it (and the point marked on the scan).
  let rowShows = [];
  function renderPoints() {
    rowShows = [];
    clear($("scan-points"), sc.points.length ? sc.points.map((p, i) => pointRow(p, i)) : h("li", { class: "note" }, "No point yet."));
    fitButton();
  }

  function fitButton() {
    $("scan-fit").disabled = sc.points.length < 3;
    $("scan-fit").title = sc.points.length < 3 ? "Give at least 3 points" : "";
  }

  function pointRow(p, i) {
    const n = i + 1;
    const noteId = `scan-point-note-${n}`;
    const note = h("span", { id: noteId, class: "scan-point-note", "aria-live": "polite" });
    const remove = h("button", { type: "button", class: "link", onclick: () => removePoint(i) }, "Remove");
    const row = h("li", { class: "scan-point-row", "data-point": n });
    const field = (name, label, attrs) =>
      h("label", {}, `${label} `, h("input", { name, "aria-label": `${label} of point ${n}`, "aria-describedby": noteId, value: name === "hex" ? p.hex : Number.isFinite(p[name]) ? p[name] : "", onchange: (ev) => editPoint(i, name, ev.target.value), ...attrs }));
    const show = () => {
      const residual = !p.problem && sc.fit && (sc.fit.per_point || []).find((x) => x.hex === p.hex);
      row.classList.toggle("bad", Boolean(p.problem));
      note.className = p.problem ? "scan-point-note error" : "scan-point-note note";
      note.textContent = p.problem ? p.problem : residual ? `${px(residual.residual_px)} from the fitted grid` : "";
      remove.setAttribute("aria-label", `Remove the point of hex ${p.hex || n}`);
    };
    row.append(
      h("span", { class: "scan-point-no" }, `Point ${n}`),
      field("hex", "Hex", { maxlength: 12, autocomplete: "off", class: "scan-point-hex" }),
      field("x", "x", { type: "number", min: 0, step: 0.5, inputmode: "decimal" }),
      field("y", "y", { type: "number", min: 0, step: 0.5, inputmode: "decimal" }),
      remove,
      note,
    );
    show();
    rowShows.push(show);
    return row;
  }

  // A point corrected in its row: kept in place (focus stays where the keyboard is), its mark moved.
  function editPoint(i, name, value) {
    const p = sc.points[i];
    if (!p) return;
    forgetMisses();
    p.problem = null;
    if (name === "hex") {
      p.hex = value.trim().toUpperCase();
      const other = sc.points.findIndex((q, j) => j !== i && q.hex === p.hex);
      if (!p.hex) p.problem = "Give the hex this point is the centre of.";
      else if (other >= 0) p.problem = `Hex ${p.hex} is point ${other + 1} too: give each hex once.`;
    } else {
      p[name] = value === "" ? NaN : Number(value);
      if (!Number.isFinite(p[name])) p.problem = `Give its ${name} on the scan (in pixels).`;
    }
    sc.fit = null;
    keepPoints();
    $("scan-fit-result").textContent = "";
    for (const shown of rowShows) shown(); // the other rows' distances were the old fit's
    drawMarks();
  }

  // Points not yet fitted outlive a reload: this tab keeps them (sessionStorage, per scenario and
  // scan) until a fit is accepted or another scan is sent.
  const keptKey = () => `arbiter:scan-points:${scenario().id}:${sc.sha}`;
  function keepPoints() {
    if (!sc.sha) return;
    try {
      sessionStorage.setItem(keptKey(), JSON.stringify(sc.points.map(({ hex, x, y }) => ({ hex, x: Number.isFinite(x) ? x : null, y: Number.isFinite(y) ? y : null }))));
    } catch {
      /* storage refused (private mode, full): the points live as long as the page */
    }
  }
  function forgetKept() {
    try {
      sessionStorage.removeItem(keptKey());
    } catch {
      /* nothing kept */
    }
  }
  function keptPoints() {
    try {
      const kept = JSON.parse(sessionStorage.getItem(keptKey()) || "null");
      return Array.isArray(kept) ? kept.filter((p) => p && typeof p.hex === "string").map((p) => ({ hex: p.hex, x: p.x ?? NaN, y: p.y ?? NaN, problem: null })) : null;
    } catch {
      return null;
    }
  }

  // The points' distances from a refused fit: stale once any point changes (the next fit tells).
  function forgetMisses() {
    for (const q of sc.points) {
      if (q.missed) q.problem = null;
      q.missed = false;
      q.farthest = false;
    }
  }

  function removePoint(i) {
    sc.points.splice(i, 1);
    forgetMisses();
    sc.fit = null;
    keepPoints();
    $("scan-fit-result").textContent = "";
    renderPoints();
    drawMarks();
    $("scan-fit").focus();
  }

  // The API names a point's field `points[i]`, `points[i].hex`, `.x` or `.y` (or `points.i…`).
  const POINT_FIELD = /^points(?:\[(\d+)\]|\.(\d+))(?:\.(hex|x|y))?$/;

  $("scan-fit").addEventListener("click", async () => {
    $("scan-fit-error").textContent = "";
    $("scan-fit-result").textContent = "";
    const fields = { points: "The points" };
    sc.points.forEach((p, i) => {
      for (const key of [`points[${i}]`, `points[${i}].hex`, `points[${i}].x`, `points[${i}].y`, `points.${i}.hex`, `points.${i}`]) fields[key] = `Point ${i + 1} (hex ${p.hex})`;
    });
    const sent = sc.points;
    for (const p of sent) {
      p.problem = null;
      p.missed = false;
      p.farthest = false;
    }
    try {
      const fit = await api(`${base()}/calibration`, { method: "PUT", body: { points: sent.map(({ hex, x, y }) => ({ hex, x: Number.isFinite(x) ? x : null, y: Number.isFinite(y) ? y : null })) } });
      sc.fit = fit;
      // accepted: the points are the calibration's now (as the server wrote their hexes)
      if (Array.isArray(fit.points)) sc.points = fit.points.map((p) => ({ hex: p.hex, x: p.x, y: p.y, problem: null }));
      forgetKept();
      toast(`Grid fitted: ${px(fit.residual_px)} on average`);
      await page.reload();
      renderPoints();
      $("scan-fit-result").textContent = fitWords(fit);
    } catch (err) {
      // refused: every point is kept, and each one the server names carries its reason
      const misses = []; // [point, px] of the points the fit missed (a disagreement)
      if (err instanceof ApiError) {
        for (const [field, reasons] of Object.entries(err.details)) {
          const m = POINT_FIELD.exec(field);
          const p = m && sent[Number(m[1] ?? m[2])];
          if (!p) continue;
          const what = m[3] === "x" || m[3] === "y" ? `its ${m[3]}: ` : m[3] === "hex" ? "its hex: " : "";
          p.problem = `${p.problem ? `${p.problem}; ` : ""}${what}${reasons.join("; ")}`.replace(/^./, (c) => c.toUpperCase());
          const miss = !m[3] && /([\d.]+) px from the fitted grid/.exec(reasons.join(" "));
          if (miss) {
            misses.push([p, Number(miss[1])]);
            p.missed = true;
          }
        }
      }
      // A wrong point pulls the least-squares fit towards it, so the others miss too: the one
      // missed farthest is the likeliest wrong, and is said so.
      if (misses.length > 1) {
        const [worst] = misses.reduce((a, b) => (b[1] > a[1] ? b : a));
        worst.problem += ": the farthest, check this one first";
        worst.farthest = true;
      }
      const named = sent.filter((p) => p.problem).length;
      const kept = named ? ` Your ${sent.length} points are kept below: ${named === 1 ? "correct the one marked (its hex, x or y) or remove it" : "correct the marked ones (the farthest first: its hex, x or y) or remove them"}, then fit again.` : "";
      const said = inWords(err, fields);
      $("scan-fit-error").textContent = `${said}${kept && !/[.!?]$/.test(said) ? "." : ""}${kept}`;
      renderPoints();
      drawMarks();
    }
  });

  function fitWords(fit) {
    const each = fit.per_point.map((p) => `${p.hex} ${px(p.residual_px)}`).join(", ");
    return `The grid fits the ${fit.per_point.length} points ${px(fit.residual_px)} apart on average (${each}).${fit.per_point.length === 3 ? " Three points always fit exactly: add a fourth to have them checked." : ""}`;
  }

  // -- examples and the proposal ----------------------------------------------------------------------
  function renderExamples() {
    const key = terrains().join(" ");
    if (key === sc.terrains && $("scan-examples").children.length) return; // keep what was typed
    sc.terrains = key;
    const row = (id, label, hintText) =>
      h("p", { class: "scan-example" }, h("label", { for: id }, label), h("input", { id, type: "text", autocomplete: "off", placeholder: hintText, oninput: () => drawMarks() }));
    clear(
      $("scan-examples"),
      terrains().map((t) => row(`scan-ex-${t}`, `${t} hexes`, "e.g. J7 K8")),
      SIDE_FEATURES.map((f) => row(`scan-ex-${f}`, `${f} hexsides`, "e.g. R16/S16")),
    );
  }

  $("scan-propose").addEventListener("click", async () => {
    $("scan-propose-error").textContent = "";
    const hexes = {};
    const hexsides = {};
    const fields = { hexes: "The examples", hexsides: "The hexside examples", calibration: "Calibration" };
    for (const t of terrains()) {
      const list = words($(`scan-ex-${t}`).value).map((x) => x.toUpperCase());
      if (list.length) hexes[t] = list;
      fields[`hexes.${t}`] = `${t} examples`;
      list.forEach((hex, i) => (fields[`hexes.${t}[${i}]`] = `${t} example ${hex}`));
    }
    for (const f of SIDE_FEATURES) {
      const pairs = words($(`scan-ex-${f}`).value).map((x) => x.toUpperCase().split(/[/-]/));
      const bad = pairs.find((p) => p.length !== 2 || !p[0] || !p[1]);
      if (bad) {
        $("scan-propose-error").textContent = `${f} hexsides: "${bad.join("/")}" is not two hexes (write R16/S16).`;
        return;
      }
      if (pairs.length) hexsides[f] = pairs;
      pairs.forEach((p, i) => (fields[`hexsides.${f}[${i}]`] = fields[`hexsides.${f}.${i}`] = `${f} hexside ${p.join("/")}`));
      fields[`hexsides.${f}`] = `${f} examples`;
    }
    const button = $("scan-propose");
    button.disabled = true;
    $("scan-proposal-summary").textContent = "";
    const started = performance.now();
    try {
      sc.proposal = await api(`${base()}/proposal`, { method: "POST", body: { hexes, hexsides } });
      sc.took = (performance.now() - started) / 1000;
      sc.untickedHexes = new Set();
      sc.untickedSides = new Set();
      sc.shown = PAGE;
      renderProposal();
      drawGrid();
      drawMarks();
      $("scan-proposal").scrollIntoView({ block: "nearest" });
    } catch (err) {
      $("scan-propose-error").textContent = inWords(err, fields);
    } finally {
      button.disabled = false;
    }
  });

  const terrainNow = (hex) => {
    const cell = page.board() && page.board().hexes.find((x) => x.hex === hex);
    return cell ? cell.terrain : null;
  };
  const sideKey = (between) => [...between].sort().join("/");
  const featuresNow = (between) => {
    const key = sideKey(between);
    const side = ((page.board() && page.board().hexsides) || []).find((x) => sideKey(x.hexes) === key);
    return side ? side.features : [];
  };

  function renderProposal() {
    const p = sc.proposal;
    $("scan-proposal").hidden = !p;
    if (!p) return;
    const entries = Object.entries(p.hexes).sort((a, b) => a[1].confidence - b[1].confidence || a[0].localeCompare(b[0]));
    const counts = {};
    for (const [, v] of entries) counts[v.terrain] = (counts[v.terrain] || 0) + 1;
    const changing = entries.filter(([hex, v]) => terrainNow(hex) !== v.terrain);
    const sidesNew = p.hexsides.filter((x) => !featuresNow(x.between).includes(x.feature));
    $("scan-proposal-summary").textContent =
      `Terrain proposed for ${number(entries.length)} hexes (${Object.entries(counts).map(([t, n]) => `${number(n)} ${t}`).join(", ")}); ` +
      `${number(changing.length)} would change. ${p.hexsides.length ? `${p.hexsides.length} hexsides show a feature (${sidesNew.length} new).` : "No hexside shows a feature."}` +
      ` Read in ${sc.took.toFixed(1)} s.`;
    clear(
      $("scan-unread"),
      p.outside.length ? h("li", { class: "note" }, `${number(p.outside.length)} hexes lie mostly off the scan: nothing is proposed for them.`) : null,
      p.unread.map((u) => h("li", { class: "error" }, `${u.feature} was not read: ${u.reason}`)),
    );
    const only = $("scan-changes-only").checked;
    const rows = only ? changing : entries;
    const shown = rows.slice(0, sc.shown);
    clear(
      $("scan-hexes"),
      h("caption", {}, only ? "Hexes whose terrain would change, the least sure first" : "Every hex proposed, the least sure first"),
      h("thead", {}, h("tr", {}, ["Accept", "Hex", "Proposed", "Now", "Sure"].map((x) => h("th", { scope: "col" }, x)))),
      h(
        "tbody",
        {},
        shown.length
          ? shown.map(([hex, v]) =>
              h(
                "tr",
                { "data-hex": hex },
                h("td", {}, h("input", { type: "checkbox", "aria-label": `Accept ${hex} as ${v.terrain}`, checked: sc.untickedHexes.has(hex) ? null : true, onchange: (ev) => (ev.target.checked ? sc.untickedHexes.delete(hex) : sc.untickedHexes.add(hex)) })),
                h("th", { scope: "row" }, hex),
                h("td", {}, h("span", { class: "ed-chip", style: `background:${terrainColour(v.terrain, terrains())}` }), ` ${v.terrain}`),
                h("td", {}, terrainNow(hex) || ""),
                h("td", {}, percent(v.confidence)),
              ),
            )
          : h("tr", {}, h("td", { colspan: 5 }, only ? "No hex would change." : "No hex proposed.")),
      ),
    );
    $("scan-more").hidden = rows.length <= shown.length;
    $("scan-more").textContent = `More hexes (${number(rows.length - shown.length)} not shown)`;
    clear(
      $("scan-sides"),
      h("caption", {}, "Hexsides that show a feature, the least sure first"),
      h("thead", {}, h("tr", {}, ["Accept", "Hexside", "Feature", "Sure"].map((x) => h("th", { scope: "col" }, x)))),
      h(
        "tbody",
        {},
        p.hexsides.length
          ? [...p.hexsides]
              .sort((a, b) => a.confidence - b.confidence)
              .map((x) => {
                const key = `${sideKey(x.between)} ${x.feature}`;
                return h(
                  "tr",
                  {},
                  h("td", {}, h("input", { type: "checkbox", "aria-label": `Accept ${x.between.join("/")} as ${x.feature}`, checked: sc.untickedSides.has(key) ? null : true, onchange: (ev) => (ev.target.checked ? sc.untickedSides.delete(key) : sc.untickedSides.add(key)) })),
                  h("th", { scope: "row" }, x.between.join("/")),
                  h("td", {}, h("span", { class: "ed-chip", style: `background:${SIDE_COLOURS[x.feature] || "#7a1f5c"}` }), ` ${x.feature}${featuresNow(x.between).includes(x.feature) ? " (already)" : ""}`),
                  h("td", {}, percent(x.confidence)),
                );
              })
          : h("tr", {}, h("td", { colspan: 4 }, "None.")),
      ),
    );
  }

  $("scan-more").addEventListener("click", () => {
    sc.shown += PAGE;
    renderProposal();
  });
  $("scan-changes-only").addEventListener("change", () => {
    sc.shown = PAGE;
    renderProposal();
  });

  async function accept(all) {
    const p = sc.proposal;
    $("scan-accept-error").textContent = "";
    const hexes = {};
    for (const [hex, v] of Object.entries(p.hexes)) if (all || !sc.untickedHexes.has(hex)) hexes[hex] = { terrain: v.terrain };
    const sides = p.hexsides.filter((x) => all || !sc.untickedSides.has(`${sideKey(x.between)} ${x.feature}`));
    // the same edits as the editor's own, so its undo takes the whole acceptance back
    const changes = [];
    const inverse = [];
    for (const [hex, v] of Object.entries(hexes)) {
      const now = terrainNow(hex);
      if (now === v.terrain) continue;
      changes.push({ kind: "terrain", hex, terrain: v.terrain });
      inverse.push({ kind: "terrain", hex, terrain: now });
    }
    for (const x of sides) {
      const before = featuresNow(x.between);
      if (before.includes(x.feature)) continue;
      changes.push({ kind: "hexside", hexes: x.between, features: [...before, x.feature] });
      inverse.push({ kind: "hexside", hexes: x.between, features: before });
    }
    try {
      const done = await api(`${base()}/proposal/accept`, { method: "POST", body: { hexes, hexsides: sides.map((x) => ({ between: x.between, feature: x.feature })) } });
      const { changes: count, ...view } = done;
      toast(count ? `${number(count)} changes made to the draft's map` : "Nothing to change: the draft's map already says so");
      await page.accepted(view, changes, inverse);
      renderProposal();
    } catch (err) {
      $("scan-accept-error").textContent = inWords(err, {});
    }
  }
  $("scan-accept-all").addEventListener("click", () => accept(true));
  $("scan-accept-ticked").addEventListener("click", () => accept(false));

  $("scan-zoom").addEventListener("change", () => drawScan());
  $("scan-grid").addEventListener("change", () => gridLayer && gridLayer.classList.toggle("off", !$("scan-grid").checked));
  details.addEventListener("toggle", () => {
    if (details.open) {
      if (image() && !img) drawScan();
      hint();
    } else page.palette(); // the editor's own hint again
  });

  // The draft changed (or was loaded): show its image, calibration and the examples' form.
  function refresh() {
    const doc = scenario();
    const editable = doc && doc.may_edit && doc.document && !doc.document.table;
    section.hidden = !editable;
    if (!editable) return;
    const im = image();
    $("scan-work").hidden = !im;
    if (!im) {
      $("scan-facts").textContent = "No scan yet.";
      sc.sha = null;
      return;
    }
    const calibration = unwrap(im.calibration);
    $("scan-facts").textContent = `The scan: ${number(im.width)} × ${number(im.height)} pixels, ${TYPES[im.media_type] || "image"}; ${calibration ? `the grid is fitted to it (${px(calibration.residual_px)} on average)` : "not calibrated yet"}.`;
    if (im.sha256 !== sc.sha) {
      sc.sha = im.sha256;
      const kept = keptPoints();
      sc.points = kept || (calibration && calibration.points ? calibration.points.map((p) => ({ hex: p.hex, x: p.x, y: p.y, problem: null })) : []);
      sc.fit = kept ? null : calibration || null;
      if (kept && kept.length) say(`${kept.length} point${kept.length === 1 ? "" : "s"} given before the page was reloaded, not fitted yet: they are listed under Calibration.`);
      sc.proposal = null;
      img = null;
      if (calibration) $("scan-fit-result").textContent = fitWords(calibration);
    }
    renderPicks();
    renderExamples();
    renderPoints();
    if (details.open && !img) drawScan();
    else if (img) {
      drawGrid();
      drawMarks();
    }
    renderProposal();
  }

  return { refresh, takeHex };
}
