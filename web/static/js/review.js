// A game's review (GET /api/games/<id>/review): the luck of each side the reader may see, measured
// from the dice in the game's own terms, the key moments (each links to the board at that moment:
// the game page's time travel, /games/<id>?v=<version>), a chart of victory points and losses per
// turn, and the game turn by turn in the log's own words, a page at a time.
import { api, explain } from "./api.js";
import { sideClass } from "./board.js";
import { clear, h, s } from "./dom.js";

const root = document.getElementById("review-page");
const id = root.dataset.game;
const $ = (x) => document.getElementById(x);
const sideName = (side) => side.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
const num = (v, digits = 2) => (Number.isInteger(v) ? String(v) : Number(v).toFixed(digits));
const boardAt = (seq) => `/games/${id}?v=${seq}`;
let lastTurn = null;

function resultWords(review) {
  if (review.status !== "ended" || !review.result) return `In progress (version ${review.version}).`;
  const winner = review.result.winner;
  if (!winner) return "The game ended in a draw.";
  const player = review.sides[winner];
  return `${sideName(winner)}${player ? ` (${player})` : ""} won${review.result.level ? ` (${review.result.level})` : ""}.`;
}

function rollWords(r) {
  if (r.outcome === null) return `Turn ${r.turn}: ${r.purpose || "a roll"} — rolled ${r.die} on a d${r.faces}; no value to measure, each face was as likely.`;
  const diff = r.luck;
  const how = Math.abs(diff) < 1e-9 ? "exactly the average" : `${diff > 0 ? "+" : ""}${num(diff)} against the average`;
  return `Turn ${r.turn}: ${r.purpose} — rolled ${r.die} (${r.what}): produced ${num(r.outcome)}, ${num(r.expected)} expected; ${how}.`;
}

function luckView(review) {
  const sides = Object.entries(review.luck);
  if (!sides.length)
    return h("p", { class: "note" }, review.status === "ended" ? "No side's dice were recorded." : "The players see their own side's luck while the game goes on; everyone who may read the game sees it once the game is over.");
  return sides.map(([side, luck]) => {
    const measured = luck.rolls.filter((r) => r.outcome !== null);
    const other = luck.rolls.filter((r) => r.outcome === null);
    return h(
      "div",
      { class: "luck-side", "data-side": side },
      h("p", { class: "luck-words" }, luck.words),
      measured.length
        ? h("details", {}, h("summary", {}, `${sideName(side)}: ${measured.length} measured roll${measured.length === 1 ? "" : "s"}`),
            h("ul", { class: "luck-rolls" }, measured.map((r) => h("li", {}, rollWords(r), " ", h("a", { href: boardAt(r.seq) }, "board then")))))
        : null,
      other.length
        ? h("details", {}, h("summary", {}, `${other.length} other ${sideName(side)} roll${other.length === 1 ? "" : "s"} with no value (distribution only)`),
            h("ul", { class: "luck-rolls" }, other.map((r) => h("li", {}, rollWords(r)))))
        : null,
    );
  });
}

function momentsView(review) {
  if (!review.moments.length) return h("p", { class: "note" }, "No swing to mark yet.");
  return h(
    "ol",
    { class: "moments" },
    review.moments.map((m) => h("li", { "data-kind": m.kind }, `Turn ${m.turn}: ${m.text}. `, h("a", { href: boardAt(m.seq) }, "See the board at this moment"))),
  );
}

const W = 560;
const H = 240;
const PAD = { left: 40, right: 12, top: 12, bottom: 30 };

// The chart's lines in each side's counter colour, as the board draws them (the system's
// `side_colours`: Merida's Nationalists blue, Republicans green), not by the sides' order.
function chartView(chart, colours = {}) {
  const cls = (side) => sideClass(chart.sides, side, colours);
  const points = chart.turns;
  if (!points.length) return h("p", { class: "note", id: "chart-empty" }, "No turn is over yet.");
  const values = points.flatMap((p) => Object.values(p.sides).flatMap((v) => [v.vp, v.losses].filter((x) => x !== undefined)));
  const top = Math.max(1, ...values);
  const turns = points.map((p) => p.turn);
  const first = Math.min(...turns);
  const span = Math.max(1, Math.max(...turns) - first);
  const x = (t) => PAD.left + ((t - first) * (W - PAD.left - PAD.right)) / span;
  const y = (v) => PAD.top + ((top - v) * (H - PAD.top - PAD.bottom)) / top;
  const lines = [];
  chart.sides.forEach((side) => {
    for (const [key, dash] of [["vp", null], ["losses", "6 4"]]) {
      const pts = points.filter((p) => p.sides[side] && p.sides[side][key] !== undefined).map((p) => `${x(p.turn)},${y(p.sides[side][key])}`);
      if (!pts.length) continue;
      lines.push(s("polyline", { class: `series ${cls(side)}`, points: pts.join(" "), "stroke-dasharray": dash }, s("title", {}, `${sideName(side)} ${key === "vp" ? "victory points" : "losses"}`)));
      // a mark at each turn's value, so a one-turn game shows its points too
      for (const pt of pts) {
        const [cx, cy] = pt.split(",");
        lines.push(s("circle", { class: `mark ${cls(side)}`, cx, cy, r: 3.5 }));
      }
    }
  });
  const labels = turns.filter((_, i) => i % Math.max(1, Math.ceil(turns.length / 10)) === 0).map((t) => s("text", { x: x(t), y: H - 8, "text-anchor": "middle" }, String(t)));
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "review-chart", role: "img", "aria-label": `Victory points and losses per turn, turns ${first} to ${Math.max(...turns)}` },
    s("line", { x1: PAD.left, y1: y(0), x2: W - PAD.right, y2: y(0), class: "axis" }),
    s("line", { x1: PAD.left, y1: y(0), x2: PAD.left, y2: y(top), class: "axis" }),
    s("text", { x: PAD.left - 6, y: y(top) + 4, "text-anchor": "end" }, String(top)),
    s("text", { x: PAD.left - 6, y: y(0) + 4, "text-anchor": "end" }, "0"),
    ...labels,
    ...lines,
  );
  const legend = h("ul", { class: "legend" }, chart.sides.map((side) => h("li", { class: cls(side) }, `${sideName(side)}: victory points (solid line), losses (dashed)`)));
  // the same figures as a table, for screen readers and for reading exact values
  const table = h(
    "table",
    { class: "chart-table" },
    h("caption", {}, "Victory points and losses at the end of each turn"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Turn"), ...chart.sides.flatMap((sd) => [h("th", { scope: "col" }, `${sideName(sd)} VP`), h("th", { scope: "col" }, `${sideName(sd)} losses`)]))),
    h("tbody", {}, points.map((p) => h("tr", {}, h("th", { scope: "row" }, String(p.turn)), ...chart.sides.flatMap((sd) => [h("td", {}, p.sides[sd]?.vp ?? "—"), h("td", {}, p.sides[sd]?.losses ?? "—")])))),
  );
  return [h("div", { class: "chart-wrap" }, svg), legend, h("details", {}, h("summary", {}, "The figures as a table"), table)];
}

function storyView(items, into) {
  let list = into.lastElementChild && into.lastElementChild.tagName === "OL" ? into.lastElementChild : null;
  for (const item of items) {
    if (item.turn !== lastTurn) {
      lastTurn = item.turn;
      into.append(h("h3", {}, `Turn ${item.turn}`));
      list = h("ol", { class: "story" });
      into.append(list);
    }
    list.append(h("li", {}, item.text, " ", h("a", { href: boardAt(item.seq), class: "board-link", "aria-label": `Board after event ${item.seq}` }, "board")));
  }
}

async function load(after = 0) {
  const review = await api(`/api/games/${id}/review?after=${after}`);
  if (after === 0) {
    document.title = `Review: ${review.title} · Arbiter`;
    $("review-title").textContent = `Review: ${review.title}`;
    $("review-result").textContent = resultWords(review);
    clear($("luck")).append(...[luckView(review)].flat());
    clear($("moments")).append(momentsView(review));
    const system = await api(`/api/systems/${encodeURIComponent(review.system)}`).catch(() => ({}));
    clear($("review-chart")).append(...[chartView(review.chart, system.side_colours || {})].flat());
    clear($("timeline"));
    if (!review.timeline.length) $("timeline").append(h("p", { class: "note" }, "Nothing has happened yet."));
  }
  storyView(review.timeline, $("timeline"));
  const more = $("more-story");
  more.hidden = review.next_after === null;
  more.onclick = () => load(review.next_after).catch(failed);
}

function failed(err) {
  $("review-result").textContent = explain(err);
}

load().catch(failed);
