"""Luck measured from Merida's dice (issue 31, :mod:`service.rules.luck`).

A combat roll (rule 8) is worth the units the CRT makes the defender lose minus the units it makes
the attacker lose (Combat Results: ``D1`` "Defending units lose 1 unit", ``EX`` "Both sides lose 1
unit", ``A1`` "Attacking units lose 1 unit"), measured for the attacker; every face is read with
:func:`service.rules.merida.combat.resolve` on the recorded odds column and die modifiers, the
function that resolved the attack.  The printed losses are measured (a stack too small to fill
them loses what it has: the CRT's value, not the board's).  Air loss rolls (rule 8) report their
distribution only.
"""

from __future__ import annotations

from collections.abc import Mapping

from service.rules.base import RulesEvent, State
from service.rules.hexgame import HexReview
from service.rules.luck import RollValue, faces_of
from service.rules.merida import board, combat, victory

UNIT = "units of losses"


def crt_value(column: str, face: int, modifier: int) -> int:
    """Enemy units lost minus own, for the attacker, of one face on the CRT (rule 8)."""
    effect = combat.resolve(column, face, modifier)["effect"]
    return int(effect["defender_losses"]) - int(effect["attacker_losses"])


def roll_values(event: RulesEvent) -> list[RollValue]:
    data = event.data
    if event.type != "CombatResolved" or not isinstance(data.get("die"), Mapping):
        return []  # "tanks alone" (rule 2): no die
    die = data["die"]
    column = str(data["column"])
    modifier = sum(int(m["value"]) for m in data.get("modifiers") or [])
    faces = faces_of(int(die.get("sides", 6)), lambda f: crt_value(column, f, modifier))
    what = f"{data.get('result')} at {column}" + (f", {modifier:+d}" if modifier else "")
    return [RollValue(int(die["index"]), str(data["side"]), int(die["value"]), faces, UNIT, what)]


def tally(state: State) -> dict[str, dict[str, float]]:
    """Victory points for the places held now (rule 11) and combat units lost, per side."""
    points = victory.final_result(state)["points"]
    out: dict[str, dict[str, float]] = {}
    for side in board.SIDES:
        lost = [
            u
            for u in state["units"].values()
            if u["side"] == side and u["status"] == "eliminated" and u["type"] != "leader"
        ]
        out[side] = {"vp": float(points[side]), "losses": float(len(lost))}
    return out


class MeridaReview(HexReview):
    """The capability ``review``: combat dice valued on the CRT, victory points and units lost."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        return roll_values(event)

    def tally(self, state: State) -> dict[str, dict[str, float]]:
        return tally(state)
