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
exact convolution of the per-roll distributions (with :class:`fractions.Fraction`) -- or, past
:data:`EXACT_SUPPORT` distinct sums, by the normal approximation with a continuity correction.

Pure: no I/O, standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: the most distinct sums the exact convolution keeps before it falls back to the normal
#: approximation (integer-valued tables stay far below it: 200 rolls of a CRT worth -4..+4 have
#: at most 1,601 sums)
EXACT_SUPPORT = 20_000


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


def distribution(faces: Sequence[Fraction]) -> dict[Fraction, Fraction]:
    """The values one roll may produce and their probabilities (faces equally likely)."""
    out: dict[Fraction, Fraction] = {}
    share = Fraction(1, len(faces))
    for value in faces:
        out[value] = out.get(value, Fraction(0)) + share
    return out


def convolve(dists: Iterable[Mapping[Fraction, Fraction]]) -> dict[Fraction, Fraction] | None:
    """The distribution of the sum of independent rolls; None past :data:`EXACT_SUPPORT` sums."""
    total: dict[Fraction, Fraction] = {Fraction(0): Fraction(1)}
    for dist in dists:
        nxt: dict[Fraction, Fraction] = {}
        for s, p in total.items():
            for v, q in dist.items():
                key = s + v
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        if len(nxt) > EXACT_SUPPORT:
            return None
        total = nxt
    return total


def p_at_least(rolls: Sequence[RollValue]) -> float:
    """The probability that these rolls, re-rolled, would produce at least what they did."""
    if not rolls:
        return 1.0
    produced = sum((r.outcome for r in rolls), Fraction(0))
    dist = convolve(distribution(r.faces) for r in rolls)
    if dist is not None:
        return float(sum((p for s, p in dist.items() if s >= produced), Fraction(0)))
    mean = sum(float(r.expected) for r in rolls)
    var = sum(float(sum((v - r.expected) ** 2 for v in r.faces) / len(r.faces)) for r in rolls)
    if var == 0:
        return 1.0 if float(produced) <= mean else 0.0
    z = (float(produced) - 0.5 - mean) / math.sqrt(var)  # continuity correction (whole units)
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
