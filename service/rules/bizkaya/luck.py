"""Luck measured from Bizkaya's dice (issue 31, :mod:`service.rules.luck`).

Combat (13) rolls two dice, one for each side: "each of the different dice will indicate the
Combat Intensity and the Number of casualties suffered" -- a side's die, read on the Intensity
Table against the morale of the other side's leading unit, is the steps of losses it inflicts.
So each die is measured for its own side as the steps it made the enemy lose, every face read
with :func:`service.rules.bizkaya.tables.intensity` (the function that resolved it); seen from
the other side it is the steps that side lost, negated -- both in "steps of losses" like the
other games.  The dice's sum on the CRT (retreats, the morale check's modifier) is not valued.
Barrage, morale, weather, recovery and Bilbao rolls report their distribution only.
"""

from __future__ import annotations

from collections.abc import Mapping

from service.rules.base import RulesEvent, State
from service.rules.bizkaya import tables
from service.rules.bizkaya.combat import SIDES
from service.rules.hexgame import HexReview
from service.rules.luck import RollValue, faces_of

UNIT = "steps of losses"


def roll_values(event: RulesEvent, state_before: State) -> list[RollValue]:
    data = event.data
    dice = data.get("dice")
    if event.type != "CombatResolved" or not isinstance(dice, Mapping):
        return []
    attacker = str(data["side"])
    defender = SIDES[1] if attacker == SIDES[0] else SIDES[0]
    leaders = data.get("leaders") or {}
    units = state_before.get("units") or {}
    morale = {}
    for role, side in (("attacker", attacker), ("defender", defender)):
        leader = units.get(leaders.get(role) or "")
        if leader is None:
            return []  # no leading unit recorded: nothing to read the table against
        morale[side] = int(leader["morale"])
    out = []
    for side in (attacker, defender):
        die = dice.get(side)
        if not isinstance(die, Mapping):
            continue
        enemy = defender if side == attacker else attacker
        against = morale[enemy]
        faces = faces_of(int(die.get("sides", 6)), lambda f, m=against: tables.intensity(f, m))
        value = int(die["value"])
        what = f"{tables.intensity(value, against)} step(s) inflicted against morale {against}"
        out.append(RollValue(int(die["index"]), side, value, faces, UNIT, what))
    return out


class BizkayaReview(HexReview):
    """The capability ``review``: each combat die valued on the Intensity Table, steps lost."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        return roll_values(event, state_before)
