"""``decide``: the command's shape, the phase it belongs to, its handler, then the automatic phases."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.barcelona import forces, movement, orders, sequence, shooting
from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State

PHASES: dict[str, tuple[str, ...]] = {
    "generate_column": ("muster",),
    "buy": ("muster",),
    "end_muster": ("muster",),
    "deploy": ("deployment",),
    "reserve": ("deployment",),
    "end_deployment": ("deployment",),
    "write_orders": ("orders",),
    "roll_move": ("movement",),
    "move": ("movement",),
    "hold": ("movement",),
    "end_movement": ("movement",),
    "shoot": ("shooting",),
    "end_step": ("shooting",),
}


def _end_muster(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
    if state["options"]["forces"] != "points":
        raise RuleViolation("GENERATING A COLUMN", "generate your column first")
    if not any(u["side"] == side for u in state["units"].values()):
        raise RuleViolation("Attribute Costs", "buy at least one unit")
    return [RulesEvent("MusterEnded", {"side": side})]


def _end_movement(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
    if state["moving"]:
        raise RuleViolation("MOVEMENT", f"first finish the move of {state['moving']}")
    return [RulesEvent("MovementEnded", {"side": side})]


HANDLERS: dict[str, Callable[..., list[RulesEvent]]] = {
    "buy": lambda s, side, c, d: forces.buy(s, side, c),
    "end_muster": lambda s, side, c, d: _end_muster(s, side, c),
    "generate_column": forces.generate_column,
    "deploy": lambda s, side, c, d: sequence.deploy(s, side, c),
    "reserve": lambda s, side, c, d: sequence.reserve(s, side, c),
    "end_deployment": lambda s, side, c, d: sequence.end_deployment(s, side),
    "write_orders": lambda s, side, c, d: orders.write(s, side, c),
    "roll_move": movement.roll_move,
    "move": lambda s, side, c, d: movement.move(s, side, c),
    "hold": lambda s, side, c, d: movement.hold(s, side, c),
    "end_movement": lambda s, side, c, d: _end_movement(s, side, c),
    "shoot": shooting.shoot,
    "end_step": lambda s, side, c, d: [RulesEvent("StepEnded", {"side": side})],
}


def decide(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    if not isinstance(command, Mapping):
        raise InvalidCommand("a command must be an object", {"command": ["not an object"]})
    kind = command.get("type")
    if kind not in PHASES:
        raise InvalidCommand("unknown command", {"type": [f"one of {', '.join(PHASES)}"]})
    if state["phase"] == "over":
        raise RuleViolation("SEQUENCE OF PLAY", "the game is over")
    if state["phase"] not in PHASES[kind]:
        raise RuleViolation(
            "SEQUENCE OF PLAY", f"{kind} is not allowed in the {state['phase']} phase", "type"
        )
    if side not in sequence.acting(state):
        raise RuleViolation("SEQUENCE OF PLAY", f"{side} may not act now")
    flow = sequence.Flow(state)
    for event in HANDLERS[kind](flow.state, side, command, dice):
        flow.emit(event)
    sequence.settle(flow, dice)
    return flow.events
