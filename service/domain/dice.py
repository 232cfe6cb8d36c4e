"""Dice that players can verify.

At game creation the server draws a secret seed and publishes ``commitment(seed)`` (its SHA-256).
Roll number ``i`` is derived from ``HMAC-SHA256(seed, game id | i | entropy)`` where ``entropy`` is
the digest of every player's contribution made before that roll.  The HMAC output is read as a
stream of 32-bit words and mapped to the die by rejection sampling, so every face is exactly equally
likely.  Once the seed is revealed anyone can re-derive every recorded roll.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from service.domain.digests import same_secret

SEED_BYTES = 32
_WORD = 2**32


def new_seed() -> str:
    """A fresh secret seed, hex encoded."""
    return secrets.token_hex(SEED_BYTES)


def commitment(seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of its bytes, hex encoded."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def entropy_digest(contributions: Iterable[str]) -> str:
    """The digest of the players' entropy contributions, in the order they were made."""
    h = hashlib.sha256(b"arbiter-entropy-v1")
    for item in contributions:
        data = item.encode("utf-8")
        h.update(len(data).to_bytes(4, "big"))
        h.update(data)
    return h.hexdigest()


def derive_roll(seed_hex: str, game_id: str, index: int, entropy: str, sides: int) -> int:
    """The value (1..sides) of roll ``index``: deterministic, unbiased."""
    if sides < 2:
        raise ValueError("a die has at least two sides")
    key = bytes.fromhex(seed_hex)
    limit = _WORD - (_WORD % sides)  # values >= limit would bias the low faces
    block = 0
    while True:
        message = f"arbiter-roll-v1|{game_id}|{index}|{entropy}|{block}".encode()
        digest = hmac.digest(key, message, "sha256")
        for offset in range(0, len(digest), 4):
            word = int.from_bytes(digest[offset : offset + 4], "big")
            if word < limit:
                return word % sides + 1
        block += 1  # astronomically rare: every word of a block rejected


@dataclass(frozen=True)
class RecordedRoll:
    index: int
    sides: int
    value: int
    entropy: str
    purpose: str = ""


@dataclass(frozen=True)
class RollCheck:
    index: int
    recorded: int
    derived: int

    @property
    def ok(self) -> bool:
        return self.recorded == self.derived

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "recorded": self.recorded,
            "derived": self.derived,
            "ok": self.ok,
        }


@dataclass(frozen=True)
class DiceReport:
    seed_matches_commitment: bool
    checks: tuple[RollCheck, ...]
    reused_indexes: tuple[int, ...]

    @property
    def ok(self) -> bool:
        return (
            self.seed_matches_commitment
            and not self.reused_indexes
            and all(check.ok for check in self.checks)
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "seed_matches_commitment": self.seed_matches_commitment,
            "rolls": len(self.checks),
            "mismatches": [c.as_dict() for c in self.checks if not c.ok],
            "reused_indexes": list(self.reused_indexes),
        }


def verify(
    seed_hex: str, published_commitment: str, game_id: str, rolls: Sequence[RecordedRoll]
) -> DiceReport:
    """Re-derive every recorded roll from the revealed seed and compare."""
    seen: set[int] = set()
    reused: list[int] = []
    checks = []
    for roll in rolls:
        if roll.index in seen:
            reused.append(roll.index)
        seen.add(roll.index)
        derived = derive_roll(seed_hex, game_id, roll.index, roll.entropy, roll.sides)
        checks.append(RollCheck(roll.index, roll.value, derived))
    return DiceReport(
        seed_matches_commitment=same_secret(commitment(seed_hex), str(published_commitment)),
        checks=tuple(checks),
        reused_indexes=tuple(reused),
    )


@dataclass(frozen=True)
class Roll:
    """A die drawn for a decision (satisfies the rules' DieRoll shape)."""

    index: int
    sides: int
    value: int
    purpose: str
    entropy: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sides": self.sides,
            "value": self.value,
            "purpose": self.purpose,
            "entropy": self.entropy,
        }


class ServerDice:
    """The dice of one decision: derived from the secret seed, indexes continuing the game's."""

    def __init__(self, seed: str, game_id: UUID, start: int, entropy: str) -> None:
        self._seed = seed
        self._game_id = str(game_id)
        self._next = start
        self._entropy = entropy
        self.rolled: list[Roll] = []
        #: none: a re-decision's dice (``reused_dice.ReusedDice``) give recorded ones again
        self.reused: tuple[Any, ...] = ()

    def roll(self, sides: int = 6, purpose: str = "") -> Roll:
        value = derive_roll(self._seed, self._game_id, self._next, self._entropy, sides)
        roll = Roll(self._next, sides, value, purpose, self._entropy)
        self._next += 1
        self.rolled.append(roll)
        return roll
