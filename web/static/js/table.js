// Drawing a miniatures table (a board of kind "table"): the table to scale in inches, its terrain
// areas (rectangles or polygons, labelled), deployment zones and entry points, a scale, and units
// at their positions with their facing and every figure, and the positions a template offers.
// Every position comes from the server; the browser only draws them.
import { activate, describeCounter } from "./board.js";
import { s } from "./dom.js";

export const PX = 20; // SVG units per inch

const AREA_STYLES = [
  ["road", "area-road"],
  ["trench", "area-trench"],
  ["fortification", "area-works"],
  ["defences", "area-works"],
  ["cover", "area-cover"],
  ["bad_going", "area-bad"],
];

export function areaClass(area) {
  const effects = area.effects || [];
  const found = AREA_STYLES.find(([effect]) => effects.includes(effect));
  return found ? found[1] : "area-other";
}

// An area's corners in inches: {rect: [x, y, w, h]} or {polygon: [[x, y], ...]}.
export function areaPoints(area) {
  if (Array.isArray(area.polygon)) return area.polygon;
  const [x, y, w, hh] = area.rect || [0, 0, 0, 0];
  return [
    [x, y],
    [x + w, y],
    [x + w, y + hh],
    [x, y + hh],
  ];
}

// Inches to SVG units, to a tenth (so attributes read cleanly).
const px = (v) => Math.round(v * PX * 10) / 10;

const pts = (points) => points.map(([x, y]) => `${(x * PX).toFixed(1)},${(y * PX).toFixed(1)}`).join(" ");

function centroid(points) {
  const n = points.length || 1;
  return [points.reduce((a, p) => a + p[0], 0) / n, points.reduce((a, p) => a + p[1], 0) / n];
}

export const inches = (v) => `${Math.round(v * 100) / 100}"`;

export class TableView {
  constructor(svg, board, { sideClass }) {
    this.svg = svg;
    this.board = board;
    this.sideClass = sideClass;
    this.draw();
  }

  draw() {
    const { board, svg } = this;
    const W = board.width;
    const H = board.height;
    const margin = 1.5;
    svg.setAttribute("viewBox", `${-margin * PX} ${-margin * PX} ${(W + 2 * margin) * PX} ${(H + 2 * margin + 1.5) * PX}`);
    svg.classList.add("table-board");
    const clip = s("clipPath", { id: "table-clip" }, s("rect", { x: 0, y: 0, width: W * PX, height: H * PX }));
    const base = s(
      "g",
      { class: "table-base" },
      s("defs", {}, clip),
      s("rect", { class: "table-cloth", x: 0, y: 0, width: W * PX, height: H * PX }),
      gridLines(W, H),
    );
    const areas = s("g", { class: "areas" });
    for (const area of board.areas || []) {
      const points = areaPoints(area);
      const [cx, cy] = centroid(points);
      const effects = (area.effects || []).map((e) => e.replace(/_/g, " ")).join(", ");
      areas.append(
        s(
          "g",
          { class: `area ${areaClass(area)}`, "data-area": area.id },
          s("title", {}, `${area.name}: ${effects}`),
          s("polygon", { points: pts(points) }),
          s("text", { class: "area-label", x: cx * PX, y: cy * PX }, area.name),
          s("text", { class: "area-effects", x: cx * PX, y: (cy + 0.9) * PX }, effects),
        ),
      );
    }
    const zones = s("g", { class: "zones", "aria-hidden": "true" });
    for (const [side, zone] of Object.entries(board.deployment || {})) {
      const points = areaPoints(zone);
      const [cx] = centroid(points);
      const top = Math.min(...points.map((p) => p[1]));
      zones.append(
        s(
          "g",
          { class: `zone ${this.sideClass(side)}`, "data-zone": side },
          s("polygon", { points: pts(points) }),
          s("text", { x: cx * PX, y: (top + 0.9) * PX }, `${side} deployment zone`),
        ),
      );
    }
    for (const [side, [x, y]] of Object.entries(board.entries || {})) {
      zones.append(
        s("g", { class: `entry ${this.sideClass(side)}` }, s("title", {}, `${side} entry point`), s("circle", { cx: x * PX, cy: y * PX, r: 0.45 * PX })),
      );
    }
    this.unitLayer = s("g", { class: "units-layer" });
    this.marks = s("g", { class: "table-marks" });
    svg.replaceChildren(base, areas, zones, scaleBar(H), this.unitLayer, this.marks);
  }

  // Table coordinates (inches) of a pointer event on the SVG.
  toInches(ev) {
    const pt = this.svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    return [p.x / PX, p.y / PX];
  }

  // Clicks on the table itself (not on a unit): handler([x, y]) or null to stop listening.
  onTable(handler) {
    if (this.tableHandler) this.svg.removeEventListener("click", this.tableHandler);
    this.tableHandler = null;
    this.svg.classList.toggle("picking", Boolean(handler));
    if (!handler) return;
    this.tableHandler = (ev) => {
      const [x, y] = this.toInches(ev);
      if (x < 0 || y < 0 || x > this.board.width || y > this.board.height) return;
      handler([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    };
    this.svg.addEventListener("click", this.tableHandler);
  }

  // Units with their figures and facing; marks: {unitId: "selected"|"target"|"chosen"|"can-act"}.
  drawUnits(counters, marks, onUnit) {
    this.unitLayer.replaceChildren();
    for (const unit of counters) {
      const mark = marks[unit.id] || "";
      const side = this.sideClass(unit.side);
      const g = s("g", {
        class: `unit ${side}${mark ? " unit-" + mark : ""}`,
        "data-unit": unit.id,
        tabindex: 0,
        role: "button",
        "aria-label": `${describeCounter(unit)} at ${inches(unit.x)}, ${inches(unit.y)}, facing ${Math.round(unit.facing)}°${mark === "target" ? ": a target" : ""}`,
      });
      const figures = unit.figures && unit.figures.length ? unit.figures : [[unit.x, unit.y]];
      if (unit.type === "vehicle" || unit.type === "aircraft") {
        g.append(
          s("rect", {
            class: "vehicle",
            x: (unit.x - 1) * PX,
            y: (unit.y - 0.6) * PX,
            width: 2 * PX,
            height: 1.2 * PX,
            transform: `rotate(${unit.facing} ${unit.x * PX} ${unit.y * PX})`,
          }),
        );
      }
      figures.forEach(([fx, fy], i) => g.append(s("circle", { class: "figure", "data-figure": i, cx: px(fx), cy: px(fy), r: 0.38 * PX })));
      const a = (unit.facing * Math.PI) / 180;
      const len = 1.8;
      g.append(
        s("line", { class: "facing", x1: px(unit.x), y1: px(unit.y), x2: px(unit.x + Math.cos(a) * len), y2: px(unit.y + Math.sin(a) * len) }),
        s("circle", { class: "position", cx: px(unit.x), cy: px(unit.y), r: 0.22 * PX }),
        s("text", { class: "unit-label", x: px(unit.x), y: px(Math.max(...figures.map((f) => f[1])) + 1.1) }, `${unit.name || unit.id} (${figures.length})`),
        s("title", {}, describeCounter(unit)),
      );
      if (onUnit) activate(g, () => onUnit(unit));
      this.unitLayer.append(g);
    }
    this.spreadLabels();
  }

  // Units an inch or two apart would print their names over each other: each label, from the top
  // of the table down, moves down a line at a time (at most six) until it clears those placed.
  // A label by the table's edge is moved in so that it is not cut off.
  spreadLabels() {
    const view = this.svg.viewBox.baseVal;
    const labels = [...this.unitLayer.querySelectorAll(".unit-label")]
      .map((text) => ({ text, box: text.getBBox() }))
      .sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
    const placed = [];
    const clashes = (r, dy) =>
      placed.some((p) => r.x < p.x + p.width && p.x < r.x + r.width && r.y + dy < p.y + p.height && p.y < r.y + dy + r.height);
    for (const { text, box } of labels) {
      const dx = view.width ? Math.max(view.x - box.x, Math.min(0, view.x + view.width - box.x - box.width)) : 0;
      const r = { x: box.x + dx, y: box.y, width: box.width, height: box.height };
      let dy = 0;
      for (let step = 0; step < 6 && r.height > 0 && clashes(r, dy); step += 1) dy += r.height + 2; // a line and a gap
      if (dx) text.setAttribute("x", Number(text.getAttribute("x")) + dx);
      if (dy) text.setAttribute("y", Number(text.getAttribute("y")) + dy);
      placed.push({ ...r, y: r.y + dy });
    }
  }

  // The positions a template offers ({x, y, label, chosen}), each a button; onPick(index).
  drawOptions(options, onPick) {
    this.marks.replaceChildren();
    options.forEach((o, i) => {
      const g = s(
        "g",
        { class: `point-option${o.chosen ? " chosen" : ""}`, "data-option": i, "data-x": o.x, "data-y": o.y, tabindex: 0, role: "button", "aria-label": o.label },
        s("title", {}, o.label),
        s("circle", { class: "ghost", cx: px(o.x), cy: px(o.y), r: 0.6 * PX }),
      );
      activate(g, () => onPick(i));
      this.marks.append(g);
    });
  }
}

function gridLines(W, H) {
  const g = s("g", { class: "table-grid", "aria-hidden": "true" });
  for (let x = 6; x < W; x += 6) g.append(s("line", { x1: x * PX, y1: 0, x2: x * PX, y2: H * PX }));
  for (let y = 6; y < H; y += 6) g.append(s("line", { x1: 0, y1: y * PX, x2: W * PX, y2: y * PX }));
  return g;
}

function scaleBar(H) {
  const y = (H + 1) * PX;
  const g = s("g", { class: "scale", "aria-label": "Scale: 12 inches; the grid lines are 6 inches apart" });
  g.append(s("line", { x1: 0, y1: y, x2: 12 * PX, y2: y }));
  for (const x of [0, 3, 6, 9, 12]) {
    g.append(s("line", { x1: x * PX, y1: y - 4, x2: x * PX, y2: y + 4 }));
    if (x % 6 === 0) g.append(s("text", { x: x * PX, y: y + 16 }, `${x}"`));
  }
  g.append(s("text", { class: "scale-note", x: 13 * PX, y: y + 5 }, "grid: 6 inches"));
  return g;
}
