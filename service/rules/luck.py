"""Luck measured from the dice (issue 31): for a resolved roll, what it produced against what it
could have produced, in the game's own terms.

A rules module says what one of its recorded rolls was worth with :meth:`RulesSystem.roll_values`
(``service.rules.base``): for each roll that has a natural value, a :class:`RollValue` -- the side
whose gain it measures and the value each face of the die would have produced, computed with the
same table functions that resolved it.  Every face of a server die is equally likely
(``service.domain.dice``: rejection sampling), so the expected value is the mean of the faces'
values and the roll's luck is ``outcome - expected``.  A roll with no natural value (weather,
events, initiative) is reported with its distribution only.

A side's figure over a game is the sum of its rolls' luck, each roll counted from that side's point
of view: a roll measured for the enemy counts negated (what the enemy gained, the side lost), so in
a two-sided game one side's figure is the other's negated.  ``p_at_least`` is the probability of
doing at least this well: ``P(S >= s)`` where ``S`` is the sum of the rolls' values, computed by
exact convolution of the per-roll distributions (counting the equally likely combinations of
faces in whole numbers) -- or, past :data:`EXACT_ROLLS` rolls or :data:`EXACT_SUPPORT` distinct
sums, by the normal approximation with a continuity correction.

Pure: no I/O, standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: the most rolls, and distinct sums, that the exact convolution takes before the normal
#: approximation (the work grows with the square of the rolls; past 60 rolls of a die the central
#: limit theorem's normal law is within about a hundredth of the exact tail for these tables)
EXACT_ROLLS = 60
EXACT_SUPPORT = 2_000


@dataclass(frozen=True)
class RollValue:
    """What one recorded roll was worth to ``side``: ``faces[i]`` is the value the die would have
    produced on face ``i + 1`` (all faces equally likely), ``value`` the face it showed."""

    index: int  # the roll's index in the game's dice (``Game.DiceRolled``)
    side: str  # whose gain the values measure
    die: int  # the face rolled (1..len(faces))
    faces: tuple[Fraction, ...]
    unit: str  # the measure's unit in words: "units of losses", "steps of losses", "hits"
    what: str = ""  # the outcome in the game's terms ("D1 at 2-1"), for the words

    @property
    def outcome(self) -> Fraction:
        return self.faces[self.die - 1]

    @property
    def expected(self) -> Fraction:
        return sum(self.faces, Fraction(0)) / len(self.faces)

    @property
    def luck(self) -> Fraction:
        return self.outcome - self.expected

    def for_side(self, side: str) -> RollValue:
        """This roll seen by ``side``: the same values if measured for it, else negated."""
        if side == self.side:
            return self
        return RollValue(
            self.index, side, self.die, tuple(-v for v in self.faces), self.unit, self.what
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "side": self.side,
            "die": self.die,
            "faces": [_number(v) for v in self.faces],
            "unit": self.unit,
            "what": self.what,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RollValue:
        return cls(
            int(data["index"]),
            str(data["side"]),
            int(data["die"]),
            tuple(Fraction(str(v)) for v in data["faces"]),
            str(data["unit"]),
            str(data.get("what", "")),
        )


def faces_of(sides: int, value_of: Any) -> tuple[Fraction, ...]:
    """``value_of(face)`` for every face 1..``sides``, as fractions."""
    return tuple(Fraction(value_of(face)) for face in range(1, sides + 1))


def convolve(
    rolls: Sequence[RollValue], limit: int = EXACT_SUPPORT
) -> tuple[dict[int, int], int, int] | None:
    """The distribution of the sum of independent rolls, exactly, in whole numbers: ``(ways,
    total, scale)`` -- ``ways[k]`` of the ``total`` equally likely combinations of faces sum to
    ``k / scale`` (``scale`` clears every value's denominator).  None past ``limit`` distinct
    sums."""
    scale = math.lcm(1, *(v.denominator for r in rolls for v in r.faces))
    ways: dict[int, int] = {0: 1}
    total = 1
    for roll in rolls:
        faces: dict[int, int] = {}
        for face in roll.faces:
            key = int(face * scale)
            faces[key] = faces.get(key, 0) + 1
        nxt: dict[int, int] = {}
        for s, n in ways.items():
            for v, m in faces.items():
                nxt[s + v] = nxt.get(s + v, 0) + n * m
        if len(nxt) > limit:
            return None
        ways, total = nxt, total * len(roll.faces)
    return ways, total, scale


def p_at_least(rolls: Sequence[RollValue]) -> float:
    """The probability that these rolls, re-rolled, would produce at least what they did."""
    if not rolls:
        return 1.0
    produced = sum((r.outcome for r in rolls), Fraction(0))
    exact = convolve(rolls) if len(rolls) <= EXACT_ROLLS else None
    if exact is not None:
        ways, total, scale = exact
        at_least = sum(n for k, n in ways.items() if k >= produced * scale)
        return float(Fraction(at_least, total))
    mean = sum(float(r.expected) for r in rolls)
    var = sum(float(sum((v - r.expected) ** 2 for v in r.faces) / len(r.faces)) for r in rolls)
    if var == 0:
        return 1.0 if float(produced) <= mean else 0.0
    scale = math.lcm(1, *(v.denominator for r in rolls for v in r.faces))
    # the sums lie on a lattice of step 1/scale: the continuity correction is half a step
    z = (float(produced) - 0.5 / scale - mean) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2))


def side_figure(rolls: Sequence[RollValue], side: str) -> dict[str, Any]:
    """A side's luck over ``rolls`` (each seen from ``side``): ``figure`` (the sum of outcome minus
    expected), ``unit``, ``p_at_least`` and the rolls, by index."""
    mine = sorted((r.for_side(side) for r in rolls), key=lambda r: r.index)
    units = sorted({r.unit for r in mine})
    return {
        "figure": _number(sum((r.luck for r in mine), Fraction(0))),
        "unit": " and ".join(units),
        "p_at_least": p_at_least(mine),
        "rolls": [
            {
                "index": r.index,
                "die": r.die,
                "outcome": _number(r.outcome),
                "expected": _number(r.expected),
                "what": r.what,
            }
            for r in mine
        ],
    }


def _number(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else float(value)
