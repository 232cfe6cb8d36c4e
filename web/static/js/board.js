// Drawing the board as SVG from the server's board data: every hex's centre comes from the server
// (units of the hex radius), so the browser does no hex arithmetic beyond drawing corners and edges.
import { s, sideName } from "./dom.js";

export const R = 40; // pixels per unit of hex radius

const TERRAIN_COLOURS = {
  clear: "#eef0d8",
  open: "#eef0d8",
  forest: "#9cc28a",
  woods: "#9cc28a",
  hill: "#d8c08e",
  hills: "#d8c08e",
  mountain: "#b59a7a",
  rough: "#cdbb95",
  marsh: "#a9cfc3",
  swamp: "#a9cfc3",
  desert: "#f1dfa6",
  city: "#c9c3cf",
  town: "#dcd6e0",
  water: "#8fbfe6",
  sea: "#8fbfe6",
  lake: "#8fbfe6",
};

export function terrainColour(name) {
  if (TERRAIN_COLOURS[name]) return TERRAIN_COLOURS[name];
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${hash} 35% 78%)`;
}

export function corners(x, y, orientation) {
  const start = orientation === "pointy" ? 30 : 0;
  const points = [];
  for (let i = 0; i < 6; i += 1) {
    const a = ((start + 60 * i) * Math.PI) / 180;
    points.push(`${((x + Math.cos(a)) * R).toFixed(1)},${((y + Math.sin(a)) * R).toFixed(1)}`);
  }
  return points.join(" ");
}

// The shared edge of two neighbouring hexes: perpendicular to the line between their centres.
function edge(a, b) {
  const mx = (a.x + b.x) / 2;
  const my = (a.y + b.y) / 2;
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const px = -(b.y - a.y) / len / 2;
  const py = (b.x - a.x) / len / 2;
  return { x1: (mx - px) * R, y1: (my - py) * R, x2: (mx + px) * R, y2: (my + py) * R };
}

const PALETTE = ["red", "blue", "green", "brown"];

// A side's colour: the one its rulebook prints (the system's `side_colours`, e.g. Merida rule 2:
// Nationalists blue, Republicans green), else its own name when it is one of the palette's colours,
// else its place in the scenario's order of sides.
export function sideClass(sides, side, colours = {}) {
  const colour = (x) => String(colours[x] || x).toLowerCase();
  const named = (x) => PALETTE.includes(colour(x));
  if (named(side)) return `side-${PALETTE.indexOf(colour(side))}`;
  const taken = sides.filter(named).map((x) => PALETTE.indexOf(colour(x)));
  const free = [0, 1, 2, 3].filter((i) => !taken.includes(i));
  const i = sides.filter((x) => !named(x)).indexOf(side);
  return i >= 0 && i < free.length ? `side-${free[i]}` : "side-x";
}

// The widest copy of the scan the minimap asks for (the server's smallest size is 256 px): the
// minimap is 110 px wide on a laptop, 72 on a phone, so 256 is sharp at a pixel ratio of 2.
const MINI_SCAN_PX = 256;

const CENTRE_LINE_FEATURES = new Set(["road", "rail", "railroad", "railway", "track", "trail"]);

export class BoardView {
  constructor(svg, board, { sides = [], colours = {}, onHex = null, onFocus = null } = {}) {
    this.svg = svg;
    this.board = board;
    this.sides = sides;
    this.colours = colours;
    this.onHex = onHex; // a click on a hex that is not a counter or a mark
    this.onFocus = onFocus; // a stack or mark reached with the keyboard (to bring it into view)
    this.byHex = new Map(board.hexes.map((hx) => [hx.hex, hx]));
    this.draw();
  }

  centre(label) {
    return this.byHex.get(label);
  }

  // A hex's centre in the drawing's units (for zooming and centring), or null.
  at(label) {
    const c = this.centre(label);
    return c ? { x: c.x * R, y: c.y * R } : null;
  }

  // The drawing's size in its own units.
  extent() {
    return { width: this.board.size.width * R, height: this.board.size.height * R };
  }

  // The map small, for the minimap: terrain, the club's scan over it when the board has one (a
  // copy no wider than MINI_SCAN_PX: never the full image; `showScan` switches it with the
  // board's), and a dot per stack (`drawCounters` updates it).
  overview() {
    const orientation = this.board.orientation || "flat";
    this.miniCounters = s("g", { class: "mini-counters" });
    const image = this.board.image;
    this.miniScan = this.scanMatrix
      ? s(
          "g",
          { class: "mini-scan", "aria-hidden": "true" },
          s("image", {
            class: "mini-scan-image",
            href: `${image.url}?width=${Math.max(16, Math.min(image.width, MINI_SCAN_PX))}`,
            width: image.width,
            height: image.height,
            preserveAspectRatio: "none",
            transform: this.scanMatrix,
          }),
        )
      : null;
    const mini = s(
      "g",
      { class: "mini" },
      this.board.hexes.map((hx) => s("polygon", { points: corners(hx.x, hx.y, orientation), fill: terrainColour(hx.terrain) })),
      this.miniScan,
      this.miniCounters,
    );
    this.mini = mini;
    this.showScan(this.scanShown !== false);
    return mini;
  }

  draw() {
    const { board, svg } = this;
    const orientation = board.orientation || "flat";
    svg.setAttribute("viewBox", `0 0 ${(board.size.width * R).toFixed(1)} ${(board.size.height * R).toFixed(1)}`);
    const hexLayer = s("g", { class: "hexes" });
    for (const hx of board.hexes) {
      hexLayer.append(
        s(
          "g",
          { class: `hex terrain-${hx.terrain}`, "data-hex": hx.hex, onclick: () => this.onHex && this.onHex(hx.hex) },
          s("polygon", { points: corners(hx.x, hx.y, orientation), fill: terrainColour(hx.terrain) }),
          s("text", { class: "hex-label", x: hx.x * R, y: (hx.y - 0.62) * R, "aria-hidden": "true" }, hx.hex),
        ),
      );
    }
    const sideLayer = s("g", { class: "hexsides", "aria-hidden": "true" });
    for (const side of board.hexsides || []) {
      const [a, b] = side.hexes.map((label) => this.centre(label));
      if (!a || !b) continue;
      for (const feature of side.features) {
        const title = s("title", {}, `${feature} between ${side.hexes[0]} and ${side.hexes[1]}`);
        if (CENTRE_LINE_FEATURES.has(feature)) {
          sideLayer.append(
            s("line", { class: `feature feature-${feature}`, x1: a.x * R, y1: a.y * R, x2: b.x * R, y2: b.y * R }, title),
          );
        } else {
          sideLayer.append(s("line", { class: `feature edge feature-${feature}`, ...edge(a, b) }, title));
        }
      }
    }
    const placeLayer = s("g", { class: "places", "aria-hidden": "true" });
    for (const place of board.places || []) {
      const c = this.centre(place.hex);
      if (!c) continue;
      const vp = place.values && place.values.vp ? ` (${place.values.vp} VP)` : "";
      placeLayer.append(
        s(
          "g",
          { class: `place place-${place.kind}` },
          s("title", {}, `${placeName(place)}, ${place.kind}${vp}, ${place.hex}${place.note ? `. ${place.note}` : ""}`),
          place.kind === "objective" ? s("circle", { cx: c.x * R, cy: (c.y + 0.42) * R, r: 4 }) : null,
          s("text", { x: c.x * R, y: (c.y + 0.72) * R }, placeName(place)),
        ),
      );
    }
    for (const [label, features] of Object.entries(board.hex_features || {})) {
      const c = this.centre(label);
      if (!c || !features || !features.length) continue;
      placeLayer.append(
        s("text", { class: "hex-feature", x: (c.x - 0.55) * R, y: (c.y + 0.1) * R }, features.map(featureMark).join(""), s("title", {}, features.join(", "))),
      );
    }
    this.highlightLayer = s("g", { class: "highlights" });
    this.counterLayer = s("g", { class: "counters" });
    this.noteLayer = s("g", { class: "note-marks" });
    this.scanLayer = this.scan(board.image);
    svg.replaceChildren(...(this.scanLayer ? [this.scanLayer] : []), hexLayer, sideLayer, placeLayer, this.counterLayer, this.noteLayer, this.highlightLayer);
    svg.classList.toggle("with-scan", Boolean(this.scanLayer));
  }

  // The club's scan of its printed map (a club scenario version that has one), under the hexes:
  // `image.affine` takes a hex centre (units of the hex radius) to the scan's pixels, so its
  // inverse, scaled by R, draws the scan's pixels in the board's units.  Fetched no wider than
  // the zoom needs (`scanFor`), so a phone does not load a 20 MB scan.
  scan(image) {
    this.scanMatrix = null;
    if (!image || !Array.isArray(image.affine)) return null;
    const [[a, b, c], [d, e, f]] = image.affine;
    const det = a * e - b * d;
    if (!det) return null;
    const [ia, ib, id, ie] = [e / det, -b / det, -d / det, a / det];
    const matrix = [R * ia, R * id, R * ib, R * ie, -R * (ia * c + ib * f), -R * (id * c + ie * f)];
    this.scanMatrix = `matrix(${matrix.map((v) => v.toFixed(6)).join(" ")})`;
    this.scanImage = s("image", {
      class: "scan-image",
      width: image.width,
      height: image.height,
      preserveAspectRatio: "none",
      transform: this.scanMatrix,
    });
    this.scanPx = Math.sqrt(Math.abs(det)); // the scan's pixels per hex radius
    this.scanWidth = 0;
    return s("g", { class: "scan", "aria-hidden": "true" }, this.scanImage);
  }

  // `k`: screen pixels per board unit.  Asks for a wider copy of the scan when the zoom needs it.
  scanFor(k) {
    if (!this.scanImage) return;
    const image = this.board.image;
    const needed = Math.min(image.width, Math.ceil(((image.width * k * R) / this.scanPx) * (window.devicePixelRatio || 1)));
    if (needed <= this.scanWidth) return;
    this.scanWidth = needed;
    this.scanImage.setAttribute("href", `${image.url}?width=${Math.max(16, needed)}`);
  }

  // The scan on or off (the toolbar's "Printed map"): on the board and in the minimap alike.
  showScan(on) {
    if (!this.scanLayer) return;
    this.scanShown = on;
    this.scanLayer.style.display = on ? "" : "none";
    this.svg.classList.toggle("with-scan", on);
    if (this.miniScan) {
      this.miniScan.style.display = on ? "" : "none";
      this.mini.classList.toggle("with-scan", on);
    }
  }

  sideClass(side) {
    return sideClass(this.sides, side, this.colours);
  }

  // The reader's own hex notes ([{hex, text}]): a small pin at each hex's top right corner, its
  // text as the pin's title (the notes panel lists them in words).
  noteMarks(notes) {
    this.noteLayer.replaceChildren(
      ...notes
        .map((n) => [n, this.centre(n.hex)])
        .filter(([, c]) => c)
        .map(([n, c]) => s("g", { class: "note-pin", "data-hex": n.hex }, s("title", {}, `Your note on ${n.hex}: ${n.text}`), s("circle", { cx: (c.x + 0.45) * R, cy: (c.y - 0.5) * R, r: 0.16 * R }), s("text", { x: (c.x + 0.45) * R, y: (c.y - 0.44) * R }, "N"))),
    );
  }

  // Destinations and targets: {hex: {kind: "dest"|"target"|"selected", label}}.
  highlight(marks, onActivate) {
    const layer = this.highlightLayer;
    layer.replaceChildren();
    const orientation = this.board.orientation || "flat";
    for (const [label, mark] of Object.entries(marks)) {
      const c = this.centre(label);
      if (!c) continue;
      const g = s(
        "g",
        {
          class: `mark mark-${mark.kind}`,
          "data-hex": label,
          tabindex: mark.kind === "selected" ? undefined : 0,
          role: mark.kind === "selected" ? undefined : "button",
          "aria-label": mark.label,
        },
        s("polygon", { points: corners(c.x, c.y, orientation) }),
        mark.note ? s("text", { class: "mark-note", x: c.x * R, y: (c.y + 0.55) * R }, mark.note) : null,
      );
      // a candidate path (a retreat to choose): drawn from its first hex to the mark
      const route = Array.isArray(mark.path) ? mark.path.map((hx) => this.centre(hx)).filter(Boolean) : [];
      if (route.length > 1) g.prepend(s("polyline", { class: "mark-path", points: route.map((p) => `${(p.x * R).toFixed(1)},${(p.y * R).toFixed(1)}`).join(" ") }));
      if (onActivate && mark.kind !== "selected") activate(g, () => onActivate(label, mark));
      if (this.onFocus) g.addEventListener("focus", () => this.onFocus(label));
      if (mark.kind !== "selected") g.addEventListener("keydown", (ev) => this.stepMarks(ev, g));
      layer.append(g);
    }
  }

  // The arrow keys go from one highlighted hex to the next (and back), so a keyboard does not
  // cross every stack of the map to reach a destination.
  stepMarks(ev, from) {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (!step) return;
    const marks = this.focusableMarks();
    const next = marks[(marks.indexOf(from) + step + marks.length) % marks.length];
    if (next) {
      ev.preventDefault();
      next.focus();
    }
  }

  focusableMarks() {
    return [...this.highlightLayer.querySelectorAll('.mark[role="button"]')];
  }

  // Counters grouped in stacks; a stack's top counter is drawn with the others peeking out behind.
  drawCounters(counters, onStack) {
    const layer = this.counterLayer;
    layer.replaceChildren();
    const stacks = new Map();
    for (const c of counters) {
      if (!stacks.has(c.hex)) stacks.set(c.hex, []);
      stacks.get(c.hex).push(c);
    }
    if (this.miniCounters) this.miniCounters.replaceChildren();
    for (const [label, units] of stacks) {
      const c = this.centre(label);
      if (!c) continue;
      if (this.miniCounters) this.miniCounters.append(s("rect", { class: `mini-stack ${this.sideClass(units[0].side)}`, x: c.x * R - 18, y: c.y * R - 18, width: 36, height: 36 }));
      const cx = c.x * R;
      const cy = c.y * R;
      const size = R * 0.95;
      const g = s("g", {
        class: `stack ${this.sideClass(units[0].side)}`,
        "data-hex": label,
        tabindex: 0,
        role: "button",
        "aria-label": `${this.hexWords ? this.hexWords(label) : label}: ${units.map(describeCounter).join("; ")}`,
      });
      g.append(s("title", {}, units.map((u) => u.name || u.id).join(", ")));
      units.slice(1).forEach((_, i) => {
        const off = (units.length - 1 - i) * 4;
        g.append(s("rect", { class: "counter-shadow", x: cx - size / 2 + off, y: cy - size / 2 - off, width: size, height: size, rx: 3 }));
      });
      g.append(counterShape(units[0], cx, cy, size, this.sideClass(units[0].side)));
      if (units.length > 1) {
        g.append(
          s("circle", { class: "stack-badge", cx: cx + size / 2, cy: cy - size / 2, r: 8 }),
          s("text", { class: "stack-count", x: cx + size / 2, y: cy - size / 2 + 3.5 }, units.length),
        );
      }
      if (onStack) activate(g, () => onStack(label, units));
      if (this.onFocus) g.addEventListener("focus", () => this.onFocus(label));
      layer.append(g);
    }
  }
}

function counterShape(unit, cx, cy, size, sideClass) {
  const reduced = unit.max_steps && unit.steps < unit.max_steps;
  const values = printedValues(unit.values || {});
  const name = String(unit.name || unit.id);
  return s(
    "g",
    { class: `counter ${sideClass}${reduced ? " reduced" : ""}`, "data-unit": unit.id },
    s("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 3 }),
    // a long name is squeezed into the counter rather than spilling over its neighbours
    s("text", { class: "counter-name", x: cx, y: cy - size / 2 + 11, textLength: name.length > 6 ? size - 6 : undefined, lengthAdjust: "spacingAndGlyphs" }, name),
    s("text", { class: "counter-type", x: cx, y: cy + 3 }, typeSymbol(unit.type)),
    s("text", { class: "counter-values", x: cx, y: cy + size / 2 - 5 }, values),
    s("text", { class: "counter-far", x: cx, y: cy + 7 }, typeSymbol(unit.type).slice(0, 1)),
    reduced ? s("rect", { class: "reduced-band", x: cx - size / 2, y: cy - 9, width: 4, height: 18 }) : null,
    unit.max_steps > 1
      ? Array.from({ length: unit.max_steps }, (_, i) =>
          s("circle", { class: i < unit.steps ? "pip" : "pip lost", cx: cx + size / 2 - 5, cy: cy - size / 2 + 6 + i * 6, r: 2.2 }),
        )
      : null,
  );
}

// The values printed on a counter: all of them when there are three or fewer, else the usual
// factors (attack, defence, morale, movement) first; every value is in the counter's label.
const PRINTED = ["attack", "strength", "defence", "defense", "morale", "mp", "movement"];

function printedValues(values) {
  const keys = Object.keys(values);
  const shown = keys.length <= 3 ? keys : [...PRINTED.filter((k) => k in values), ...keys.filter((k) => !PRINTED.includes(k))].slice(0, 3);
  return shown.map((k) => formatValue(values[k])).join("-");
}

export function formatValue(v) {
  if (v && typeof v === "object" && "value" in v) return formatValue(v.value);
  return Number.isInteger(v) ? String(v) : typeof v === "number" ? String(Math.round(v * 10) / 10) : String(v);
}

// A hex feature's mark on the map: its first letter ("t" a town), explained in the legend.
// A hex feature's mark on the map, explained in the legend: the map conventions for towns and
// cities, an anchor for a landing, waves for a coast with the sea's initial; any other feature its
// initials in capitals (never one bare lower-case letter, which read as a stray "t" or "c").
const MARKS = { town: "⌂", city: "▣", landing: "⚓", atlantic_landing: "⚓A", coast: "≈", coast_atlantic: "≈A", coast_mediterranean: "≈M", coast_strait: "≈S", fortification: "▲", fortifications: "▲" };
export const featureMark = (feature) => {
  const name = String(feature);
  if (MARKS[name]) return MARKS[name];
  return name.split(/[\s_-]+/).filter(Boolean).map((w) => w[0].toUpperCase()).join("").slice(0, 2) || "?";
};

export function typeSymbol(type) {
  return { infantry: "INF", cavalry: "CAV", artillery: "ART", armor: "ARM", armour: "ARM", leader: "HQ", air: "AIR", train: "TRN" }[type] || String(type || "").slice(0, 4).toUpperCase();
}

// A place's name as a player reads it: its label where the scenario gives one (the name is its key).
export const placeName = (place) => place.label || place.name;

export function describeCounter(unit) {
  const values = Object.entries(unit.values || {})
    .map(([k, v]) => `${k} ${formatValue(v)}`)
    .join(", ");
  const steps = unit.max_steps ? `, ${unit.steps} of ${unit.max_steps} steps` : "";
  return `${unit.name || unit.id} (${sideName(unit.side)} ${unit.type}; ${values}${steps})`;
}

// Click, Enter or Space.
export function activate(el, handler) {
  el.addEventListener("click", (ev) => {
    ev.stopPropagation();
    handler(ev);
  });
  el.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      handler(ev);
    }
  });
}
