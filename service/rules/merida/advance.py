"""Rule 8 advances after combat: into the vacated hex first at no cost, ignoring enemy ZOCs, with 2
extra movement points for each result the defender could not fill."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import RulesEvent, RuleViolation, State
from service.rules.merida import board, stacking, terrain


def check_advance(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
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
    if spent > offer["extra_mp"]:
        raise RuleViolation(
            "8",
            f"the advance beyond the vacated hex costs {spent:g} MP; unfilled results give {offer['extra_mp']}",
            "path",
        )
    present = [u for u in board.units_at(state, path[-1]) if u["id"] not in ids]
    if not stacking.fits(present + units):
        raise RuleViolation("6", f"advancing into {path[-1]} would overstack it", "path")
    return [RulesEvent("UnitsAdvanced", {"side": side, "units": ids, "path": path, "cost": spent})]
