"""The reinforcement phase (rule 4A, rule 12's tables, rule 9 reorganization) and the set-up
deployment of the 37 and 68 Div."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import Hex, Unit, Units
from service.rules.kernel.mapdata import MapData
from service.rules.merida import board, stacking
from service.rules.merida.commands import COMMANDS

REORGANIZE = 3  # rule 9


def arrival_hexes(state: State, unit_id: str) -> list[str]:
    hexes: list[str] = []
    for arrival in state["arrivals"]:
        if arrival["unit"] == unit_id:
            hexes = list(arrival["hexes"])
    return hexes


def placement_problem(state: State, unit: dict[str, Any], hex_: str) -> tuple[str, str] | None:
    if hex_ not in arrival_hexes(state, unit["id"]):
        return "12", f"{unit['name']} enters at {', '.join(arrival_hexes(state, unit['id']))}"
    if board.units_at(state, hex_, board.other(unit["side"])):
        return "6", f"{hex_} holds enemy units"
    if not stacking.fits(board.units_at(state, hex_) + [unit]):
        return "6", f"placing {unit['name']} would overstack {hex_}"
    return map_problem(board.map_of(state), unit["type"], hex_)


def map_problem(mapdata: MapData, kind: str, hex_: str) -> tuple[str, str] | None:
    """What the map itself forbids when a unit of type ``kind`` is placed in ``hex_``, whatever
    stands there (rule, message): the armored train moves "along the rail line" (rule 5), so it is
    placed on a rail hex.  The scenario check uses it too: a reinforcement none of whose hexes
    passes can never enter (:mod:`.scenario_checks`)."""
    if kind == "train" and not any(
        mapdata.has_hexside(hex_, n, "rail") for n in mapdata.grid.neighbours(hex_)
    ):
        return "5", "the armored train moves along the rail line: place it on a rail hex"
    return None


def legal_placements(state: State, unit: dict[str, Any]) -> list[str]:
    return [
        h for h in arrival_hexes(state, unit["id"]) if placement_problem(state, unit, h) is None
    ]


def pending_units(state: State, side: str) -> list[dict[str, Any]]:
    return [u for u in state["units"].values() if u["side"] == side and u["status"] == "pending"]


@COMMANDS.command(
    "place_reinforcement",
    phases=("reinforcements",),
    doc="Rule 4A and the Reinforcement table: a unit due now enters at one of its hexes.",
    unit=Unit(),
    hex=Hex(),
)
def place(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    unit = state["units"][command["unit"]]
    if unit["side"] != side or unit["status"] != "pending":
        raise RuleViolation(
            "12", f"{unit['name']} is not one of your reinforcements due now", "unit"
        )
    problem = placement_problem(state, unit, command["hex"])
    if problem is not None:
        raise RuleViolation(problem[0], problem[1], "hex")
    return [
        RulesEvent("ReinforcementPlaced", {"side": side, "unit": unit["id"], "hex": command["hex"]})
    ]


def removal_entry(state: State, unit_id: str) -> dict[str, Any]:
    for entry in state["removals"]:
        if entry["unit"] == unit_id and entry["turn"] == state["turn"]:
            return dict(entry)
    return {"unit": unit_id}


def substitutes(state: State, unit_id: str) -> list[str]:
    """Reinforcements table: an eliminated unit due for removal is replaced by one of equal or
    greater value."""
    due = state["units"][unit_id]
    return sorted(
        u["id"]
        for u in board.on_map(state, due["side"])
        if board.is_combat(u) and u["strength"] >= due["strength"]
    )


@COMMANDS.command(
    "remove",
    phases=("reinforcements",),
    doc="The Reinforcement table: a unit due for removal leaves the map (an eliminated one is "
    "replaced by one of equal or greater value, ``instead``).",
    unit=Unit(),
    instead=Unit(required=False),
)
def remove(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    due_id = command["unit"]
    due = state["units"][due_id]
    if due_id not in state["pending_removals"] or due["side"] != side:
        raise RuleViolation("12", f"{due['name']} is not due for removal", "unit")
    chosen = command.get("instead") or due_id
    if due["status"] == "map":
        if chosen != due_id:
            raise RuleViolation("12", f"{due['name']} is on the map: remove it", "instead")
    elif chosen not in substitutes(state, due_id):
        raise RuleViolation(
            "12",
            f"{due['name']} was eliminated: remove instead a unit of equal or greater value",
            "instead",
        )
    return [
        RulesEvent(
            "UnitRemoved",
            {"side": side, "unit": chosen, "due": due_id, "reason": "reinforcement table"},
        )
    ]


@COMMANDS.command(
    "keep",
    phases=("reinforcements",),
    doc="The Reinforcement table: the Republican 71 Div may stay on the map for 10 victory points.",
    unit=Unit(),
)
def keep(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    unit_id = command["unit"]
    name = state["units"][unit_id]["name"]
    entry = removal_entry(state, unit_id)
    if unit_id not in state["pending_removals"] or "may_keep_for_vp" not in entry:
        raise RuleViolation("12", f"{name} may not stay on the map", "unit")
    if state["units"][unit_id]["side"] != side:
        raise RuleViolation("12", f"{name} is not yours", "unit")
    return [
        RulesEvent("UnitKept", {"side": side, "unit": unit_id, "vp_cost": entry["may_keep_for_vp"]})
    ]


def reorganizable(state: State, side: str) -> dict[tuple[str, str], list[str]]:
    """Rule 9: eliminated units of ``side`` by (type, command) where three or more wait."""
    groups: dict[tuple[str, str], list[str]] = {}
    for unit in state["units"].values():
        if unit["side"] == side and unit["status"] == "eliminated" and board.is_combat(unit):
            groups.setdefault((unit["type"], unit["formation"]), []).append(unit["id"])
    return {key: sorted(ids) for key, ids in groups.items() if len(ids) >= REORGANIZE}


@COMMANDS.command(
    "reorganize",
    phases=("reinforcements",),
    doc="Rule 9: three eliminated units of one type and command; one returns with a leader.",
    units=Units(min=1),
    leader=Unit(),
    **{"return": Unit()},
)
def reorganize(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    ids = list(command["units"])
    units = [state["units"][i] for i in ids]
    if len(set(ids)) != REORGANIZE or any(
        u["side"] != side or u["status"] != "eliminated" for u in units
    ):
        raise RuleViolation("9", "reorganization takes 3 of your eliminated units", "units")
    if len({u["type"] for u in units}) != 1 or len({u["formation"] for u in units}) != 1:
        raise RuleViolation(
            "9", "the 3 units must be of the same type and the same command", "units"
        )
    if command["return"] not in ids:
        raise RuleViolation("9", "the returning unit must be one of the 3", "return")
    leader = state["units"][command["leader"]]
    if leader["type"] != "leader" or leader["side"] != side or leader["status"] != "map":
        raise RuleViolation("9", "the unit returns with one of your leaders on the map", "leader")
    if leader["hex"] in board.zoc_sources(state, board.other(side)):
        raise RuleViolation("9", "the leader must not be in an enemy ZOC", "leader")
    returning = state["units"][command["return"]]
    if not stacking.fits(board.units_at(state, leader["hex"]) + [returning]):
        raise RuleViolation("9", "the returning unit must not overstack the leader's hex", "leader")
    gone = [i for i in ids if i != command["return"]]
    return [
        RulesEvent(
            "UnitReorganized",
            {
                "side": side,
                "unit": command["return"],
                "leader": leader["id"],
                "hex": leader["hex"],
                "gone": gone,
            },
        )
    ]


@COMMANDS.command(
    "deploy",
    phases=("deployment",),
    doc="Set up table note: the 37 and 68 Div may deploy within one hex of their listed hex.",
    unit=Unit(),
    hex=Hex(),
)
def deploy(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """Set up table note: the 37 and 68 Div may deploy within one hex of their listed hex."""
    origins = state["deployment"]["units"]
    unit_id, hex_ = command["unit"], command["hex"]
    name = state["units"][unit_id]["name"]
    if unit_id not in origins or state["units"][unit_id]["side"] != side:
        raise RuleViolation("12", f"{name} may not redeploy", "unit")
    grid = board.map_of(state).grid
    if grid.distance(origins[unit_id], hex_) > state["deployment"]["within"]:
        raise RuleViolation("12", f"{name} deploys within one hex of {origins[unit_id]}", "hex")
    if board.units_at(state, hex_, board.other(side)):
        raise RuleViolation("6", f"{hex_} holds enemy units", "hex")
    return [RulesEvent("UnitDeployed", {"side": side, "unit": unit_id, "hex": hex_})]


def deployment_hexes(state: State, unit_id: str) -> list[str]:
    """The hexes within the deployment allowance of a unit's listed hex (set up table note)."""
    origin = state["deployment"]["units"][unit_id]
    return sorted(board.map_of(state).grid.within(origin, state["deployment"]["within"]))


def overstacked(state: State, side: str) -> list[str]:
    hexes = sorted({u["hex"] for u in board.on_map(state, side)})
    return [h for h in hexes if not stacking.fits(board.units_at(state, h, side))]


def unfinished(state: State, side: str) -> tuple[str, str] | None:
    """Why the reinforcement phase may not end yet (rule, message), else None."""
    for unit in pending_units(state, side):
        if legal_placements(state, unit):
            return "12", f"{unit['name']} must be placed"
    for unit_id in state["pending_removals"]:
        due = state["units"][unit_id]
        if due["side"] == side and (due["status"] == "map" or substitutes(state, unit_id)):
            return "12", f"{due['name']} must be removed"
    return None
