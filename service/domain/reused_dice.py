"""The dice of a re-decision: a disputed command decided again under another reading (or as
another command) with the same luck.

A reading changes how a roll is read, not the roll: each die the re-decision asks for is the
recorded die of the same purpose and sides, in the order they were rolled; a die the recorded
resolution never rolled is drawn from ``fresh`` (the game's seeded dice when a verdict is applied;
:class:`ExampleDice` in a what-if, which must never draw the seed's next values)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from service.domain.dice import Roll


class FreshDice(Protocol):
    rolled: list[Any]

    def roll(self, sides: int = 6, purpose: str = "") -> Any: ...


@dataclass(frozen=True)
class ReusedRoll(Roll):
    """A recorded die given again: the very roll (its index, entropy and value) as the rules see
    it, and the event that first recorded it (``from_seq``) for the log's ``DiceReused``."""

    from_seq: int | None = None

    def record(self) -> dict[str, Any]:
        return {**self.as_dict(), "from_seq": self.from_seq}


class ReusedDice:
    """Recorded dice first (same purpose and sides, in order), then ``fresh`` ones.

    ``trail`` is every die given, in order, with whether it was reused; ``reused`` the recorded
    ones given again, ``rolled`` the fresh ones (``fresh.rolled``)."""

    def __init__(self, recorded: Iterable[Mapping[str, Any]], fresh: FreshDice) -> None:
        self._left = [dict(r) for r in recorded]
        self._fresh = fresh
        self.reused: list[ReusedRoll] = []
        self.trail: list[tuple[Any, bool]] = []

    @property
    def rolled(self) -> list[Any]:
        return list(self._fresh.rolled)

    def roll(self, sides: int = 6, purpose: str = "") -> Any:
        for i, recorded in enumerate(self._left):
            if int(recorded["sides"]) == sides and recorded.get("purpose", "") == purpose:
                del self._left[i]
                again = ReusedRoll(
                    int(recorded["index"]),
                    sides,
                    int(recorded["value"]),
                    purpose,
                    str(recorded.get("entropy", "")),
                    recorded.get("seq"),
                )
                self.reused.append(again)
                self.trail.append((again, True))
                return again
        roll = self._fresh.roll(sides, purpose)
        self.trail.append((roll, False))
        return roll


class ExampleDice:
    """Dice for a what-if that would be rolled afresh: a public example value derived from
    ``label`` (never from the game's seed, whose next values are the next real rolls), so a
    what-if is the same each time it is asked and tells nothing of the dice to come.  Their
    indexes are negative: no index of the game's."""

    def __init__(self, label: str) -> None:
        self._label = label
        self.rolled: list[Roll] = []

    def roll(self, sides: int = 6, purpose: str = "") -> Roll:
        n = len(self.rolled)
        digest = hashlib.sha256(f"{self._label}|{n}|{purpose}".encode()).digest()
        value = int.from_bytes(digest[:8], "big") % sides + 1
        roll = Roll(-(n + 1), sides, value, purpose, "")
        self.rolled.append(roll)
        return roll
