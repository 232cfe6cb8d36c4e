// One knowledge-base entry in a list (search results, an event's rulings): title, where it comes
// from, a snippet with the matched words highlighted, and a link to the entry's page.
import { h } from "./dom.js";

// Snippets are HTML with matches in <mark>: only the text and the marks are kept (never markup).
export function highlighted(html) {
  const doc = new DOMParser().parseFromString(`<body>${String(html || "")}</body>`, "text/html");
  return [...doc.body.childNodes].map((node) => (node.nodeName === "MARK" ? h("mark", {}, node.textContent) : node.textContent));
}

// Another game's ruling (`binding: false`): persuasive, not binding in the game at hand -- its label
// (`source`) says so and names the game it belongs to, in words.
export const persuasive = (item) => item && item.binding === false;

// Where an entry comes from, in words: the server's label (`source`: the game's title, "Club
// ruling", another game's ruling), never a document id.
export function sourceLabel(item) {
  if (!item || !item.source) return null;
  return h("span", { class: `source-label scope-${item.scope || "any"}${persuasive(item) ? " persuasive" : ""}` }, item.source);
}

// A rulebook's chart as the knowledge base keeps it (faq/parse_rulebooks.py keeps the book's tabs):
// either a cell per line, each line starting with a tab and a blank line between rows (Merida), or
// a row per line with its cells between tabs (Backbone). A plain line inside a table continues the
// cell before it (the TEC's "Defenders ignore retreats"), when more of the table follows; the rest
// are paragraphs. Returns paragraphs and tables, the first row of a table as its header.
export function chartBlocks(text) {
  const lines = String(text || "").split("\n");
  const isCell = (line) => line.startsWith("\t") && line.indexOf("\t", 1) < 0;
  const isRow = (line) => line.includes("\t") && !isCell(line);
  const tableFollows = (i) => {
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j];
      if (!line.trim() && !line.includes("\t")) continue;
      if (line.includes("\t")) return true;
      if (line.length > 60) return false;
    }
    return false;
  };
  const blocks = [];
  let table = null; // {rows: [[cell lines]]}
  let row = null; // the row cells are being added to (one cell per line)
  let joined = false; // a plain line just continued a cell: a cell right after it joins its row
  let para = null;
  lines.forEach((line, i) => {
    if (!line.trim() && !line.includes("\t")) {
      row = null;
      joined = false;
      para = null;
      return;
    }
    if (isRow(line)) {
      if (!table) blocks.push((table = { rows: [] }));
      table.rows.push(line.split("\t").map((c) => [c.trim()]));
      row = null;
      para = null;
      return;
    }
    if (isCell(line)) {
      if (!table) blocks.push((table = { rows: [] }));
      if (!row) {
        row = joined ? table.rows[table.rows.length - 1] : [];
        if (!joined) table.rows.push(row);
      }
      row.push([line.slice(1).trim()]);
      joined = false;
      para = null;
      return;
    }
    const last = table && table.rows[table.rows.length - 1];
    if (last && last.length && tableFollows(i)) {
      last[last.length - 1].push(line.trim());
      joined = true;
      return;
    }
    table = null;
    row = null;
    if (para) para.text += ` ${line.trim()}`;
    else blocks.push((para = { text: line.trim() }));
  });
  return blocks;
}

// A table's first row heads its columns when it reads as headings: an empty corner, a label
// ending in a colon ("Roll:"), or words without figures ("Terrain", "Movement cost"); a first
// row of figures ("Artillery", "4 mp's") is the first row of the chart itself.
function hasHeader(rows) {
  const first = rows[0] || [];
  const corner = (first[0] || []).join(" ");
  return rows.length > 1 && (corner === "" || corner.endsWith(":") || !first.some((c) => /\d/.test(c.join(" "))));
}

// A header row shorter than the rows under it lacks its first columns' headings (the chart's title
// took the first: Barcelona's "Troop Type"): it is padded at the start, so each heading stands over
// its own column.
function padded(rows) {
  const width = Math.max(...rows.map((r) => r.length));
  return rows.length > 1 && rows[0].length < width ? [[...Array.from({ length: width - rows[0].length }, () => [""]), ...rows[0]], ...rows.slice(1)] : rows;
}

// The parse keeps no empty cell (a line that was only a tab is a blank line in the stored text):
// a one-cell row followed by a row one cell short of the rest is one row with an empty second cell
// (Barcelona's "Carlists", no attribute, "3/4", "2", "5/6").
function mended(rows) {
  const width = Math.max(...rows.map((r) => r.length));
  const out = [];
  for (let i = 0; i < rows.length; i++) {
    const next = rows[i + 1];
    if (rows[i].length === 1 && next && next.length > 1 && 1 + 1 + next.length === width) {
      out.push([rows[i][0], [""], ...next]);
      i++;
    } else out.push(rows[i]);
  }
  return out;
}

export function chartView(text) {
  const lines = (ls) => ls.flatMap((l, k) => (k ? [h("br"), l] : [l]));
  const tableOf = (found) => {
    const head = hasHeader(found);
    const rows = mended(head ? padded(found) : found);
    return h(
      "div",
      { class: "chart-scroll" },
      h(
        "table",
        { class: "chart-table" },
        head ? h("thead", {}, h("tr", {}, rows[0].map((c) => h("th", { scope: "col" }, lines(c))))) : null,
        h("tbody", {}, rows.slice(head ? 1 : 0).map((r) => h("tr", {}, r.map((c, k) => (k ? h("td", {}, lines(c)) : h("th", { scope: "row" }, lines(c))))))),
      ),
    );
  };
  return h("div", { class: "chart" }, chartBlocks(text).map((b) => (b.rows ? tableOf(b.rows) : h("p", {}, b.text))));
}

// An entry in a list: its title (a link to its page), where it comes from in words, and a snippet
// with the matches marked -- a chart drawn as its table. Never the entry's id.
// Why a search result matched (issue 49), so a player can judge it: the question's words the
// entry holds, the way players ask it that holds the most of them, and its sentence closest in
// meaning to the question. An event's links carry their own `why` (a sentence, not this object)
// and are left alone.
export function whyMatched(item) {
  const why = item && item.why;
  if (!why || typeof why !== "object") return null;
  const words = why.words && why.words.length ? why.words : null;
  const parts = [
    words ? h("span", { class: "why-words" }, `Matches ${words.join(", ")}`) : null,
    why.asked ? h("span", { class: "why-asked" }, "Players ask it as: ", h("q", {}, why.asked)) : null,
    why.passage ? h("span", { class: "why-passage" }, "Closest in meaning: ", h("q", {}, why.passage)) : null,
  ].filter(Boolean);
  if (!parts.length) return null;
  return h("p", { class: "why" }, ...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
}

export function entryItem(item) {
  const title = item.heading || item.title || "Untitled entry";
  const refs = item.rule_refs && item.rule_refs.length ? `rule ${item.rule_refs.join(", ")}` : null;
  const kind = item.section_type === "chart" ? "chart" : item.kind;
  const where = [kind, refs].filter(Boolean).join(" · ");
  const chart = item.section_type === "chart" && item.text;
  return h(
    "li",
    { class: `entry${persuasive(item) ? " persuasive" : ""}`, "data-binding": item.binding === undefined ? null : String(item.binding) },
    item.id ? h("a", { href: `/rules/${encodeURIComponent(item.id)}` }, title) : h("strong", {}, title),
    sourceLabel(item),
    where ? h("span", { class: "meta" }, ` ${where}`) : null,
    chart ? chartView(item.text) : item.snippet || item.text ? h("p", { class: "snippet" }, highlighted(item.snippet || item.text)) : null,
    whyMatched(item),
  );
}
