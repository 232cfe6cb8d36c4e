// Dice: the commitment published at the start, each roll with its index, and how to verify them.
import { api, explain } from "./api.js";
import { clear, h, plural } from "./dom.js";
import { orderNames, purposeWords } from "./events.js";

const hex = (s) => Uint8Array.from(s.match(/../g).map((b) => parseInt(b, 16)));

// Roll ``index`` from the revealed seed, as service/domain/dice.py derives it (HMAC-SHA256, 32-bit
// words, rejection sampling) — so a player can check a finished game's dice in the browser.
export async function deriveRoll(seed, gameId, index, entropy, sides) {
  const key = await crypto.subtle.importKey("raw", hex(seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const word = 2 ** 32;
  const limit = word - (word % sides);
  for (let block = 0; ; block += 1) {
    const msg = new TextEncoder().encode(`arbiter-roll-v1|${gameId}|${index}|${entropy}|${block}`);
    const view = new DataView(await crypto.subtle.sign("HMAC", key, msg));
    for (let off = 0; off < 32; off += 4) {
      const w = view.getUint32(off);
      if (w < limit) return (w % sides) + 1;
    }
  }
}

// `names`: the log's own (events.js orderNames), so that units are named as in its sentences.
export function rollDetails(event, game, names = orderNames(game.state)) {
  if (event.type !== "DiceRolled") return null;
  const rolls = (event.payload && event.payload.rolls) || [];
  const purpose = (r) => purposeWords(r.purpose, names);
  const check = h("span", { class: "check" });
  const body = [
    h("ul", {}, rolls.map((r) => h("li", { class: "roll", "data-index": r.index }, `Die ${r.index + 1} of the game (index ${r.index}): ${r.value} on a d${r.sides}${r.purpose ? ` (${purpose(r)})` : ""}; entropy ${r.entropy.slice(0, 12)}…`))),
    h("p", {}, `Each value is HMAC-SHA256(seed, "arbiter-roll-v1|game|index|entropy|0") read as 32-bit words, mod ${rolls[0] ? rolls[0].sides : 6} + 1. The seed's SHA-256 is the commitment published when the game began; the seed is revealed when the game ends.`),
  ];
  if (game.dice && game.dice.seed) {
    body.push(
      h(
        "button",
        {
          type: "button",
          class: "link",
          onclick: async () => {
            const ok = await Promise.all(rolls.map(async (r) => (await deriveRoll(game.dice.seed, game.id, r.index, r.entropy, r.sides)) === r.value));
            check.textContent = ok.every(Boolean) ? "✓ recomputed in this browser: every roll matches" : "✗ a roll does not match the seed";
          },
        },
        "Recompute in this browser",
      ),
      check,
    );
  }
  return h("details", { class: "dice-details" }, h("summary", {}, "verify"), body);
}

export function diceBox(el, game, id) {
  const d = game.dice || {};
  const result = h("p", { id: "dice-result", "aria-live": "polite" });
  const verify = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        result.textContent = "Checking…";
        try {
          const r = await api(`/api/games/${id}/dice`);
          result.textContent = r.ok
            ? `${r.rolls === 1 ? "The 1 roll matches" : `All ${r.rolls} rolls match`} the committed seed${r.seed_revealed ? " (seed revealed)" : " (checked by the server; the seed stays secret until the game ends)"}.`
            : `Problem: ${plural(r.mismatches.length, "mismatched roll")}, reused indexes ${r.reused_indexes.join(", ") || "none"}.`;
        } catch (err) {
          result.textContent = explain(err);
        }
      },
    },
    "Verify the dice",
  );
  clear(
    el,
    h(
      "dl",
      { class: "dice" },
      h("dt", {}, "Commitment"),
      h("dd", { title: d.commitment }, h("code", {}, (d.commitment || "").slice(0, 16) + "…")),
      h("dt", {}, "Next roll"),
      h("dd", {}, `#${d.next_index}`),
      h("dt", {}, "Player entropy"),
      h("dd", {}, `${d.entropy_count} contribution${d.entropy_count === 1 ? "" : "s"}`),
      h("dt", {}, "Seed"),
      h("dd", {}, d.seed ? h("code", { class: "seed" }, d.seed) : "secret until the game ends"),
    ),
    verify,
    result,
    h("p", {}, h("a", { href: `/api/games/${id}/events.ndjson`, download: "" }, "Download every event (NDJSON)"), " to check the hash chain and the dice yourself."),
    h("p", {}, h("a", { href: `/api/games/${id}/record`, download: "" }, "Download the game record"), ": the whole game as text, every command and its events in words, that another Arbiter server imports."),
  );
}
