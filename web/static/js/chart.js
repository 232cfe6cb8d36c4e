// A player's rating history drawn as SVG: the rating at the end of each rating period (then the
// provisional one, dashed), with its deviation (RD) as a band; a data table for screen readers.
import { h, s } from "./dom.js";

const W = 560;
const H = 240;
const PAD = { left: 48, right: 16, top: 16, bottom: 34 };

export function ratingChart(username, history) {
  if (!history.length) return h("p", { id: "chart-empty" }, `${username} has no rated game yet.`);
  const lows = history.map((p) => p.rating - p.rd);
  const highs = history.map((p) => p.rating + p.rd);
  let min = Math.min(...lows, ...history.map((p) => p.rating));
  let max = Math.max(...highs, ...history.map((p) => p.rating));
  const pad = Math.max(10, (max - min) * 0.08);
  min = Math.floor((min - pad) / 50) * 50;
  max = Math.ceil((max + pad) / 50) * 50;
  const n = history.length;
  const x = (i) => PAD.left + (n === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (n - 1));
  const y = (v) => PAD.top + ((max - v) * (H - PAD.top - PAD.bottom)) / (max - min);
  const ticks = [];
  const step = Math.max(50, Math.ceil((max - min) / 5 / 50) * 50);
  for (let v = min; v <= max; v += step) ticks.push(v);
  const band = [...history.map((p, i) => `${x(i)},${y(p.rating + p.rd)}`), ...history.map((p, i) => `${x(i)},${y(p.rating - p.rd)}`).reverse()].join(" ");
  const final = history.filter((p) => !p.provisional);
  const last = history[n - 1];
  const summary = `${username}: rating ${last.rating.toFixed(0)} (RD ${last.rd.toFixed(0)})${last.provisional ? ", provisional" : ""}, ${n} point${n === 1 ? "" : "s"} from period ${history[0].period} to ${last.period}`;
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": summary, "data-points": n },
    s("title", {}, summary),
    ticks.map((v) => [
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: PAD.left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, v),
    ]),
    s("polygon", { points: band, class: "rd-band" }),
    final.length > 1 ? s("polyline", { points: history.map((p, i) => (p.provisional ? null : `${x(i)},${y(p.rating)}`)).filter(Boolean).join(" "), class: "rating-line" }) : null,
    last.provisional && n > 1 ? s("line", { x1: x(n - 2), y1: y(history[n - 2].rating), x2: x(n - 1), y2: y(last.rating), class: "rating-line provisional" }) : null,
    history.map((p, i) => [
      s("line", { x1: x(i), x2: x(i), y1: y(p.rating - p.rd), y2: y(p.rating + p.rd), class: "rd-bar" }),
      s("circle", { cx: x(i), cy: y(p.rating), r: 4.5, class: p.provisional ? "point provisional" : "point" }, s("title", {}, `Period ${p.period}: ${p.rating} ± ${p.rd}${p.provisional ? " (provisional)" : ""}`)),
      s("text", { x: x(i), y: H - PAD.bottom + 16, class: "tick", "text-anchor": "middle" }, p.period),
    ]),
    s("text", { x: (W + PAD.left) / 2, y: H - 4, class: "axis", "text-anchor": "middle" }, "rating period"),
  );
  const table = h(
    "details",
    { class: "chart-data" },
    h("summary", {}, "The figures"),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ["Period", "Rating", "RD", "Volatility", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, history.map((p) => h("tr", {}, h("td", {}, p.period), h("td", {}, p.rating), h("td", {}, p.rd), h("td", {}, p.volatility), h("td", {}, p.provisional ? "provisional" : "")))),
    ),
  );
  return [svg, table];
}
