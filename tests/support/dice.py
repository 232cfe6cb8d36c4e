"""Scripted dice for rules tests: the values the rulebook's example needs, in order."""

from __future__ import annotations

from collections.abc import Iterable

from service.rules.base import DieRoll


class ScriptedDice:
    """Implements the :class:`service.rules.base.Dice` port with values given in advance.

    It fails loudly when a decision rolls more dice than the test scripted, or a value that does not
    fit the die, so a test notices an unexpected roll."""

    def __init__(self, values: Iterable[int] = (), start_index: int = 0) -> None:
        self._values = list(values)
        self.index = start_index
        self.rolled: list[DieRoll] = []

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        if not self._values:
            raise AssertionError(f"unscripted roll of a d{sides} for {purpose!r}")
        value = self._values.pop(0)
        if not 1 <= value <= sides:
            raise AssertionError(f"scripted value {value} does not fit a d{sides}")
        die = DieRoll(index=self.index, sides=sides, value=value, purpose=purpose)
        self.index += 1
        self.rolled.append(die)
        return die

    @property
    def unused(self) -> list[int]:
        return list(self._values)
