// The arbiter's page for one dispute (GET /api/games/<id>/disputes/<d>/what-if): the claim, then
// what was recorded and what the claim would give side by side -- the events in words, the combat
// table with both cells marked, the board before and after each, the later orders' fate -- then the
// verdict form.  A player sees the same page in their side's view, without the form.
import { loadTable, valueWords as codeWords } from "./aids.js";
import { api, currentUser, explain } from "./api.js";
import { BoardView, R } from "./board.js";
import { clear, h, humanize, ruleWords } from "./dom.js";
import { sourceLabel } from "./entries.js";
import { alternativeWords, citationWords } from "./events.js";
import { when } from "./forms.js";
import { resolutionForm, resolutionResult } from "./resolution.js";

const root = document.getElementById("dispute-page");
// from the page's address: sent back only as path segments of the API, encoded
const gameId = encodeURIComponent(root.dataset.game);
const disputeId = encodeURIComponent(root.dataset.dispute);
const $ = (id) => document.getElementById(id);

const FATES = { kept: "kept", "re-rolled": "rolls again", dropped: "dropped" };

// A rules event of the what-if as the combat helpers read events ({type, text, payload: {data}}).
const asEvent = (e) => ({ type: e.kind, text: e.text, payload: { data: e.data } });
const combatOf = (events) => (events || []).map((e) => e.data || {}).find((d) => d.column !== undefined && (d.die || d.modified_roll !== undefined));

function eventList(events, empty) {
  if (!events.length) return h("p", { class: "none" }, empty);
  return h("ol", { class: "what-if-events" }, events.map((e) => h("li", { "data-kind": e.kind }, e.text)));
}

// One combat table, the recorded cell and the claimed one marked (and told in words beside it).
async function bothCells(system, recorded, alternative) {
  const box = h("div", { class: "what-if-crt" });
  const any = recorded || alternative;
  if (!any) return box;
  const table = await loadTable(system, any.table || "crt");
  if (!table || !Array.isArray(table.rows)) return box;
  const rolls = table.rows.map((r) => r.roll);
  const row = (c) => (c.modified_roll !== undefined ? Math.min(Math.max(c.modified_roll, Math.min(...rolls)), Math.max(...rolls)) : c.die && c.die.value);
  const mark = (c, cls) => (c ? { col: table.columns.indexOf(c.column), row: row(c), cls } : null);
  const marks = [mark(recorded, "cell-recorded"), mark(alternative, "cell-alternative")].filter(Boolean);
  const classes = (ri, ci) => marks.filter((m) => m.row === table.rows[ri].roll && m.col === ci).map((m) => m.cls).join(" ") || null;
  // a region that may scroll sideways on a phone: reachable with the keyboard
  Object.entries({ tabindex: "0", role: "region", "aria-label": "The combat results table, both cells marked" }).forEach(([k, v]) => box.setAttribute(k, v));
  const said = (c, label) => (c ? `${label}: column ${c.column}, row ${row(c)}, result ${c.result}` : null);
  clear(
    box,
    h(
      "table",
      { class: "crt grid compare-crt" },
      h("caption", {}, "Combat results table: ", [said(recorded, "as recorded"), said(alternative, "under the claim")].filter(Boolean).join("; ")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Roll"), table.columns.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        table.rows.map((r, ri) => h("tr", {}, h("th", { scope: "row" }, String(r.roll)), r.results.map((x, ci) => h("td", { class: classes(ri, ci) }, codeWords(x))))),
      ),
    ),
    h("p", { class: "legend" }, h("span", { class: "swatch cell-recorded" }), " as recorded  ", h("span", { class: "swatch cell-alternative" }), " under the claim"),
  );
  return box;
}

// The board in a state, framed on the hexes that matter (`focus`).
function boardOf(board, system, sides, counters, focus, label) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "board what-if-board");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const view = new BoardView(svg, board, { sides, colours: system.side_colours || {} });
  view.drawCounters(counters || [], () => {});
  // a picture, not a board to play on: its stacks are not controls (the figure's caption and
  // the events say what it shows)
  for (const g of svg.querySelectorAll("[tabindex], [role=button]")) {
    g.removeAttribute("tabindex");
    g.removeAttribute("role");
  }
  const points = (focus || []).map((x) => view.at(x)).filter(Boolean);
  if (points.length) {
    const pad = 2.2 * R;
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const x0 = Math.min(...xs) - pad;
    const y0 = Math.min(...ys) - pad;
    svg.setAttribute("viewBox", `${x0} ${y0} ${Math.max(...xs) - x0 + pad} ${Math.max(...ys) - y0 + pad}`);
  }
  return h("figure", { class: "what-if-figure" }, svg, h("figcaption", {}, label));
}

function laterTable(later) {
  if (!later.length) return h("p", {}, "No later orders: nothing else would change.");
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "report later" },
      h("caption", {}, "The later orders, decided again on the corrected game"),
      h("thead", {}, h("tr", {}, ["Order", "What it did", "By", "Its fate", "Why"].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        later.map((c) =>
          h("tr", { class: `report-${c.outcome}` }, h("td", {}, `#${c.seq}`), h("td", {}, c.text), h("td", {}, c.by || ""), h("td", {}, FATES[c.outcome] || c.outcome), h("td", {}, c.reason, c.rule ? ` (${ruleWords(c.rule)})` : "")),
        ),
      ),
    ),
  );
}

// An ended game's dispute: the order as recorded; nothing is re-decided.
function renderEnded(whatIf, draw, hexes) {
  $("change-title").textContent = "The disputed order";
  $("change-note").hidden = true;
  clear(
    $("what-if"),
    h("p", { class: "ended-note" }, "The game has ended: its orders and its result stand, and nothing is re-decided, so there is no what-if. The arbiter upholds the event, and if it was wrong makes a club ruling by which later games are decided."),
    hexes ? h("details", { class: "before" }, h("summary", {}, "The board before the order"), draw("before", "Before the disputed order")) : null,
    h("article", { class: "outcome recorded", "aria-labelledby": "rec-title" }, h("h3", { id: "rec-title" }, "As recorded"), eventList(whatIf.recorded.events, "No event."), draw("recorded", "The board as recorded")),
  );
}

async function render(game, dispute, whatIf, system, board) {
  const sides = Object.keys(game.sides);
  const hexes = board && Array.isArray(board.hexes) && board.hexes.length;
  const draw = (part, label) => (hexes ? boardOf(board, system, sides, whatIf[part].counters, whatIf.focus, label) : null);
  if (whatIf.ended) return renderEnded(whatIf, draw, hexes);
  const alt = whatIf.alternative;
  const claimTitle = alt.removed ? "With the disputed event removed" : `Under the claim: ${alternativeWords({ reading: Object.fromEntries((alt.reading || []).map((r) => [r.option, r.value])), instead: alt.instead })}`;
  const crt = await bothCells(system, combatOf(whatIf.recorded.events), combatOf(alt.events));
  clear(
    $("what-if"),
    h("h3", {}, "Differences"),
    whatIf.differences.length ? h("ul", { class: "differences" }, whatIf.differences.map((d) => h("li", {}, d))) : h("p", {}, "No unit's fate, place or strength differs."),
    whatIf.dice.length ? [h("h3", {}, "The dice"), h("ul", { class: "what-if-dice" }, whatIf.dice.map((d) => h("li", { class: d.reused ? "reused" : "fresh" }, d.text)))] : null,
    hexes ? h("details", { class: "before" }, h("summary", {}, "The board before the order"), draw("before", "Before the disputed order")) : null,
    h(
      "div",
      { class: "compare" },
      h("article", { class: "outcome recorded", "aria-labelledby": "rec-title" }, h("h3", { id: "rec-title" }, "As recorded"), eventList(whatIf.recorded.events, "No event."), draw("recorded", "The board as recorded")),
      h(
        "article",
        { class: "outcome alternative", "aria-labelledby": "alt-title" },
        h("h3", { id: "alt-title" }, claimTitle),
        alt.refused ? h("p", { class: "refused" }, `The order would be refused: ${alt.refused.reason}${alt.refused.rule ? ` (${ruleWords(alt.refused.rule)})` : ""}.`) : null,
        eventList(alt.events, alt.removed ? "Nothing else of the order stands." : "No event."),
        draw("alternative", `The board ${alt.removed ? "without the event" : "under the claim"}`),
      ),
    ),
    crt,
    h("h3", {}, "The later orders"),
    laterTable(whatIf.later),
    whatIf.decided_on
      ? h("p", { class: whatIf.decided_on.matches ? "ok" : "error" }, whatIf.decided_on.matches ? "The verdict was decided on this what-if: its digest, recorded with the verdict, matches." : "This what-if no longer matches the digest recorded with the verdict.")
      : null,
  );
}

function claimBox(game, dispute) {
  const alt = game.disputes[dispute.dispute] || {};
  const claimed = alt.reading && Object.keys(alt.reading).length ? alt : alt.instead ? alt : null;
  return [
    h("p", { class: "meta" }, `${game.title} · event #${dispute.seq} · opened by ${dispute.by} (${humanize(dispute.side)}) ${when(dispute.opened_at)} · ${dispute.status === "open" ? "open" : dispute.status}`),
    h("blockquote", { class: "claim" }, dispute.claim),
    claimed ? h("p", { class: "claimed" }, "What should have applied, the player says: ", h("strong", {}, alternativeWords(claimed))) : null,
    (dispute.citations || []).length
      ? h("ul", { class: "cited" }, dispute.citations.map((c) => h("li", { class: c.binding === false ? "persuasive" : null }, h("a", { href: `/rules/${encodeURIComponent(c.id)}` }, citationWords(c)), sourceLabel(c))))
      : h("p", {}, "No entry cited."),
  ];
}

async function main() {
  const me = await currentUser();
  if (!me) {
    clear($("what-if"), h("p", {}, "Sign in to see this dispute: ", h("a", { href: `/?next=${encodeURIComponent(location.pathname)}` }, "sign in"), "."));
    return;
  }
  let game;
  let disputes;
  try {
    [game, disputes] = await Promise.all([api(`/api/games/${gameId}`), api(`/api/games/${gameId}/disputes`)]);
  } catch (err) {
    clear($("claim"), h("p", {}, explain(err)));
    return;
  }
  const dispute = disputes.find((d) => d.dispute === root.dataset.dispute);
  if (!dispute) {
    clear($("claim"), h("p", {}, "This game has no such dispute."));
    return;
  }
  $("dispute-title").textContent = `${game.title}: the dispute of event #${dispute.seq}`;
  document.title = `Dispute of event #${dispute.seq} · ${game.title} · Arbiter`;
  clear($("claim"), claimBox(game, dispute));
  let whatIf = null;
  try {
    const [w, system, board] = await Promise.all([api(`/api/games/${gameId}/disputes/${disputeId}/what-if`), api(`/api/systems/${encodeURIComponent(game.system)}`), api(`/api/games/${gameId}/board`).catch(() => null)]);
    whatIf = w;
    await render(game, dispute, whatIf, system, board);
  } catch (err) {
    clear($("what-if"), h("p", {}, explain(err)));
  }
  if (dispute.status !== "open") {
    $("verdict-box").hidden = false;
    const r = dispute.resolution || {};
    clear($("verdict"), resolutionResult({ ...r, dispute: dispute.dispute, citations: r.citations || [], report: r.report || [] }, gameId, dispute.seq));
  } else if (whatIf && !whatIf.may_rule) {
    // a player (or an arbiter who may not rule on it): what happens next, and where
    $("verdict-box").hidden = false;
    clear(
      $("verdict"),
      h(
        "p",
        {},
        "An arbiter who plays neither side decides, looking at this page; you are notified of the verdict. ",
        whatIf.ended ? "The game has ended: its result stands whatever the verdict. " : "",
        h("a", { href: `/games/${gameId}#disputes-box` }, "Who can rule, and settling it by agreement"),
        " are on the game page.",
      ),
    );
  } else if (whatIf && whatIf.may_rule) {
    $("verdict-box").hidden = false;
    const cited = (dispute.citations || []).map((c) => ({ ...c, heading: c.heading || c.id }));
    const slot = $("verdict");
    const kind = whatIf.recorded.events.length ? whatIf.recorded.events[whatIf.recorded.events.length - 1].kind : "";
    clear(slot, resolutionForm({ dispute: { ...dispute, game: gameId }, eventType: kind, cited, whatIf, done: (result) => clear(slot, resolutionResult(result, gameId, dispute.seq)) }));
  }
  document.body.dataset.ready = "true";
}

main();
