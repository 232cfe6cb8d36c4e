"""Luck measured from Operation Backbone's dice (issue 31, :mod:`service.rules.luck`).

A combat roll (16.2, 16.6) is worth the steps the CRT makes the defender lose minus the steps it
makes the attacker lose, measured for the attacker: each face is read on the recorded final column
with the recorded net die modifier (16.3, 16.4; the modified roll read as 16.6's table rows,
``< 0`` through 8) with :func:`service.rules.backbone.crt.lookup` and
:class:`~service.rules.backbone.crt.CombatResult` -- the functions that resolved the combat --
then cut to the steps each side had with :func:`service.rules.backbone.losses.satisfiable` (16.6:
"If one side cannot satisfy all the losses ... the opponent only has to satisfy the same or
less").  Retreats are not counted.  The last stand roll (16.5), Baraka's ignored die (10.2),
weather, strait and event draws report their distribution only.
"""

from __future__ import annotations

from collections.abc import Mapping

from service.rules.backbone.crt import CombatResult, lookup
from service.rules.backbone.losses import satisfiable
from service.rules.backbone.units import State
from service.rules.base import RulesEvent
from service.rules.hexgame import HexReview
from service.rules.luck import RollValue, faces_of

UNIT = "steps of losses"


def crt_value(column: str, face: int, net_drm: int, steps: tuple[int, int] | None = None) -> int:
    """Defender steps lost minus attacker steps lost, for the attacker, of one face (16.6);
    ``steps``: the attacker's and the defender's steps in the combat, when known."""
    result = CombatResult.parse(lookup(column, face + net_drm))
    attacker, defender = result.attacker_steps, result.defender_steps
    if steps is not None:
        attacker, defender = satisfiable(attacker, defender, *steps)
    return defender - attacker


def roll_values(event: RulesEvent, state_before: State) -> list[RollValue]:
    data = event.data
    if event.type != "CombatResolved" or not isinstance(data.get("die"), Mapping):
        return []
    combat = state_before.get("combat") or {}
    attacker = combat.get("attacker_side")
    if not attacker:
        return []
    units = state_before.get("units") or {}
    steps = (
        sum(int(units[u]["steps"]) for u in combat.get("attackers", []) if u in units),
        sum(int(units[u]["steps"]) for u in combat.get("defenders", []) if u in units),
    )
    die = data["die"]
    column = str(data["odds"]["column"])
    net = int(data.get("net_drm") or 0)
    faces = faces_of(int(die.get("sides", 6)), lambda f: crt_value(column, f, net, steps))
    result = data.get("result") or {}
    what = f"{result.get('text', '?')} at {column}" + (f", {net:+d}" if net else "")
    return [RollValue(int(die["index"]), str(attacker), int(die["value"]), faces, UNIT, what)]


class BackboneReview(HexReview):
    """The capability ``review``: combat dice valued on the CRT, steps lost."""

    def roll_values(self, event: RulesEvent, state_before: State) -> list[RollValue]:
        return roll_values(event, state_before)
