"""Verify a game's log: hash chain, seals, sequence, and every die against the revealed seed.

Works on events as presented (``service.application.events.present_event``: the API's and the NDJSON
export's shape), so the same code checks the live store and an exported file offline."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.domain import dice as dice_mod
from service.domain.chain import GENESIS, event_hash, seal


@dataclass
class Broken:
    """A stored row that could not even be decoded."""

    seq: int
    reason: str


@dataclass
class AuditReport:
    game: str
    events: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    seals: str = "not checked (no key)"
    dice: dict[str, Any] = field(default_factory=dict)
    head: str = GENESIS

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_bad(self) -> dict[str, Any] | None:
        return min(self.problems, key=lambda p: p["seq"]) if self.problems else None

    def add(self, seq: int, reason: str) -> None:
        self.problems.append({"seq": seq, "reason": reason})

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "first_bad": self.first_bad,
            "problems": self.problems,
            "seals": self.seals,
            "dice": self.dice,
        }


def verify_log(
    events: Iterable[Mapping[str, Any] | Broken],
    *,
    game: str,
    seal_key: bytes | None = None,
    seed: str | None = None,
) -> AuditReport:
    """Check every event; report each problem with its seq (the first one is ``first_bad``).

    ``seed``: the game's seed when the verifier has it (the server does; an export has it in the
    ``GameEnded`` event once the game is over).  Without a seed the dice are checked for index reuse only.
    """
    report = AuditReport(game=game)
    expected, previous = 1, GENESIS
    rolls: list[tuple[int, dice_mod.RecordedRoll]] = []
    commitment = None
    if seal_key is not None:
        report.seals = "checked"
    for item in events:
        if isinstance(item, Broken):
            report.add(item.seq, item.reason)
            expected = item.seq + 1
            continue
        seq = int(item.get("seq", -1))
        if seq != expected:
            missing = "missing (deleted?)" if seq > expected else "out of order or duplicated"
            report.add(min(seq, expected), f"event {expected} {missing}: found seq {seq} next")
            expected = seq
        report.events += 1
        if item.get("game") != game:
            report.add(seq, f"belongs to game {item.get('game')}, not {game}")
        payload = dict(item.get("payload") or {})
        payload["prev_hash"] = item.get("prev_hash")
        try:
            at = datetime.fromisoformat(str(item.get("at")))
            digest = event_hash(game, seq, str(item.get("kind")), at, payload)
        except (TypeError, ValueError) as exc:
            report.add(seq, f"cannot be hashed: {exc}")
            digest = ""
        if digest != item.get("hash"):
            report.add(seq, "content changed: its hash does not match what it says")
        if item.get("prev_hash") != previous:
            report.add(seq, f"chain broken: prev_hash is not the hash of event {seq - 1}")
        if seal_key is not None and item.get("seal") != seal(str(item.get("hash")), seal_key):
            report.add(
                seq, "seal does not match: written without the server's key (forged or re-hashed)"
            )
        previous = str(item.get("hash"))
        expected = seq + 1
        kind = item.get("kind")
        if kind == "Game.Created":
            commitment = payload.get("seed_commitment")
        elif kind == "Game.Ended" and seed is None:
            seed = payload.get("seed")
        elif kind == "Game.DiceRolled":
            for roll in payload.get("rolls", []):
                rolls.append(
                    (
                        seq,
                        dice_mod.RecordedRoll(
                            roll["index"],
                            roll["sides"],
                            roll["value"],
                            roll["entropy"],
                            roll.get("purpose", ""),
                        ),
                    )
                )
    report.head = previous
    _check_dice(report, rolls, seed, commitment, game)
    return report


def _check_dice(
    report: AuditReport,
    rolls: list[tuple[int, dice_mod.RecordedRoll]],
    seed: str | None,
    commitment: str | None,
    game: str,
) -> None:
    seen: set[int] = set()
    for seq, roll in rolls:
        if roll.index in seen:
            report.add(seq, f"die index {roll.index} used twice")
        seen.add(roll.index)
    report.dice = {"rolls": len(rolls), "verified": False}
    if seed is None:
        report.dice["reason"] = "seed not revealed: indexes checked, values not"
        return
    if commitment is None or dice_mod.commitment(seed) != commitment:
        report.add(1, "the seed does not match the published commitment")
        return
    for seq, roll in rolls:
        derived = dice_mod.derive_roll(seed, game, roll.index, roll.entropy, roll.sides)
        if derived != roll.value:
            report.add(seq, f"die {roll.index} recorded {roll.value}, the seed gives {derived}")
    report.dice["verified"] = True
