// The game's life beside the turn line (#lifecycle-slot of the game page): the invitation to
// accept or decline, each side's correspondence clock (who runs, time left, vacation), the draw
// offer to make or answer, resignation and a claim on time.  Everything comes from
// GET /api/games/<id> and every answer goes to its own endpoint (POST …/accept, …/decline,
// …/resign, …/draw, …/claim, …/vacation); the page's stream redraws it when the game moves on.
import { api, currentUser, explain } from "./api.js";
import { clear, h, plural, sideName, toast } from "./dom.js";
import { follow } from "./live.js";

const slot = document.getElementById("lifecycle-slot");
const root = document.querySelector("[data-game]");
const gameId = root && root.dataset.game;
let me = null;
let game = null;
let busy = false;

export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  return `${minutes} min`;
}

const REASONS = {
  resignation: (loser, winner) => `${loser} resigned: ${winner} wins`,
  agreement: () => "Drawn by agreement",
  timeout: (loser, winner) => `${loser} ran out of time: ${winner} wins`,
  abandon: (loser, winner) => `${loser} abandoned the game: ${winner} wins`,
  forfeit: (loser, winner) => (winner ? `${loser} forfeited (a club arbiter's decision): ${winner} wins` : "Both sides forfeited (a club arbiter's decision): no one wins"),
  adjudication: (loser, winner) => `A club arbiter adjudicated the game: ${winner ? `${winner} wins` : "a draw"}`,
};

function player(side) {
  return `${game.sides[side]} (${sideName(side)})`;
}

function mySides() {
  return me ? Object.keys(game.sides).filter((side) => game.sides[side] === me.username) : [];
}

async function act(path, body, done) {
  if (busy) return;
  busy = true;
  try {
    game = await api(`/api/games/${gameId}/${path}`, { method: "POST", body });
    toast(done);
    render();
  } catch (err) {
    toast(explain(err));
  } finally {
    busy = false;
  }
}

function button(text, onclick, cls = "") {
  return h("button", { type: "button", class: cls || null, onclick }, text);
}

function invitationPart() {
  const inv = game.invitation || { pending: [], accepted: [] };
  if (game.status === "declined") return h("p", { class: "life-line" }, `${inv.declined || "An invited player"} declined: the game never started.`);
  const waitingForMe = me && inv.pending.includes(me.username);
  const others = inv.pending.filter((name) => !me || name !== me.username);
  return h(
    "div",
    { class: "life-line invitation" },
    waitingForMe ? h("strong", {}, "You are invited to this game. ") : null,
    others.length ? `Waiting for ${others.join(", ")} to accept. ` : null,
    waitingForMe ? button("Accept the invitation", () => act("accept", undefined, "Invitation accepted")) : null,
    waitingForMe ? button("Decline", () => act("decline", undefined, "Invitation declined"), "secondary") : null,
  );
}

function clockPart() {
  const clock = game.clock;
  if (!clock) return null;
  const kind = clock.config.kind === "per-turn" ? `${clock.config.days} days per side per game turn` : `${clock.config.days} days per move`;
  const rows = Object.entries(clock.sides).map(([side, c]) => {
    const low = c.running && c.low && !c.expired; // below its threshold (docs/game-lifecycle.md)
    const state = c.expired ? "out of time" : c.on_vacation ? "on vacation" : low ? "running low" : c.running ? "running" : "stopped";
    return h(
      "li",
      { class: `clock-side${c.running ? " running" : ""}${low ? " low" : ""}${c.expired ? " expired" : ""}`, dataset: { side } },
      h("span", { class: "clock-who" }, player(side)),
      h("span", { class: "clock-left" }, duration(c.remaining_seconds)),
      h("span", { class: "clock-state" }, state),
    );
  });
  return h("div", { class: "clock", role: "group", "aria-label": "Clocks" }, h("span", { class: "meta" }, `Clock: ${kind}`), h("ul", { class: "clock-list" }, rows));
}

// A claim on time under the club's "arbiter" policy: the game waits; a non-player may decide it
// (the server refuses anyone who is not an arbiter of the game's club, or a site arbiter).
function claimPart() {
  const claim = game.claim;
  if (!claim || game.status !== "active") return null;
  const decide = (decision, done) => act("claim/decision", { decision }, done);
  const arbiter = me && !mySides().length;
  return h(
    "div",
    { class: "life-line invitation claim" },
    h("strong", {}, `${claim.by} (${sideName(claim.side)}) claims the game: ${player(claim.against)} ran out of time. `),
    arbiter ? null : "The game waits for an arbiter's decision.",
    arbiter ? button(`Forfeit ${claim.against}`, () => decide("forfeit", "Claim upheld: the game is over")) : null,
    arbiter ? button("Let the game go on", () => decide("continue", "The game goes on"), "secondary") : null,
  );
}

function playPart() {
  const mine = mySides();
  if (!mine.length || game.status !== "active" || game.claim) return null;
  const side = mine[0];
  const offer = game.draw_offer;
  const parts = [];
  if (offer && offer.side !== side) {
    parts.push(
      h("strong", {}, `${offer.by} offers a draw. `),
      button("Accept the draw", () => act("draw", { action: "accept" }, "Draw accepted: the game is over")),
      button("Decline the draw", () => act("draw", { action: "decline" }, "Draw declined"), "secondary"),
    );
  } else if (offer) {
    parts.push(h("span", { class: "meta" }, "You offered a draw; waiting for the answer. "));
  } else {
    const others = Object.keys(game.sides).filter((s) => s !== side).map(player).join(", ");
    parts.push(
      button("Offer a draw", () => {
        if (window.confirm(`Offer ${others} a draw? If accepted, the game ends as a draw.`)) act("draw", { action: "offer" }, "Draw offered");
      }, "secondary"),
    );
  }
  parts.push(
    button("Resign", () => {
      if (window.confirm("Resign this game? Your opponent wins and the game ends.")) act("resign", {}, "You resigned");
    }, "secondary danger"),
  );
  const clock = game.clock;
  if (clock) {
    const late = Object.entries(clock.sides).filter(([s, c]) => s !== side && c.expired);
    if (late.length) parts.push(button(`Claim the game: ${player(late[0][0])} is out of time`, () => act("claim", {}, "Claimed on time")));
    const left = clock.sides[side].vacation_days_left;
    if (left > 0 && !clock.sides[side].on_vacation) {
      const days = h("input", { type: "number", min: 1, max: left, value: 1, "aria-label": "Vacation days", class: "days" });
      parts.push(
        h(
          "details",
          { class: "vacation" },
          h("summary", {}, `Vacation (${plural(left, "day")} left)`),
          h("label", {}, "Days ", days),
          " ",
          button("Take vacation", () => act("vacation", { days: Number(days.value) }, "Vacation taken: your clock stands still"), "secondary"),
        ),
      );
    }
  }
  return h("div", { class: "life-actions" }, parts);
}

function endedPart() {
  const r = game.result || {};
  const say = REASONS[r.reason];
  if (!say) return null;
  const winner = r.winner ? player(r.winner) : "";
  const loser = r.loser ? player(r.loser) : "";
  return h("p", { class: "life-line ended" }, h("strong", {}, say(loser, winner)), " · ", h("a", { href: `/games/${gameId}?v=1` }, "Replay from the start"), " · ", h("a", { href: "/archive" }, "Archive"));
}

function render() {
  if (!game || !slot) return;
  slot.dataset.status = game.status;
  clear(
    slot,
    game.status === "invited" || game.status === "declined" ? invitationPart() : null,
    game.status === "ended" ? endedPart() : null,
    claimPart(),
    clockPart(),
    playPart(),
  );
}

async function refresh() {
  try {
    game = await api(`/api/games/${gameId}`);
    render();
  } catch (err) {
    clear(slot, h("p", { class: "error" }, explain(err)));
  }
}

async function main() {
  if (!slot || !gameId) return;
  me = await currentUser();
  await refresh();
  slot.dataset.ready = "true";
  follow(() => `/api/games/${gameId}/stream`, { game: () => refresh() });
  setInterval(() => game && game.clock && game.status === "active" && refresh(), 60000);
}

main();
