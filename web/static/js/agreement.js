// Under the game's disputes: who can rule on them (GET /api/games/<id>/arbiters: the club's
// arbiters who play no side, or the site's for a game of no club), and when nobody can, the ways
// on: a club admin appoints a neutral arbiter on the club's page, or the players settle a dispute
// by agreeing on a verdict (one proposes, the other side accepts: recorded as agreed by both).
import { api, inWords } from "./api.js";
import { clear, h, humanize, toast } from "./dom.js";

const VERDICT = { upheld: "the event stands", overturned: "the event was wrong (nothing is taken back)" };

let known = { key: "", who: null };

async function whoRules(game) {
  const key = `${game.id}:${Object.keys(game.disputes || {}).join(",")}`;
  if (known.key !== key) known = { key, who: await api(`/api/games/${game.id}/arbiters`) };
  return known.who;
}

function whoLine(who) {
  if (who.club && who.arbiter_count) {
    const more = who.arbiter_count > who.arbiters.length ? ` and ${who.arbiter_count - who.arbiters.length} more` : "";
    return [h("p", {}, `An arbiter of ${who.club.name} rules on this game's disputes: ${who.arbiters.join(", ")}${more}.`), false];
  }
  if (who.club) {
    return [h("p", { class: "nobody-rules" }, `Nobody can rule yet: every arbiter of ${who.club.name} plays this game, and a player never rules on their own game.`), true];
  }
  return [h("p", { class: "nobody-rules" }, "This game belongs to no club: only the site's arbiters, appointed by its operator, rule on its disputes."), true];
}

function alternatives(who) {
  const appoint = who.club
    ? h(
        "li",
        {},
        "Invite a neutral arbiter: ",
        who.viewer_may_appoint ? "as an admin of the club, appoint one on " : "a club admin appoints one on ",
        h("a", { href: `/clubs/${who.club.id}#arbiters-title` }, `${who.club.name}'s page`),
        " (a member, or anyone invited to join as an arbiter).",
      )
    : h("li", {}, "Play your next game as a club game (choose the club when you start it): the club's arbiters rule on it. ", h("a", { href: "/clubs" }, "The clubs"), ".");
  return h("ul", { class: "plain-list" }, appoint, who.agreement ? h("li", {}, "Or settle the dispute by agreement, below: one of you proposes a verdict, the other accepts it.") : null);
}

// one open dispute's agreement controls, for a player of the game
function agreementControls(game, id, d, mySides, done) {
  if (!mySides.length) return null;
  const proposal = d.proposal;
  const act = async (path, body, text, error) => {
    try {
      await api(`/api/games/${game.id}/disputes/${id}/${path}`, { method: "POST", body });
      toast(text);
      done();
    } catch (err) {
      error.textContent = inWords(err, { verdict: "Verdict", note: "Note" });
    }
  };
  const error = h("p", { class: "error", role: "alert" });
  const note = h("input", { name: "note", maxlength: 4000, "aria-label": `Why (optional), dispute of event #${d.seq}` });
  const propose = (verdict, label) =>
    h("button", { type: "button", class: "secondary", onclick: () => act("proposal", { verdict, note: note.value }, "Verdict proposed: the other side is asked", error) }, label);
  const proposing = [
    h("label", { class: "agreement-note" }, "Why (optional) ", note),
    h("div", { class: "agreement-buttons" }, propose("upheld", "Propose: the event stands"), " ", propose("overturned", "Propose: the event was wrong")),
  ];
  const ours = proposal && mySides.includes(proposal.side);
  return h(
    "div",
    { class: "agreement", role: "group", "aria-label": `Settle the dispute of event #${d.seq} by agreement` },
    h("p", {}, h("strong", {}, `Dispute of event #${d.seq}: `), proposal ? `${humanize(proposal.side)} proposes: ${VERDICT[proposal.verdict]}${proposal.note ? ` — “${proposal.note}”` : ""}.` : "no verdict proposed yet."),
    proposal && !ours
      ? h("button", { type: "button", onclick: () => act("agreement", {}, "Agreed: the dispute is settled", error) }, "Accept this verdict")
      : null,
    ours ? h("p", { class: "note" }, "Waiting for the other side to accept it, or to propose another.") : null,
    proposal && !ours ? h("p", { class: "note" }, "Or propose another:") : null,
    ours ? null : proposing,
    error,
  );
}

export async function rulingPanel(el, game, { mySides, done }) {
  const open = Object.entries(game.disputes || {}).filter(([, d]) => d.status === "open");
  if (!open.length) {
    clear(el);
    return;
  }
  let who;
  try {
    who = await whoRules(game);
  } catch (err) {
    clear(el, h("p", { class: "error" }, inWords(err)));
    return;
  }
  const [line, nobody] = whoLine(who);
  clear(
    el,
    h("h3", {}, "Who can rule"),
    line,
    nobody ? alternatives(who) : null,
    mySides.length && who.agreement ? open.map(([id, d]) => agreementControls(game, id, d, mySides, done)) : null,
  );
}
