// The board as text (issue 29, accessibility): every hex that holds something -- a stack, a mark
// (a destination or target of the orders in hand), a named place, a feature or terrain other than
// clear -- as a row a screen reader reads in order: the hex by its place, its terrain and features,
// the counters in words and what a mark means.  A stack of the player's and a marked hex carry a
// button that does what clicking them on the map does, so the game plays from this list by keyboard.
import { describeCounter } from "./board.js";
import { clear, h, humanize } from "./dom.js";

// `board`: GET /api/games/<id>/board; `counters`: the game's; `marks`: {hex: {kind, label}};
// `onStack(hex, units)` and `onMark(hex, mark)`: the map's own handlers; `all`: every hex.
export function boardText(el, { board, counters, marks, onStack, onMark, hexName, all = false }) {
  const stacks = new Map();
  for (const c of counters || []) {
    if (!c.hex) continue;
    if (!stacks.has(c.hex)) stacks.set(c.hex, []);
    stacks.get(c.hex).push(c);
  }
  const features = board.hex_features || {};
  const rows = [];
  for (const hx of board.hexes || []) {
    const units = stacks.get(hx.hex) || [];
    const mark = marks[hx.hex];
    const feats = features[hx.hex] || [];
    const named = hexName(hx.hex) !== hx.hex;
    if (!all && !units.length && !mark && !named && !feats.length && (hx.terrain || "clear") === "clear") continue;
    const ground = [humanize(hx.terrain || "clear"), ...feats.map((f) => humanize(f).toLowerCase())].join(", ");
    const actions = [];
    if (units.length) actions.push(h("button", { type: "button", class: "link", onclick: () => onStack(hx.hex, units) }, `Select ${hx.hex}`));
    const verb = { dest: `Move here (${hx.hex})`, target: `Attack ${hx.hex}`, decide: `Choose this (${hx.hex})` }[mark && mark.kind];
    if (verb) actions.push(h("button", { type: "button", class: "link", onclick: () => onMark(hx.hex, mark) }, verb));
    rows.push(
      h(
        "tr",
        { "data-hex": hx.hex, class: mark ? `mark-${mark.kind}` : null },
        h("th", { scope: "row" }, hexName(hx.hex)),
        h("td", {}, ground),
        h("td", {}, units.length ? units.map(describeCounter).join("; ") : "—"),
        h("td", {}, mark ? mark.label || humanize(mark.kind) : ""),
        h("td", {}, actions),
      ),
    );
  }
  clear(
    el,
    rows.length
      ? h(
          "div",
          { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "The board by hex" },
          h(
            "table",
            { class: "board-text" },
            h("caption", {}, all ? `Every hex (${rows.length})` : `The hexes that hold something (${rows.length}); marked hexes are what the orders in hand may reach`),
            h("thead", {}, h("tr", {}, ["Hex", "Ground", "Counters", "Marked", ""].map((t) => h("th", { scope: "col" }, t)))),
            h("tbody", {}, rows),
          ),
        )
      : h("p", {}, "No hex holds anything."),
  );
}
