// Take backs and disputes on the game page: the pending take back and the disputes come from the
// game JSON (`takeback`, `disputes`, `paused_by`); the server decides what is allowed and says why not.
import { api, explain } from "./api.js";
import { citePicker } from "./citepicker.js";
import { clear, h, humanize, toast } from "./dom.js";

export function takebackControls({ gameId, pending, offer, mySides, done }) {
  if (!mySides.length) return null;
  const call = async (path, body, text) => {
    try {
      await api(`/api/games/${gameId}/${path}`, { method: "POST", body });
      toast(text);
    } catch (err) {
      document.getElementById("message").textContent = explain(err);
    }
    done();
  };
  if (pending && !mySides.includes(pending.side)) {
    return h(
      "div",
      { class: "takeback", role: "group", "aria-label": "Take-back request" },
      h("p", {}, `${pending.side} asks to take back everything from event #${pending.from_seq}.`),
      h("button", { type: "button", onclick: () => call("takebacks/answer", { accept: true }, "Take back accepted") }, "Accept take back"),
      h("button", { type: "button", class: "secondary", onclick: () => call("takebacks/answer", { accept: false }, "Take back declined") }, "Decline take back"),
    );
  }
  if (pending) return h("p", { class: "takeback" }, `You asked to take back from event #${pending.from_seq}: waiting for the answer.`);
  if (!offer || !mySides.includes(offer.side)) return null; // nothing of mine may be taken back now
  return h("button", { type: "button", class: "secondary", onclick: () => call("takebacks", {}, "Take back requested") }, "Ask to take back my last orders");
}

const STATUS = { open: "open: waiting for an arbiter", upheld: "upheld (the event stands)", overturned: "overturned" };
const AGREED = { upheld: "upheld by both players' agreement", overturned: "overturned by both players' agreement" };

// The game's disputes ({id: {seq, side, status}}), each with its event's words from the log (never
// the dispute's or the event kind's internal names).
export function disputesBox(el, game, events) {
  const disputes = Object.entries(game.disputes || {});
  el.parentElement.hidden = !disputes.length;
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  clear(
    el,
    h(
      "ul",
      { class: "disputes" },
      disputes.map(([id, d]) =>
        h(
          "li",
          { class: `dispute status-${d.status}`, "data-dispute": id },
          `${humanize(d.side)} disputed event #${d.seq}${bySeq.has(d.seq) ? `: “${bySeq.get(d.seq).text}”` : ""} — ${(d.agreed && AGREED[d.status]) || STATUS[d.status] || d.status} · `,
          h("a", { href: `/games/${game.id}/disputes/${encodeURIComponent(id)}` }, "what the claim would change"),
        ),
      ),
    ),
    game.paused_by ? h("p", { class: "paused" }, `The game is paused until the dispute of event #${(game.disputes[game.paused_by] || {}).seq} is decided.`) : null,
    (game.readings || []).length ? h("ul", { class: "readings-in-force" }, game.readings.map((r) => h("li", {}, `${r.text}.`))) : null,
    h("p", {}, h("a", { href: `/games/${game.id}/audit#disputes` }, "Claims, rulings and remedies in the audit")),
  );
}

export function openDisputeForm(gameId, event, done) {
  const dialog = document.getElementById("rules-dialog");
  const body = document.getElementById("rules-dialog-body");
  document.getElementById("rules-dialog-title").textContent = `Dispute event #${event.seq}`;
  const error = h("p", { class: "error", role: "alert" });
  const picker = citePicker({ label: "Search the rules for entries that support your claim (optional)" });
  const readings = h("div", { class: "readings" });
  const form = h(
    "form",
    { class: "dispute-form" },
    h("label", {}, "What is wrong, in your words", h("textarea", { name: "claim", rows: 4, required: true })),
    readings,
    picker.el,
    h("button", { type: "submit" }, "Open the dispute"),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const citations = picker.ids();
    const body = { seq: event.seq, claim: data.get("claim"), citations };
    const reading = chosenReading(readings);
    if (Object.keys(reading).length) body.reading = reading;
    try {
      const r = await api(`/api/games/${gameId}/disputes`, { method: "POST", body });
      dialog.close();
      toast(`Your dispute of event #${event.seq} is open${r.paused ? ": the game is paused until an arbiter decides" : ""}`);
      done();
    } catch (err) {
      error.textContent = explain(err);
    }
  });
  clear(body, form);
  if (!dialog.open) dialog.showModal();
  form.querySelector("textarea").focus();
  offerReadings(readings, gameId, event.seq);
}

// The readings of the rules that govern the event (GET …/events/<seq>/readings): for each, the
// reading as played and the other ones, in words; the one chosen goes with the claim.
async function offerReadings(box, gameId, seq) {
  let offered = [];
  try {
    offered = await api(`/api/games/${gameId}/events/${seq}/readings`);
  } catch {
    return; // the claim stands in words alone
  }
  if (!offered.length) {
    // said, not left blank: a player looking for where to say which rule should have applied
    clear(box, h("p", { class: "note readings-none" }, "No rule of this game is read two ways for this event, so there is no reading to choose: say above what should have happened and cite the rule below. An arbiter can overturn the event, and rewind or replay the game from it."));
    return;
  }
  clear(
    box,
    offered.map((r) =>
      h(
        "fieldset",
        { class: "reading", "data-option": r.option },
        h("legend", {}, `Which reading should have applied? ${r.heading}`),
        h("p", { class: "note" }, r.description),
        r.choices.map((c, i) =>
          h(
            "label",
            { class: "choice" },
            h("input", { type: "radio", name: `reading-${r.option}`, value: String(i), checked: c.current, "data-current": String(c.current) }),
            ` ${r.label}: ${c.words}${c.current ? " (as played)" : ""}`,
          ),
        ),
      ),
    ),
  );
  box.offered = offered;
}

function chosenReading(box) {
  const out = {};
  for (const r of box.offered || []) {
    const input = box.querySelector(`input[name="reading-${r.option}"]:checked`);
    const choice = input ? r.choices[Number(input.value)] : null;
    if (choice && !choice.current) out[r.option] = choice.value;
  }
  return out;
}
