"""Luck measured from Back to Barcelona's dice (issue 31, :mod:`service.rules.luck`).

A shooting die (Shooting: "D6 per figure.  4,5,6 causes a casualty", with the modifiers listed
there) is worth one hit or none to the side that shot: every face is read as the shot was --
``face + modifier_total >= needed`` on the recorded number and modifiers -- so the expected value
is the hit probability.  Saving throws, AFV pairs of dice (2d6 against knock-out numbers: not one
die's value), close combat, morale, rally, movement, orders and forces rolls report their
distribution only.
"""

from __future__ import annotations

from collections.abc import Mapping

from service.rules.base import RulesEvent, State
from service.rules.luck import RollValue, faces_of

UNIT = "hits"


def hit(face: int, modifier: int, needed: int) -> int:
    return 1 if face + modifier >= needed else 0


def roll_values(event: RulesEvent, state_before: State) -> list[RollValue]:
    data = event.data
    if event.type != "ShotResolved":
        return []
    side = str(data.get("side") or "")
    out = []
    for line in data.get("targets") or []:
        if "needed" not in line:
            continue  # against an AFV with two dice: no single die's value
        needed, modifier = int(line["needed"]), int(line.get("modifier_total") or 0)
        for die in line.get("dice") or []:
            if not isinstance(die, Mapping) or "index" not in die:
                continue
            faces = faces_of(int(die.get("sides", 6)), lambda f, m=modifier, n=needed: hit(f, m, n))
            value = int(die["value"])
            what = f"{'hit' if hit(value, modifier, needed) else 'miss'}, needing {needed}" + (
                f" with {modifier:+d}" if modifier else ""
            )
            out.append(RollValue(int(die["index"]), side, value, faces, UNIT, what))
    return out


class BarcelonaReview:
    """The capability ``review``: shooting dice valued as hits; no standing per turn yet."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        return roll_values(event, state_before)

    def tally(self, state: State) -> dict[str, dict[str, float]]:
        return {}
