"""The dice of a re-decision: a disputed command decided again under another reading (or as
another command) with the same luck.

A reading changes how a roll is read, not the roll: each die the re-decision asks for is the
recorded die of the same purpose and sides, in the order they were rolled; a die the recorded
resolution never rolled is drawn from ``fresh`` (the game's seeded dice when a verdict is applied;
:class:`ExampleDice` in a what-if, which must never draw the seed's next values)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any, Protocol


class RollLike(Protocol):
    index: int
    sides: int
    value: int
    purpose: str

    def as_dict(self) -> dict[str, Any]: ...


class FreshDice(Protocol):
    rolled: list[Any]

    def roll(self, sides: int = 6, purpose: str = "") -> Any: ...


class ReusedRoll:
    """A recorded die given again: its index, entropy and value are the recorded ones."""

    def __init__(self, recorded: Mapping[str, Any], purpose: str) -> None:
        self.index = int(recorded["index"])
        self.sides = int(recorded["sides"])
        self.value = int(recorded["value"])
        self.entropy = str(recorded.get("entropy", ""))
        self.purpose = purpose
        self.from_seq = recorded.get("seq")

    def as_dict(self) -> dict[str, Any]:
        """As the rules see it: the very roll that was recorded."""
        return {
            "index": self.index,
            "sides": self.sides,
            "value": self.value,
            "purpose": self.purpose,
            "entropy": self.entropy,
        }

    def record(self) -> dict[str, Any]:
        """As the log's ``DiceReused`` keeps it: with the event that first recorded it."""
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
                again = ReusedRoll(recorded, purpose)
                self.reused.append(again)
                self.trail.append((again, True))
                return again
        roll = self._fresh.roll(sides, purpose)
        self.trail.append((roll, False))
        return roll

    @property
    def unused(self) -> list[dict[str, Any]]:
        """The recorded dice the re-decision never asked for."""
        return [dict(r) for r in self._left]


class ExampleRoll:
    def __init__(self, index: int, sides: int, value: int, purpose: str) -> None:
        self.index, self.sides, self.value, self.purpose = index, sides, value, purpose
        self.entropy = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sides": self.sides,
            "value": self.value,
            "purpose": self.purpose,
            "entropy": "",
        }


class ExampleDice:
    """Dice for a what-if that would be rolled afresh: a public example value derived from
    ``label`` (never from the game's seed, whose next values are the next real rolls), so a
    what-if is the same each time it is asked and tells nothing of the dice to come."""

    def __init__(self, label: str) -> None:
        self._label = label
        self.rolled: list[ExampleRoll] = []

    def roll(self, sides: int = 6, purpose: str = "") -> ExampleRoll:
        n = len(self.rolled)
        digest = hashlib.sha256(f"{self._label}|{n}|{purpose}".encode()).digest()
        value = int.from_bytes(digest[:8], "big") % sides + 1
        roll = ExampleRoll(-(n + 1), sides, value, purpose)
        self.rolled.append(roll)
        return roll
