// The scenario editor's drawing: a hex map as a simple SVG grid (terrain fills, features, hexsides,
// counters' set-up hexes, problems outlined), or a table in inches (pieces, zones, objectives).
// Pointer handling reports hexes (and table points) to the page; it never edits by itself.
import { s } from "./dom.js";
import { UNIT_DRAG } from "./editor_units.js";

export const TERRAIN_COLOURS = {
  clear: "#f4f1e4",
  mountain: "#b99462",
  hill: "#d6c08e",
  forest: "#7fa66b",
  woods: "#7fa66b",
  rough: "#c2b59b",
  marsh: "#9fc3b8",
  swamp: "#9fc3b8",
  sea: "#8db8d8",
  water: "#8db8d8",
  lake: "#8db8d8",
  city: "#c8c2bd",
  town: "#dcd6cf",
};
const OTHER = ["#e8c7de", "#c9d7f0", "#f0dcc0", "#d3e8c4", "#e6e6a8"];
const SIDE_STYLES = {
  river: { stroke: "#2f6db5", width: 0.22 },
  road: { stroke: "#8a5a2b", width: 0.12, dash: "0.2 0.12" },
  rail: { stroke: "#333", width: 0.1, dash: "0.08 0.08" },
  strait: { stroke: "#1b8a9a", width: 0.2, dash: "0.3 0.1" },
  impassable: { stroke: "#222", width: 0.26 },
};

export function terrainColour(name, known = []) {
  if (TERRAIN_COLOURS[name]) return TERRAIN_COLOURS[name];
  const i = Math.max(0, known.indexOf(name));
  return OTHER[i % OTHER.length];
}

function corners(x, y, orientation) {
  const points = [];
  for (let i = 0; i < 6; i += 1) {
    const a = (Math.PI / 180) * (60 * i - (orientation === "pointy" ? 30 : 0));
    points.push(`${(x + 0.97 * Math.cos(a)).toFixed(3)},${(y + 0.97 * Math.sin(a)).toFixed(3)}`);
  }
  return points.join(" ");
}

// The edge two adjacent hexes share, from their centres.
function edge(a, b) {
  const mx = (a.x + b.x) / 2;
  const my = (a.y + b.y) / 2;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy) || 1;
  const px = (-dy / len) * 0.5;
  const py = (dx / len) * 0.5;
  return { x1: mx - px, y1: my - py, x2: mx + px, y2: my + py };
}

// Draw a hex map into `container`. `marks`: {errors: Map(hex -> reasons), units: Map(hex -> names),
// selected: hex | null}. `handlers`: {down(hex), over(hex), up()}.
export function drawHexes(container, board, marks, handlers, scale) {
  const known = board.terrain_types || [];
  const byHex = new Map(board.hexes.map((x) => [x.hex, x]));
  const width = board.size.width + 0.5;
  const height = board.size.height + 0.5;
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width: Math.round(width * scale),
    height: Math.round(height * scale),
    role: "group",
    "aria-label": "The map: each hex with its label and terrain",
    class: "ed-svg",
  });
  const placeAt = new Map((board.places || []).map((p) => [p.hex, p]));
  const hexLayer = s("g", {});
  for (const cell of board.hexes) {
    const features = (board.hex_features || {})[cell.hex] || [];
    const errs = marks.errors.get(`hex ${cell.hex}`);
    const units = marks.units.get(cell.hex);
    const place = placeAt.get(cell.hex);
    const title = [place ? `${place.name} (${place.kind || "place"})` : "", `${cell.hex}: ${cell.terrain}`, features.length ? features.join(", ") : "", units ? units.join(", ") : "", errs ? errs.join("; ") : ""]
      .filter(Boolean)
      .join(" · ");
    const g = s(
      "g",
      { "data-hex": cell.hex, class: `ed-hex${errs ? " has-error" : ""}${marks.selected === cell.hex ? " selected" : ""}` },
      s("title", {}, title),
      s("polygon", { points: corners(cell.x, cell.y, board.orientation), fill: terrainColour(cell.terrain, known) }),
      features.length ? s("rect", { x: cell.x - 0.18, y: cell.y - 0.18, width: 0.36, height: 0.36, class: `ed-feature ${features.includes("city") ? "city" : ""}` }) : null,
      units ? s("circle", { cx: cell.x + 0.45, cy: cell.y - 0.4, r: 0.24, class: "ed-unit-dot" }) : null,
      units ? s("text", { x: cell.x + 0.45, y: cell.y - 0.31, class: "ed-unit-count" }, String(units.length)) : null,
      s("text", { x: cell.x, y: cell.y + 0.62, class: "ed-label" }, cell.hex),
    );
    hexLayer.append(g);
  }
  svg.append(hexLayer);
  const sideLayer = s("g", { class: "ed-hexsides" });
  for (const side of board.hexsides || []) {
    const a = byHex.get(side.hexes[0]);
    const b = byHex.get(side.hexes[1]);
    if (!a || !b) continue;
    for (const feature of side.features) {
      const style = SIDE_STYLES[feature] || { stroke: "#7a1f5c", width: 0.14 };
      const line = edge(a, b);
      const errs = marks.errors.get(`hexside ${side.hexes.join("/")}`);
      sideLayer.append(
        s("line", { ...line, stroke: errs ? "#c1121f" : style.stroke, "stroke-width": style.width, "stroke-dasharray": style.dash, "stroke-linecap": "round" }, s("title", {}, `${side.hexes.join("/")}: ${side.features.join(", ")}`)),
      );
    }
  }
  svg.append(sideLayer);
  const hexAt = (ev) => document.elementFromPoint(ev.clientX, ev.clientY)?.closest?.("[data-hex]")?.dataset.hex;
  svg.addEventListener("pointerdown", (ev) => {
    const hex = hexAt(ev);
    if (!hex) return;
    ev.preventDefault();
    handlers.down(hex);
  });
  svg.addEventListener("pointermove", (ev) => {
    if (ev.buttons !== 1) return;
    const hex = hexAt(ev);
    if (hex) handlers.over(hex);
  });
  // a counter dragged from the counter sheet (or the set-up palette) is set up where it is dropped
  svg.addEventListener("dragover", (ev) => {
    if (handlers.drop && ev.dataTransfer.types.includes(UNIT_DRAG)) ev.preventDefault();
  });
  svg.addEventListener("drop", (ev) => {
    const unit = ev.dataTransfer.getData(UNIT_DRAG);
    const hex = hexAt(ev);
    if (!unit || !hex || !handlers.drop) return;
    ev.preventDefault();
    handlers.drop(hex, unit);
  });
  container.replaceChildren(svg);
  return svg;
}

// Draw a table in inches: pieces (rect or polygon) with their effects, deployment zones, entry
// points and objectives.  `marks.errors`: Map(place -> reasons).
export function drawTable(container, board, marks, onPoint, scale) {
  const svg = s("svg", {
    viewBox: `-1 -1 ${board.width + 2} ${board.height + 2}`,
    width: Math.round((board.width + 2) * scale),
    height: Math.round((board.height + 2) * scale),
    role: "group",
    "aria-label": `The table, ${board.width} by ${board.height} inches`,
    class: "ed-svg",
  });
  svg.append(s("rect", { x: 0, y: 0, width: board.width, height: board.height, class: "ed-table-top" }));
  for (const [side, zone] of Object.entries(board.deployment || {})) {
    if (!zone.rect) continue;
    const [x, y, w, hgt] = zone.rect;
    const bad = marks.errors.has(`zone ${side}`);
    svg.append(s("rect", { x, y, width: w, height: hgt, class: `ed-zone${bad ? " has-error" : ""}` }, s("title", {}, `${side} deployment zone`)));
    svg.append(s("text", { x: x + 0.5, y: y + 1.2, class: "ed-table-label" }, `${side} deployment`));
  }
  for (const area of board.areas || []) {
    const name = area.name || area.id;
    const bad = marks.errors.has(`piece ${name}`);
    const cls = `ed-piece ${(area.effects || []).join(" ")}${bad ? " has-error" : ""}`;
    const title = s("title", {}, `${name}: ${(area.effects || []).join(", ") || "no effect"}`);
    if (area.rect) {
      const [x, y, w, hgt] = area.rect;
      svg.append(s("rect", { x, y, width: w, height: hgt, class: cls }, title));
      svg.append(s("text", { x: x + w / 2, y: y + hgt / 2, class: "ed-table-label mid" }, name));
    } else if (area.polygon) {
      svg.append(s("polygon", { points: area.polygon.map((p) => p.join(",")).join(" "), class: cls }, title));
      const cx = area.polygon.reduce((t, p) => t + p[0], 0) / area.polygon.length;
      const cy = area.polygon.reduce((t, p) => t + p[1], 0) / area.polygon.length;
      svg.append(s("text", { x: cx, y: cy, class: "ed-table-label mid" }, name));
    }
  }
  for (const [side, point] of Object.entries(board.entries || {})) {
    svg.append(s("circle", { cx: point[0], cy: point[1], r: 0.6, class: "ed-entry" }, s("title", {}, `${side} entry point`)));
  }
  for (const objective of board.objectives || []) {
    const bad = marks.errors.has(`objective ${objective.name}`);
    const [x, y] = objective.point;
    svg.append(s("polygon", { points: `${x},${y - 1} ${x + 0.9},${y} ${x},${y + 1} ${x - 0.9},${y}`, class: `ed-objective${bad ? " has-error" : ""}` }, s("title", {}, `objective ${objective.name}`)));
    svg.append(s("text", { x: x + 1.1, y: y + 0.4, class: "ed-table-label" }, objective.name));
  }
  svg.addEventListener("click", (ev) => {
    const box = svg.getBoundingClientRect();
    const x = ((ev.clientX - box.left) / box.width) * (board.width + 2) - 1;
    const y = ((ev.clientY - box.top) / box.height) * (board.height + 2) - 1;
    onPoint([Math.round(x * 2) / 2, Math.round(y * 2) / 2]);
  });
  container.replaceChildren(svg);
  return svg;
}
