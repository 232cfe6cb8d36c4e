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

export function entryItem(item) {
  const title = item.heading || item.title || item.id;
  const refs = item.rule_refs && item.rule_refs.length ? `rule ${item.rule_refs.join(", ")}` : null;
  const where = [item.source ? null : item.document, item.kind, refs].filter(Boolean).join(" · ");
  return h(
    "li",
    { class: `entry${persuasive(item) ? " persuasive" : ""}`, "data-binding": item.binding === undefined ? null : String(item.binding) },
    item.id ? h("a", { href: `/rules/${encodeURIComponent(item.id)}` }, title) : h("strong", {}, title),
    sourceLabel(item),
    where ? h("span", { class: "meta" }, ` ${where}`) : null,
    item.snippet || item.text ? h("p", { class: "snippet" }, highlighted(item.snippet || item.text)) : null,
    item.id ? h("p", { class: "meta" }, "id: ", h("code", {}, item.id)) : null,
  );
}
