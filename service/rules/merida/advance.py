"""Rule 8 advances after combat: into the vacated hex first at no cost, ignoring enemy ZOCs, with 2
extra movement points for each result the defender could not fill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import Path, Units
from service.rules.kernel import movement as kernel_movement
from service.rules.merida import board, stacking, terrain
from service.rules.merida.commands import COMMANDS


@COMMANDS.command(
    "advance",
    phases=("combat",),
    doc="Rule 8: surviving attackers advance into the vacated hex, then on with the extra movement "
    "points of unfilled results.",
    units=Units(),
    path=Path(min=0),
)
def check_advance(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    return [judge_advance(state, side, command)]


def judge_advance(state: State, side: str, command: Mapping[str, Any]) -> RulesEvent:
    """The advance a parsed ``advance`` command makes, or the RuleViolation citing the rule."""
    offer = state["advance"]
    if offer is None:
        raise RuleViolation("8", "no defending hex has been vacated for an advance", "type")
    ids, path = list(command["units"]), list(command["path"])
    if not ids or not path:
        raise RuleViolation("8", "an advance needs units and a path", "path")
    if any(unit_id not in offer["units"] for unit_id in ids):
        raise RuleViolation(
            "8", "only the surviving attackers of the last combat may advance", "units"
        )
    if path[0] != offer["hex"]:
        raise RuleViolation(
            "8", f"the first hex entered must be the vacated hex {offer['hex']}", "path"
        )
    units = [state["units"][unit_id] for unit_id in ids]
    _enter_vacated(state, units, path[0])
    spent = _cost(state, side, units, path)
    if spent > offer["extra_mp"]:
        raise RuleViolation(
            "8",
            f"the advance beyond the vacated hex costs {spent:g} MP; "
            f"unfilled results give {offer['extra_mp']}",
            "path",
        )
    present = [u for u in board.units_at(state, path[-1]) if u["id"] not in ids]
    if not stacking.fits(present + units):
        raise RuleViolation("6", f"advancing into {path[-1]} would overstack it", "path")
    return RulesEvent("UnitsAdvanced", {"side": side, "units": ids, "path": path, "cost": spent})


def entry_problem(state: State, unit: dict[str, Any], hex_: str) -> tuple[str, str] | None:
    """Why ``unit`` may not advance from its hex into the vacated ``hex_`` (rule, message), else
    None.  The first hex is entered at no cost and ignoring enemy ZOCs (rule 8), but never across
    terrain prohibited to the unit -- rule 2: guerrillas "may never enter towns or cities"; the
    TEC: a river is "prohibited for Art and Arm except along road"."""
    rule = terrain.prohibited(state, unit, unit["hex"], hex_)
    if rule is None:
        return None
    why = {
        "2": "guerrillas may never enter towns or cities",
        "TEC": "a river is prohibited for artillery and armor except along a road",
    }.get(rule, "the terrain is prohibited to it")
    return rule, f"{unit['name']} may not advance from {unit['hex']} into {hex_}: {why}"


def _enter_vacated(state: State, units: list[dict[str, Any]], hex_: str) -> None:
    for unit in units:
        problem = entry_problem(state, unit, hex_)
        if problem is not None:
            raise RuleViolation(problem[0], problem[1], "path")


def _cost(state: State, side: str, units: list[dict[str, Any]], path: list[str]) -> float:
    """The movement points of an advance beyond the vacated hex (rule 5, rule 6, the TEC)."""
    grid = board.map_of(state).grid
    enemy = board.occupied(state, board.other(side))
    spent = 0.0
    for frm, to in zip(path, path[1:], strict=False):
        if not grid.adjacent(frm, to):
            raise RuleViolation("5", f"hexes may never be skipped ({frm} to {to})", "path")
        if to in enemy:
            raise RuleViolation("6", f"{to} holds enemy units", "path")
        costs = [terrain.step_cost(state, unit, frm, to) for unit in units]
        if any(cost is None for cost in costs):
            raise RuleViolation("TEC", f"the advance may not enter {to} from {frm}", "path")
        spent += max(c for c in costs if c is not None)
    return spent


def advancers(state: State) -> list[str]:
    """The survivors of the last combat that may enter the vacated hex from where they stand
    (``entry_problem``)."""
    offer = state["advance"]
    return [
        unit_id
        for unit_id in offer["units"]
        if entry_problem(state, state["units"][unit_id], offer["hex"]) is None
    ]


def advance_paths(state: State) -> list[list[str]]:
    """The advances the last combat offers (rule 8): into the vacated hex, and on from it as far as
    the extra movement points of unfilled results reach -- each path one ``check_advance`` accepts."""
    offer = state["advance"]
    units = [state["units"][unit_id] for unit_id in advancers(state)]
    if not units:
        return []
    enemy = board.occupied(state, board.other(units[0]["side"]))

    def step(frm: str, to: str) -> float | None:
        costs = [terrain.step_cost(state, unit, frm, to) for unit in units]
        if to in enemy or None in costs:
            return None
        return max(c for c in costs if c is not None)

    beyond = kernel_movement.reachable(
        board.map_of(state).grid, offer["hex"], float(offer["extra_mp"]), step
    )
    paths = [[offer["hex"]]] + [list(reach.path) for _, reach in sorted(beyond.items())]
    command = {"units": [u["id"] for u in units]}
    return [p for p in paths if _accepted(state, units[0]["side"], {**command, "path": p})]


def _accepted(state: State, side: str, command: dict[str, Any]) -> bool:
    try:
        judge_advance(state, side, command)
    except RuleViolation:
        return False
    return True
