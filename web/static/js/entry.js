// One knowledge-base entry (GET /api/rules/<id>): its question, answers, authorities, linked events.
import { api, explain } from "./api.js";
import { clear, h, humanize } from "./dom.js";
import { chartView, highlighted } from "./entries.js";

const article = document.getElementById("entry");
const entryId = article.dataset.entry;

function value(v) {
  if (Array.isArray(v)) return h("ul", {}, v.map((x) => h("li", {}, value(x))));
  if (v && typeof v === "object") {
    if (v.game && v.seq !== undefined) return h("a", { href: `/games/${v.game}` }, `Game ${String(v.game).slice(0, 8)}…, event #${v.seq}`);
    if (v.id && (v.title || v.section)) return h("a", { href: `/rules/${encodeURIComponent(v.id)}` }, v.title || v.section);
    return h("dl", {}, Object.entries(v).flatMap(([k, x]) => [h("dt", {}, humanize(k)), h("dd", {}, value(x))]));
  }
  return h("span", {}, highlighted(String(v)));
}

async function main() {
  try {
    const [entry, systems] = await Promise.all([api(`/api/rules/${encodeURIComponent(entryId)}`), api("/api/systems").catch(() => [])]);
    // where the entry comes from, in words: the game's rulebook by its title, never the document id
    const books = new Map([...systems.filter((s) => s.document).map((s) => [s.document, `${s.title.split(" - ")[0]} rulebook`]), ["fwtbt-faq", "For Whom the Bell Tolls FAQ"]]);
    const from = books.get(entry.document) || (String(entry.document || "").startsWith("club") ? "Club ruling" : null);
    const title = entry.heading || entry.title || entryId;
    document.title = `${title} · Arbiter`;
    const skip = new Set(["id", "title", "heading", "extra", "order", "heading_refs", "score", "snippet", "section_type", "document"]);
    clear(
      article,
      h("h1", {}, title),
      from ? h("p", { class: "meta entry-source" }, `From: ${from}`) : null,
      Object.entries(entry)
        .filter(([k, v]) => !skip.has(k) && v !== null && v !== "" && !(Array.isArray(v) && !v.length))
        .map(([k, v]) => h("section", { class: `field field-${k}` }, h("h2", {}, humanize(k)), k === "text" && entry.section_type === "chart" ? chartView(v) : value(v))),
    );
  } catch (err) {
    clear(article, h("h1", {}, "Rule"), h("p", {}, err.status === 404 ? "This entry, or the rules knowledge base, is not available on this server." : explain(err)));
  }
}

main();
