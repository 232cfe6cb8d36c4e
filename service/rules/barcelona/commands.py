"""The commands of Back to Barcelona, each declared once with its fields and phase.

A command's shape (its fields and their types, the units it names, the sheet's weapons, troop
types and vehicles) is checked from its declaration before any rule runs; the guard then checks
the SEQUENCE OF PLAY (the phase, who acts now).  Each rule function ``(state, side, command,
dice)`` reads typed fields and returns its events; after it, the phases no player acts in run
(:func:`sequence.settle`) on the same look-ahead state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import fields, validate

from service.rules.barcelona import data, forces, movement, orders, sequence, shooting
from service.rules.barcelona.events import EVENTS
from service.rules.barcelona.table import UnitRefs
from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import (
    Commands,
    CommandSpec,
    Count,
    Flag,
    Handler,
    Kinded,
    Nested,
    Number,
    Text,
    Texts,
    Unit,
)

RULE = "SEQUENCE OF PLAY"


def check_turn(state: State, side: str, spec: CommandSpec) -> None:
    """SEQUENCE OF PLAY: each command in its phase, by a side that acts now."""
    phase = state["phase"]
    if phase == "over":
        raise RuleViolation(RULE, "the game is over")
    if phase not in spec.phases:
        raise RuleViolation(RULE, f"{spec.type} is not allowed in the {phase} phase", "type")
    if side not in sequence.acting(state):
        raise RuleViolation(RULE, f"{side} may not act now")


COMMANDS = Commands("barcelona", guard=check_turn, refs=UnitRefs())


class Route(Kinded, fields.List):
    """A move on the table: the points ``[x, y]`` (inches) it passes through, the last its end;
    empty to stay put."""

    kind = "choice"

    def __init__(self, *, required: bool = True, max: int = 32) -> None:
        point = fields.List(fields.Float(allow_nan=False), validate=validate.Length(equal=2))
        super().__init__(point, required=required, validate=validate.Length(max=max))


class Orders(Kinded, fields.Dict):
    """Written orders: ``{unit id: {"text": str, "move": bool}}``."""

    kind = "choice"

    def __init__(self) -> None:
        order = Nested(
            {"text": Text(validate=validate.Length(max=500)), "move": Flag(required=False)}
        )
        super().__init__(keys=fields.String(), values=order, required=True)


def declare(type: str, phase: str, rule: Handler, **declared: fields.Field) -> None:
    """Declare ``type`` in ``phase``, decided by ``rule`` and then the automatic phases."""

    def decide(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
        out = EVENTS.emitter(state)
        for event in rule(out.state, side, command, dice):
            out.emit(event)
        sequence.settle(out, dice)
        return out.events

    decide.__doc__ = rule.__doc__
    COMMANDS.command(type, phases=(phase,), doc=rule.__doc__ or "", **declared)(decide)


def _troop_types() -> list[str]:
    return sorted(data.load("troops")["troop_types"])


def end_muster(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Attribute Costs: a side bought its force."""
    if state["options"]["forces"] != "points":
        raise RuleViolation("GENERATING A COLUMN", "generate your column first")
    if not any(u["side"] == side for u in state["units"].values()):
        raise RuleViolation("Attribute Costs", "buy at least one unit")
    return [RulesEvent("MusterEnded", {"side": side})]


def end_movement(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    """SEQUENCE OF PLAY: a side moves no more units this turn."""
    if state["moving"]:
        name = state["units"][state["moving"]]["name"]
        raise RuleViolation("MOVEMENT", f"first finish the move of {name}")
    return [RulesEvent("MovementEnded", {"side": side})]


def end_step(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """SEQUENCE OF PLAY: a side fires no more in this step of the shooting order."""
    return [RulesEvent("StepEnded", {"side": side})]


BOUGHT: dict[str, fields.Field] = {
    "kind": Text(choices=list(forces.NEEDS)),
    "troop_type": Text(required=False, choices=_troop_types()),
    "grade": Count(required=False, maximum=9),
    "figures": Count(required=False, minimum=1, maximum=60),
    "attributes": Texts(required=False, max=4),
    "bombs": Flag(required=False),
    "lmg": Count(required=False, maximum=9),
    "weapon": Text(required=False, choices=forces.TEAM_WEAPONS),
    "crew": Count(required=False, minimum=1, maximum=20),
    "vehicle": Text(required=False, choices=forces.vehicles_of("any")),
}

declare(
    "generate_column",
    "muster",
    forces.generate_column,
    troop_type=Text(choices=_troop_types()),
    grade=Count(required=False, maximum=9),
    tank=Text(required=False, choices=forces.vehicles_of("tank")),
    armoured_car=Text(required=False, choices=forces.vehicles_of("armoured_car")),
)
declare("buy", "muster", forces.buy, unit=Nested(BOUGHT))
declare("end_muster", "muster", end_muster)
declare(
    "deploy",
    "deployment",
    sequence.deploy,
    unit=Unit(),
    x=Number(),
    y=Number(),
    facing=Number(required=False),
    ranks=Count(required=False, minimum=1, maximum=20),
)
declare("reserve", "deployment", sequence.reserve, unit=Unit())
declare("end_deployment", "deployment", sequence.end_deployment)
declare("write_orders", "orders", orders.write, orders=Orders())
declare(
    "roll_move",
    "movement",
    movement.roll_move,
    unit=Unit(),
    going=Text(required=False, choices=movement.GOINGS),
    load=Unit(required=False),
    limber=Unit(required=False),
    unload=Flag(required=False),
    unlimber=Flag(required=False),
)
declare("move", "movement", movement.move, unit=Unit(), path=Route(), facing=Number(required=False))
declare("hold", "movement", movement.hold, unit=Unit())
declare("end_movement", "movement", end_movement)
TARGETS = Nested(
    {
        "unit": Text(validate=validate.Length(min=1, max=200)),
        "dice": Count(required=False, minimum=1, maximum=60),
        "figure": Count(required=False, maximum=60),
    },
    many=True,
)
TARGETS.validators.append(validate.Length(min=1, error="name at least one target"))
declare(
    "shoot",
    "shooting",
    shooting.shoot,
    unit=Unit(),
    weapon=Text(choices=list(data.load("weapons")["weapons"])),
    targets=TARGETS,
)
declare("end_step", "shooting", end_step)
