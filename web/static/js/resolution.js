// The arbiter's resolution form: uphold, or overturn with rewind or rebase; citations chosen by
// searching the knowledge base inline; a note; optionally a club ruling.  After resolving, the
// result with the rebase report (each later command kept, re-rolled or dropped, and why).
import { api } from "./api.js";
import { citePicker } from "./citepicker.js";
import { clear, h } from "./dom.js";
import { sourceLabel } from "./entries.js";
import { csv, onSubmit } from "./forms.js";

// `whatIf` (GET …/what-if, optional): a claim that names another reading or order adds a rebase
// that adopts it, decided exactly as the what-if shows (its digest is sent with the verdict).
export function resolutionForm({ dispute, eventType, cited, done, whatIf = null }) {
  const key = `${dispute.game}-${dispute.dispute}`;
  // scoped to the disputed game (its rulebook first, another game's sections not citable): the
  // queue lists many games' disputes, so the page has no one game to take it from
  const picker = citePicker({ label: "Search the rules for the entries your decision rests on", gameId: dispute.game });
  for (const c of cited) picker.add(c.id, c.heading, c);
  const radio = (name, value, text, checked) =>
    h("label", { class: "choice" }, h("input", { type: "radio", name, value, checked, required: true }), ` ${text}`);
  const claim = whatIf && whatIf.alternative && !whatIf.alternative.removed ? whatIf.alternative : null;
  // an ended game re-decides nothing: the verdict upholds, with a club ruling if it was wrong
  const ended = Boolean(whatIf && whatIf.ended);
  const remedy = h(
    "fieldset",
    { class: "remedy", disabled: true },
    h("legend", {}, "Remedy for an overturned event"),
    radio("remedy", "rewind", "Rewind: retract the event and everything after it", true),
    claim
      ? radio("remedy", "adopt", `Rebase under the claim: decide the order again under ${claimWords(claim)} with the same dice, as shown above, then replay the later orders`, false)
      : null,
    radio("remedy", "rebase", `Rebase: retract ${claim ? "the event alone, without the claim's reading" : "it"}, then replay the later orders that are still legal (new dice where dice were rolled)`, false),
  );
  const form = h(
    "form",
    { class: "resolution-form", "aria-label": `Resolve the dispute of event #${dispute.seq}` },
    h(
      "fieldset",
      {},
      h("legend", {}, "Verdict"),
      radio("verdict", "upheld", ended ? "Uphold: the event stands, as the game's result does" : "Uphold: the event stands", ended),
      ended ? null : radio("verdict", "overturned", "Overturn: the event was wrong", false),
    ),
    ended
      ? h("p", { class: "note" }, "The game has ended, so nothing is rewound or re-decided. If the event was wrong, say so in the note and make it a club ruling below: later games are decided by it.")
      : remedy,
    picker.el,
    h("label", {}, "Note to the players", h("textarea", { name: "note", rows: 3 })),
    h(
      "details",
      { class: "club-ruling", open: ended },
      h("summary", {}, "Also make this a club ruling (searchable, shown with later events of these types)"),
      h("label", {}, "Heading", h("input", { name: "ruling_heading", maxlength: 200 })),
      h("label", {}, "Text of the ruling", h("textarea", { name: "ruling_text", rows: 4 })),
      h("label", {}, "Rule references (comma separated)", h("input", { name: "ruling_refs", placeholder: "e.g. 8.2, 8.3" })),
      h("label", {}, "Event types it governs (comma separated)", h("input", { name: "ruling_types", value: eventType || "" })),
      claim && (claim.reading || []).length
        ? h("label", { class: "choice" }, h("input", { type: "checkbox", name: "ruling_default" }), ` Make ${claimWords(claim)} the club's reading for its new games (with a rebase under the claim)`)
        : null,
    ),
    h("button", { type: "submit" }, `Resolve the dispute of event #${dispute.seq}`),
    h("p", { class: "error", role: "alert" }),
  );
  form.addEventListener("change", (ev) => {
    if (ev.target.name === "verdict") remedy.disabled = ev.target.value !== "overturned";
  });
  onSubmit(form, async (data) => {
    const body = { verdict: data.verdict, citations: picker.ids(), note: data.note || "" };
    if (!body.citations.length) throw new Error("cite at least one knowledge-base entry");
    if (data.verdict === "overturned") body.remedy = data.remedy === "adopt" ? "rebase" : data.remedy;
    // the claim's alternative is what the what-if shows: a plain rebase sets it aside
    if (claim && data.verdict === "overturned" && data.remedy === "rebase") body.reading = {};
    else if (whatIf && whatIf.digest) body.what_if = whatIf.digest;
    if (data.ruling_heading || data.ruling_text) {
      body.club_ruling = {
        heading: data.ruling_heading,
        text: data.ruling_text,
        rule_refs: csv(data.ruling_refs),
        event_types: csv(data.ruling_types),
      };
      if (data.ruling_default) body.club_ruling.default_reading = true;
    }
    const result = await api(`/api/games/${dispute.game}/disputes/${dispute.dispute}/resolution`, { method: "POST", body });
    done(result);
  });
  form.id = `resolve-${key}`;
  return form;
}

const STATUS_WORDS = { kept: "kept", "re-rolled": "re-rolled (new dice)", dropped: "dropped" };

const claimWords = (alt) =>
  [...(alt.reading || []).map((r) => r.words), alt.instead ? "the order claimed instead" : null].filter(Boolean).join("; ") || "the claim";

// `seq`: the disputed event, named in the heading (a dispute's own id is not for people).
export function resolutionResult(result, gameId, seq = null) {
  const report = result.report || [];
  return h(
    "div",
    { class: "resolution-result", role: "status" },
    h("h3", {}, `${seq ? `The dispute of event #${seq}` : "The dispute"}: ${result.verdict}${result.remedy ? ` — ${result.remedy}` : ""}`),
    h(
      "p",
      {},
      "Cited: ",
      (result.citations || []).map((c, i) => [i ? ", " : "", h("a", { href: `/rules/${encodeURIComponent(c.id)}` }, c.heading || c.id), sourceLabel(c)]),
    ),
    result.club_ruling ? h("p", {}, h("a", { href: `/rules/${encodeURIComponent(result.club_ruling)}` }, "The club ruling made with this verdict")) : null,
    result.remedy === "rebase"
      ? report.length
        ? h("div", { class: "table-scroll" }, h(
            "table",
            { class: "report" },
            h("caption", {}, "Rebase report: the orders after the overturned event"),
            h("thead", {}, h("tr", {}, ["Order (#)", "Side", "Player", "Outcome", "New events"].map((t) => h("th", { scope: "col" }, t)))),
            h(
              "tbody",
              {},
              report.map((r) =>
                h(
                  "tr",
                  { class: `report-${r.status}` },
                  h("td", {}, `${String(r.command).replace(/_/g, " ")} (#${r.origin})`),
                  h("td", {}, r.side || ""),
                  h("td", {}, r.user || ""),
                  h("td", {}, STATUS_WORDS[r.status] || r.status, r.reason ? `: ${r.reason}` : ""),
                  h("td", {}, (r.seqs || []).map((s) => `#${s}`).join(", ")),
                ),
              ),
            ),
          ))
        : h("p", {}, "Rebase report: no later orders to replay.")
      : result.remedy === "rewind"
        ? h("p", {}, "The event and everything after it were retracted.")
        : null,
    h("p", {}, h("a", { href: `/games/${gameId}` }, "See the board now"), " · ", h("a", { href: `/games/${gameId}/audit` }, "Audit")),
  );
}

export function showResult(el, result, gameId, seq = null) {
  clear(el, resolutionResult(result, gameId, seq));
}
