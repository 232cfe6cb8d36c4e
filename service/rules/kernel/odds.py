"""Combat odds: the attack:defence ratio to a column of a table, rounded down in the defender's
favour, then column shifts clamped to the table.

Columns are labels like ``"1-3"``, ``"1-1"``, ``"3-1"`` or ``"3:2"``; each stands for the ratio it
spells.  The base column is the one with the largest ratio not above attack/defence (exact
fractions: 11:4 = 2.75 -> ``2-1``; 5:11 -> 1:2.2 -> ``1-3``).  Worse than the first column is
``below_min`` (the module decides: fight on the first column, or an automatic result); better than
the last is ``above_max`` (fought on the last column).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

_LABEL = re.compile(r"\s*(\d+(?:\.\d+)?)\s*[-:]\s*(\d+(?:\.\d+)?)\s*")


def column_ratio(label: str) -> Fraction:
    match = _LABEL.fullmatch(label)
    if match is None:
        raise ValueError(f"{label!r} is not an odds column like 3-1 or 1:2")
    return Fraction(match.group(1)) / Fraction(match.group(2))


@dataclass(frozen=True)
class Odds:
    attack: float
    defence: float
    base_index: int | None  # the column before shifts; None when below_min and not fought
    index: int | None  # after shifts, clamped; None when below_min and not fought
    label: str | None
    shift: int = 0
    below_min: bool = False
    above_max: bool = False
    clamped: bool = False  # the shift ran past the table's first or last column

    def as_dict(self) -> dict[str, object]:
        return {
            "attack": self.attack,
            "defence": self.defence,
            "column": self.label,
            "index": self.index,
            "base_index": self.base_index,
            "shift": self.shift,
            "below_min": self.below_min,
            "above_max": self.above_max,
            "clamped": self.clamped,
        }


class OddsColumns:
    def __init__(self, labels: Sequence[str]) -> None:
        if not labels:
            raise ValueError("an odds table needs columns")
        self.labels = tuple(labels)
        self.ratios = tuple(column_ratio(label) for label in labels)
        if any(a >= b for a, b in zip(self.ratios, self.ratios[1:], strict=False)):
            raise ValueError(f"odds columns must rise from left to right: {self.labels}")

    def base_index(self, attack: float, defence: float) -> int | None:
        """The column rounded down in the defender's favour, ``None`` if worse than the first;
        an attack on a defence of 0 is better than any column."""
        if defence <= 0:
            return len(self.labels) - 1 if attack > 0 else None
        ratio = _ratio(attack, defence)
        found = None
        for index, column in enumerate(self.ratios):
            if column <= ratio:
                found = index
        return found

    def is_above_max(self, attack: float, defence: float) -> bool:
        """Better than the last column: a whole ratio past it (7-1 or more for a 6-1 last
        column), or any attack on a defence of 0."""
        if defence <= 0:
            return attack > 0
        last = self.ratios[-1]
        ratio = _ratio(attack, defence)
        return ratio >= last + 1 if last >= 1 else ratio > last

    def odds(self, attack: float, defence: float, shift: int = 0, below_min: str = "none") -> Odds:
        """``below_min``: ``"none"`` (no column: the module applies its automatic result) or
        ``"first"`` (fight on the first column, shifts applied)."""
        if below_min not in ("none", "first"):
            raise ValueError(f"below_min must be 'none' or 'first', not {below_min!r}")
        base = self.base_index(attack, defence)
        is_below = base is None
        if base is None:
            if below_min == "none":
                return Odds(attack, defence, None, None, None, shift, below_min=True)
            base = 0
        index, clamped = self.shift(base, shift)
        return Odds(
            attack,
            defence,
            base,
            index,
            self.labels[index],
            shift,
            below_min=is_below,
            above_max=self.is_above_max(attack, defence),
            clamped=clamped,
        )

    def shift(self, index: int, columns: int) -> tuple[int, bool]:
        """``index`` moved by ``columns``, clamped; and whether it was clamped."""
        moved = index + columns
        clamped = min(max(moved, 0), len(self.labels) - 1)
        return clamped, clamped != moved


def _ratio(attack: float, defence: float) -> Fraction:
    return Fraction(attack).limit_denominator(10**6) / Fraction(defence).limit_denominator(10**6)
