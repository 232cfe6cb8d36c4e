// The arbiter's queue (GET /api/disputes/queue): each open dispute with its claim, the cited entries,
// the disputed event in words and links to the board at that version; the resolution form.
import { api, apiPage, currentUser, explain } from "./api.js";
import { clear, h, sideName, toast } from "./dom.js";
import { sourceLabel } from "./entries.js";
import { describe } from "./events.js";
import { when } from "./forms.js";
import { resolutionForm, showResult } from "./resolution.js";
import { systemTitles, titled } from "./titles.js";

const status = document.getElementById("queue-status");
const box = document.getElementById("queue");
const more = document.getElementById("queue-more");
const PAGE = 50;

async function eventAt(gameId, seq) {
  const page = await api(`/api/games/${gameId}/events?after=${seq - 1}&limit=1`);
  return page.events[0] || null;
}

async function entry(id) {
  try {
    const e = await api(`/api/rules/${encodeURIComponent(id)}`);
    return { id, heading: e.heading || e.title || id };
  } catch {
    return { id, heading: id };
  }
}

async function card(d) {
  const [event, cited, titles] = await Promise.all([eventAt(d.game, d.seq).catch(() => null), Promise.all((d.citations || []).map((c) => (typeof c === "string" ? entry(c) : { ...c, heading: c.heading || c.id }))), systemTitles()]);
  const slot = h("div", { class: "resolve-slot" });
  const article = h(
    "article",
    { class: "card dispute-card", "data-dispute": d.dispute, "data-game": d.game, "aria-labelledby": `dh-${d.game}-${d.dispute}` },
    h("h2", { id: `dh-${d.game}-${d.dispute}` }, `${d.title} — event #${d.seq} disputed`),
    h("p", { class: "meta" }, `${titled(titles, d.system)} · opened by ${d.by} (${sideName(d.side)}) ${when(d.opened_at)}`),
    h("blockquote", { class: "claim" }, d.claim),
    h(
      "p",
      { class: "disputed-event" },
      h("strong", {}, `Event #${d.seq}: `),
      event ? describe(event) : "not readable",
      event && event.retracted ? " (retracted since)" : "",
    ),
    h(
      "p",
      {},
      h("a", { href: `/games/${d.game}?version=${d.seq}` }, `Board at version ${d.seq} (after the event)`),
      " · ",
      h("a", { href: `/games/${d.game}?version=${Math.max(1, d.seq - 1)}` }, `before it (${Math.max(1, d.seq - 1)})`),
      " · ",
      h("a", { href: `/games/${d.game}/audit` }, "Audit"),
    ),
    h("p", {}, h("a", { class: "weigh", href: `/games/${d.game}/disputes/${encodeURIComponent(d.dispute)}` }, "Weigh it: what the claim would change, side by side")),
    h(
      "section",
      { "aria-label": "Entries the player cites" },
      h("h3", {}, "Cited by the player"),
      cited.length
        ? h("ul", {}, cited.map((c) => h("li", { class: c.binding === false ? "persuasive" : null }, h("a", { href: `/rules/${encodeURIComponent(c.id)}` }, c.heading), sourceLabel(c))))
        : h("p", {}, "No entry cited."),
    ),
    slot,
  );
  slot.append(
    resolutionForm({
      dispute: d,
      eventType: event ? event.type : "",
      cited,
      done: (result) => {
        showResult(slot, result, d.game, d.seq);
        article.classList.add("resolved");
        box.append(article); // below the disputes still open: the queue's top is what waits
        article.scrollIntoView({ block: "nearest" });
        status.textContent = `The dispute of event #${d.seq} (${d.title}) is resolved: ${result.verdict}.`;
      },
    }),
  );
  return article;
}

async function main() {
  const me = await currentUser();
  if (!me) {
    status.replaceChildren("Sign in to see your queue: ", h("a", { href: "/?next=/disputes" }, "sign in"), ".");
    return;
  }
  // a page at a time (X-Next-Cursor names the next one); "More disputes" appends the next
  const url = (after) => `/api/disputes/queue?limit=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
  try {
    const first = await apiPage(url(null));
    const shown = () => box.querySelectorAll(".dispute-card:not(.resolved)").length; // open ones
    const say = (next) => {
      const n = shown();
      status.textContent = n ? `${n}${next ? " or more" : ""} open dispute${n === 1 && !next ? "" : "s"} to resolve.` : "No open dispute for you to resolve.";
    };
    clear(box, await Promise.all(first.items.map(card)));
    let next = first.next;
    say(next);
    more.hidden = !next;
    more.onclick = async () => {
      if (!next || more.getAttribute("aria-disabled") === "true") return;
      more.setAttribute("aria-disabled", "true");
      try {
        const page = await apiPage(url(next));
        const cards = await Promise.all(page.items.map(card));
        // the open disputes before those resolved meanwhile, which stay at the end
        const resolved = box.querySelector(".dispute-card.resolved");
        if (resolved) resolved.before(...cards);
        else box.append(...cards);
        next = page.next;
        say(next);
        more.hidden = !next;
      } catch (err) {
        toast(explain(err));
      } finally {
        more.removeAttribute("aria-disabled");
      }
    };
  } catch (err) {
    status.textContent = explain(err);
  }
  document.body.dataset.ready = "true";
}

main();
