// Take backs and disputes: asking, answering, flagging an event (the server decides what is allowed
// and says why not; the page only shows its answer).
import { api, explain } from "./api.js";
import { clear, h, toast } from "./dom.js";

// The open take-back request, read from the log (TakebackRequested not yet answered or retracted).
export function pendingTakeback(events) {
  let open = null;
  for (const e of events) {
    const p = e.payload || {};
    if (e.type === "TakebackRequested") open = { request: p.request, side: p.side, from_seq: p.from_seq };
    else if ((e.type === "TakebackAnswered" || e.type === "Retracted") && open && (p.request === open.request || p.ref === open.request)) open = null;
  }
  return open;
}

export function takebackControls({ gameId, events, mySides, done }) {
  if (!mySides.length) return null;
  const pending = pendingTakeback(events);
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
  return h("button", { type: "button", class: "secondary", onclick: () => call("takebacks", {}, "Take back requested") }, "Ask to take back my last orders");
}

export function openDisputeForm(gameId, event, done) {
  const dialog = document.getElementById("rules-dialog");
  const body = document.getElementById("rules-dialog-body");
  document.getElementById("rules-dialog-title").textContent = `Dispute event #${event.seq}`;
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "dispute-form" },
    h("label", {}, "What is wrong, in your words", h("textarea", { name: "claim", rows: 4, required: true })),
    h("label", {}, "Knowledge-base entries you cite (ids, comma separated; the rules button lists them)", h("input", { name: "citations" })),
    h("button", { type: "submit" }, "Open the dispute"),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const citations = String(data.get("citations") || "").split(",").map((x) => x.trim()).filter(Boolean);
    try {
      const r = await api(`/api/games/${gameId}/disputes`, { method: "POST", body: { seq: event.seq, claim: data.get("claim"), citations } });
      dialog.close();
      toast(`Dispute ${r.dispute} opened${r.paused ? ": the game is paused until an arbiter decides" : ""}`);
      done();
    } catch (err) {
      error.textContent = explain(err);
    }
  });
  clear(body, form);
  if (!dialog.open) dialog.showModal();
  form.querySelector("textarea").focus();
}
