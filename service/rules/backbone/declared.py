"""Backbone's declarations: the commands (with their guard: whose turn, which step or combat stage)
and the rules events, each declared once beside its decision or its application."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from service.rules.backbone.units import State
from service.rules.base import InvalidCommand, RuleViolation
from service.rules.declare import Commands, CommandSpec, Events, Hex, Kinded, Unit
from service.rules.hexgame import HexRefs

SIDES = ("allied", "spanish")


def active_sides(state: State) -> list[str]:
    """Who acts now (8.2): the defender during a declared combat's defence and retreat, the
    Spanish for Baraka (10.2), the attacker to advance (16.7); both sides at once to choose
    replacements (13.2) and to vote an early end (17); else the side whose step it is."""
    if state.get("result") or state["step"] == "over":
        return []
    pending = state.get("pending")
    if pending:
        return [pending["side"]]  # a decision the rules give a player waits for that player
    combat = state.get("combat")
    if combat:
        return [_combat_side(combat)]
    return _STEP_SIDES.get(state["step"], _step_owner)(state)


def _combat_side(combat: dict[str, Any]) -> str:
    attacker = combat["attacker_side"]
    if combat["stage"] == "baraka":
        return "spanish"
    return attacker if combat["stage"] == "advance" else _other(attacker)


def _other(side: str) -> str:
    return "spanish" if side == "allied" else "allied"


def _step_owner(state: State) -> list[str]:
    return [state["step"].split("_")[0]]


_STEP_SIDES = {
    "deployment": lambda s: ["spanish"],
    "allied_deployment": lambda s: ["allied"],
    "administrative": lambda s: ["allied"],
    "strait": lambda s: ["allied"],
    "amphibious": lambda s: ["allied"],
    "events": lambda s: ["spanish" if s["turn"] % 2 else "allied"],
    "replacements": lambda s: [x for x in SIDES if x not in s["replacements"]],
    "agreement": lambda s: [x for x in SIDES if x not in s["end_votes"]],
}


def phase_of(state: State) -> str:
    """The phase a command is declared for: a combat's stage, ``movement`` or ``combat`` for either
    side's phase, else the step; the pending decision's kind (``arrival``, 18.1) while one waits."""
    if state.get("pending"):
        return str(state["pending"]["kind"])
    combat = state.get("combat")
    if combat:
        return str(combat["stage"])
    step: str = state["step"]
    for kind in ("movement", "combat"):
        if step.endswith(f"_{kind}"):
            return kind
    return step


def guard(state: State, side: str, spec: CommandSpec) -> None:
    """8.2: the side must be acting and the command belong to the step; 16.2: a declared combat is
    fought through its stages before anything else."""
    if side not in SIDES:
        raise InvalidCommand("unknown side", {"side": [f"one of {', '.join(SIDES)}"]})
    if side not in active_sides(state):
        raise RuleViolation("8.2", f"it is not the {side} player's turn to act", "side")
    phase = phase_of(state)
    if spec.phases and phase not in spec.phases:
        if state.get("pending"):
            pending = state["pending"]
            who = "Spanish" if pending["side"] == "spanish" else "Allied"
            units = ", ".join(state["units"][i["unit"]]["name"] for i in pending["units"])
            raise RuleViolation(
                pending["rule"], f"the game waits for the {who} player to place {units}", "type"
            )
        if state.get("combat"):
            raise RuleViolation("16.2", f"the combat waits for its {phase} stage", "type")
        step = state["step"].replace("_", " ")
        raise RuleViolation("8.2", f"{spec.type} is not allowed in the {step} step", "type")


COMMANDS = Commands("backbone", guard=guard, refs=HexRefs())
EVENTS = Events("backbone")


# -- fields of Backbone's own shapes ---------------------------------------------------------------
def non_empty(declared: fields.Field) -> fields.Field:
    """A list field that must hold at least one item."""
    declared.validators.append(validate.Length(min=1))
    return declared


class Positions(Kinded, fields.Dict):
    """Deployment positions: unit ids to hexes."""

    kind = "choice"

    def __init__(self) -> None:
        super().__init__(
            keys=fields.String(validate=validate.Length(min=1, max=200)),
            values=fields.String(validate=validate.Length(min=1, max=16)),
            required=False,
        )


def unit_at_hex() -> dict[str, fields.Field]:
    """``{unit, hex}``: a replacement step or a paratrooper drop."""
    return {"unit": Unit(), "hex": Hex(required=False, allow_none=True)}


class EfficiencyChoices(Kinded, fields.Dict):
    """The efficiency a unit with a choice counts as (FJR/GJR as 3 or 2, 16.3): unit id -> 2 or 3."""

    kind = "choice"

    def __init__(self) -> None:
        super().__init__(
            keys=fields.String(validate=validate.Length(min=1, max=200)),
            values=fields.Integer(strict=True, validate=validate.Range(min=1, max=3)),
            required=False,
        )
