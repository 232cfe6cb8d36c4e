// A game's audit: the stored log verified (ok, or the first bad event), who did what and when per
// side (GET /api/games/<id>/audit/actions), the disputes with their rulings, and the difference
// between the states at two chosen versions (GET /api/games/<id>/audit/diff).
import { api, explain } from "./api.js";
import { clear, h, humanize, rawFacts, sideName } from "./dom.js";
import { commandWords, describe, orderNames } from "./events.js";
import { when } from "./forms.js";
import { resolutionResult } from "./resolution.js";

const root = document.getElementById("audit-page");
const id = root.dataset.game;
const $ = (x) => document.getElementById(x);
const events = new Map(); // seq -> event, for the effects' words
let names; // units and hexes in words, from the game and its system
// A stored value in words: units by name, hexes by place, lists and records spelled out.
function show(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.length ? v.map(show).join(", ") : "none";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${humanize(k).toLowerCase()} ${show(x)}`).join("; ") || "nothing";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "string" && names) return names.hex(names.unit(v));
  return String(v);
}

// A changed state path in words: "units.n-11-div.attacked" -> "11 Div › attacked".
function pathWords(path) {
  return String(path)
    .split(".")
    .map((part) => {
      const named = names ? names.unit(part) : part;
      if (named !== part) return named;
      return /^\d+$/.test(part) ? `#${Number(part) + 1}` : humanize(part).toLowerCase();
    })
    .join(" › ");
}

function verifyView(report) {
  const problems = report.problems || [];
  const explained = report.explained || [];
  return [
    h(
      "p",
      { id: "verify-result", class: report.ok ? "ok" : "bad" },
      report.ok
        ? `Intact: all ${report.events} events check out (hash chain, seals, dice).`
        : `Broken: the first bad event is #${report.first_bad.seq}: ${report.first_bad.reason}.`,
    ),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Events"), h("dd", {}, report.events),
      h("dt", {}, "Head of the chain"), h("dd", { class: "hash" }, report.head || "—"),
      h("dt", {}, "Seals"), h("dd", {}, show(report.seals)),
      h("dt", {}, "Dice"), h("dd", {}, report.dice ? `${report.dice.rolls} rolls, ${report.dice.verified ? "verified against the seed" : "not verified"}` : "—"),
    ),
    problems.length
      ? h("ul", { class: "problems", "aria-label": "Problems" }, problems.map((p) => h("li", {}, `#${p.seq}: ${p.reason}`)))
      : null,
    // breaks the server itself made, explained by the operator's signed repair (docs/audit-and-disputes.md)
    explained.length
      ? [
          h("p", { id: "verify-explained" }, `${explained.length} break${explained.length === 1 ? "" : "s"} in the log ${explained.length === 1 ? "is" : "are"} the server's own, explained by the operator's repair:`),
          h("ul", { class: "problems", "aria-label": "Explained breaks" }, explained.map((p) => h("li", {}, `#${p.seq}: ${p.reason} (explained at #${p.repaired_by})`))),
        ]
      : null,
  ];
}

function actionWords(row) {
  if (row.action === "command") return `Order: ${commandWords(row.command || {}, names)}${row.hidden ? " (details hidden)" : ""}${row.origin ? ` (replayed from #${row.origin})` : ""}`;
  const d = row.details || {};
  const extra = [d.seq !== undefined ? `event #${d.seq}` : null, d.verdict, d.remedy, d.claim ? `“${d.claim}”` : null, d.reason].filter(Boolean);
  return `${humanize(row.action)}${extra.length ? ": " + extra.join(", ") : ""}`;
}

// An effect in the log's words (the server's own words when the event could not be read).
function effectWords(effect) {
  const event = events.get(effect.seq);
  return event ? describe(event, names) : effect.text || effect.type;
}

async function loadEvents() {
  let after = 0;
  for (;;) {
    const page = await api(`/api/games/${id}/events?after=${after}&limit=500`);
    for (const e of page.events) events.set(e.seq, e);
    if (page.next_after === null || page.next_after === undefined) return;
    after = page.next_after;
  }
}

function actionsView(rows) {
  if (!rows.length) return h("p", {}, "Nothing yet.");
  return h(
    "table",
    { class: "audit-actions" },
    h("caption", { class: "visually-hidden" }, "Who did what and when"),
    h("thead", {}, h("tr", {}, ["#", "When", "Side", "Who", "What", "Effects"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          { class: row.retracted ? "retracted" : "", "data-seq": row.seq },
          h("td", {}, row.seq),
          h("td", {}, when(row.at)),
          h("td", {}, sideName(row.side)),
          h("td", {}, row.user || ""),
          h("td", {}, actionWords(row), row.retracted ? [" ", h("span", { class: "badge" }, "retracted")] : null),
          h("td", {}, (row.effects || []).length ? h("ul", { class: "effects" }, row.effects.map((e) => h("li", { class: e.retracted ? "retracted" : "" }, `#${e.seq} ${effectWords(e)}`))) : ""),
        ),
      ),
    ),
  );
}

function diffView(diff) {
  const changes = diff.changes || [];
  if (!changes.length) return h("p", { id: "diff-result" }, `No difference between versions ${diff.from} and ${diff.to}.`);
  return h(
    "table",
    { id: "diff-result", class: "diff" },
    h("caption", {}, `${changes.length} change${changes.length === 1 ? "" : "s"} from version ${diff.from} to ${diff.to}`),
    h("thead", {}, h("tr", {}, ["What", "Before", "After"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      {},
      changes.map((c) =>
        h(
          "tr",
          {},
          h("td", {}, pathWords(c.path), " ", rawFacts(`Raw facts of this change`, () => `${c.path}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`)),
          h("td", {}, show(c.before)),
          h("td", {}, show(c.after)),
        ),
      ),
    ),
  );
}

function disputesView(list) {
  if (!list.length) return h("p", {}, "No dispute.");
  return h(
    "ul",
    { class: "audit-disputes" },
    list.map((d) =>
      h(
        "li",
        { "data-dispute": d.dispute },
        h("p", {}, `${d.by} (${sideName(d.side)}) disputed event #${d.seq} ${when(d.opened_at)}: “${d.claim}” — ${d.status} · `, h("a", { href: `/games/${id}/disputes/${encodeURIComponent(d.dispute)}` }, "what the claim would change")),
        d.resolution && d.resolution.agreed_by
          ? h("p", { class: "resolution-result", role: "status" }, `Settled by both players' agreement (${d.resolution.agreed_by.join(" and ")}), with no arbiter: ${d.resolution.verdict}${d.resolution.note ? ` — “${d.resolution.note}”` : ""}.`)
          : d.resolution
            ? resolutionResult({ dispute: d.dispute, ...d.resolution }, id, d.seq)
            : null,
      ),
    ),
  );
}

async function loadActions() {
  const side = $("side-filter").value;
  try {
    const rows = await api(`/api/games/${id}/audit/actions${side ? `?side=${encodeURIComponent(side)}` : ""}`);
    clear($("actions"), actionsView(rows));
  } catch (err) {
    clear($("actions"), h("p", { class: "error" }, explain(err)));
  }
}

async function main() {
  let game;
  try {
    game = await api(`/api/games/${id}`);
  } catch (err) {
    clear($("audit-title"), "Game not found");
    return;
  }
  names = orderNames(game.state, await api(`/api/systems/${game.system}`).catch(() => null));
  $("audit-title").textContent = `Audit: ${game.title}`;
  document.title = `Audit: ${game.title} · Arbiter`;
  for (const [side, user] of Object.entries(game.sides)) $("side-filter").append(h("option", { value: side }, `${sideName(side)} (${user})`));
  $("side-filter").addEventListener("change", loadActions);
  const form = $("diff-form");
  form.elements.from.value = "1";
  form.elements.from.max = form.elements.to.max = String(game.version);
  form.elements.to.value = String(game.version);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams({ from: form.elements.from.value, to: form.elements.to.value });
    try {
      clear($("diff"), diffView(await api(`/api/games/${id}/audit/diff?${q}`)));
    } catch (err) {
      clear($("diff"), h("p", { class: "error", role: "alert" }, explain(err)));
    }
  });
  form.hidden = false; // shown once its script listens: never submitted by the browser itself
  await loadEvents().catch(() => null);
  await Promise.all([
    api(`/api/games/${id}/audit`).then((r) => clear($("verify"), verifyView(r)), (err) => clear($("verify"), h("p", { class: "error" }, explain(err)))),
    api(`/api/games/${id}/disputes`).then((r) => clear($("dispute-list"), disputesView(r)), (err) => clear($("dispute-list"), h("p", { class: "error" }, explain(err)))),
    loadActions(),
  ]);
  root.dataset.ready = "true";
}

main();
