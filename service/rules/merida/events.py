"""``apply``: the pure application of each event this module emits.  No validation, no dice."""

from __future__ import annotations

from typing import Any

from service.rules.base import RulesEvent, State
from service.rules.handlers import EventHandlers

HANDLERS = EventHandlers("merida")
handles = HANDLERS.handles


def apply_event(state: State, event: RulesEvent) -> State:
    HANDLERS.apply(state, event)
    return state


def _place(state: State, unit_id: str, hex_: str | None) -> None:
    unit = state["units"][unit_id]
    unit["hex"] = hex_
    unit["status"] = "map" if hex_ is not None else unit["status"]


def _remove(state: State, unit_ids: list[str], status: str) -> None:
    for unit_id in unit_ids:
        unit = state["units"][unit_id]
        unit["status"] = status
        unit["hex"] = None


@handles("PhaseBegan")
def _phase_began(state: State, data: dict[str, Any]) -> None:
    state["turn"], state["side"], state["phase"] = data["turn"], data["side"], data["phase"]
    state["advance"] = None
    if data["phase"] == "reinforcements":
        for unit in state["units"].values():
            unit.update(moved=False, attacked=False, defended=False)
            if unit["side"] == data["side"]:
                unit["strategic"] = False  # its effect lasts for the next player's phase (rule 5)
        state["rail_used"] = False
        state["overruns"] = []
        state["air_allocations"] = []
        if data["side"] == "nationalist":
            for side_air in state["air"].values():
                side_air["used"] = {}
    if data["phase"] == "combat":
        state["must_attack"] = list(data.get("must_attack", []))
        state["must_be_attacked"] = list(data.get("must_be_attacked", []))


@handles("ReinforcementsDue")
def _due(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        state["units"][unit_id]["status"] = "pending"


@handles("RemovalsDue")
def _removals_due(state: State, data: dict[str, Any]) -> None:
    state["pending_removals"].extend(data["units"])


@handles("ReinforcementPlaced")
def _placed(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@handles("UnitDeployed")
def _deployed(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@handles("UnitRemoved")
def _removed(state: State, data: dict[str, Any]) -> None:
    _remove(state, [data["unit"]], "removed")
    state["pending_removals"].remove(data["due"])
    if data["unit"] != data["due"]:
        state.setdefault("removed_for", {})[data["due"]] = data["unit"]


@handles("UnitKept")
def _kept(state: State, data: dict[str, Any]) -> None:
    state["pending_removals"].remove(data["unit"])
    side = state["units"][data["unit"]]["side"]
    state["vp_adjustments"][side] -= data["vp_cost"]


@handles("UnitReturned")
def _returned(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])


@handles("LeaderReplaced")
def _leader_replaced(state: State, data: dict[str, Any]) -> None:
    _remove(state, [data["removed"]], "removed")


@handles("UnitReorganized")
def _reorganized(state: State, data: dict[str, Any]) -> None:
    _place(state, data["unit"], data["hex"])
    _remove(state, data["gone"], "gone")


@handles("StatusChecked")
def _status(state: State, data: dict[str, Any]) -> None:
    for unit in state["units"].values():
        if unit["side"] == data["side"]:
            unit["out_of_supply"] = unit["id"] in data["out_of_supply"]
            unit["out_of_command"] = unit["id"] in data["out_of_command"]


@handles("CommandChecked")
def _command(state: State, data: dict[str, Any]) -> None:
    for unit in state["units"].values():
        if unit["side"] == data["side"]:
            unit["out_of_command"] = unit["id"] in data["out_of_command"]


def _control(state: State, side: str, hexes: list[str]) -> None:
    for hex_ in hexes:
        state["control"][hex_] = side


@handles("UnitsMoved")
def _moved(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        unit = state["units"][unit_id]
        unit["hex"] = data["path"][-1]
        unit["moved"] = True
        if data["mode"] in ("strategic", "rail"):
            unit["strategic"] = True
    if data["mode"] == "rail" and data.get("counts_for_rail", True):
        state["rail_used"] = True
    _control(state, data["side"], data["path"][1:])


@handles("OverrunDeclared")
def _overrun(state: State, data: dict[str, Any]) -> None:
    state["overruns"].append({"hex": data["hex"], "attackers": list(data["attackers"])})


@handles("UnitsRetreated")
def _retreated(state: State, data: dict[str, Any]) -> None:
    for move in data["retreats"]:
        for unit_id in move["units"]:
            state["units"][unit_id]["hex"] = move["path"][-1]
    for displaced in data.get("displaced", []):
        for unit_id in displaced["units"]:
            state["units"][unit_id]["hex"] = displaced["path"][-1]
    _remove(state, data.get("eliminated", []), "eliminated")


@handles("AirAllocated")
def _air(state: State, data: dict[str, Any]) -> None:
    used = state["air"][data["side"]]["used"]
    for kind in data["air"]:
        used[kind] = used.get(kind, 0) + 1
    state["air_allocations"].append(
        {"side": data["side"], "hex": data["hex"], "air": list(data["air"]), "role": data["role"]}
    )


@handles("CombatResolved")
def _combat(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["attackers"]:
        state["units"][unit_id]["attacked"] = True
    for unit_id in data["defenders"]:
        state["units"][unit_id]["defended"] = True
    for loss in data.get("air_losses", []):
        if loss["outcome"] == "shot_down":
            shot = state["air"][loss["side"]]["shot_down"]
            shot[loss["type"]] = shot.get(loss["type"], 0) + 1
    _remove(state, data["eliminated"], "eliminated")
    for move in data["retreats"]:
        for unit_id in move["units"]:
            state["units"][unit_id]["hex"] = move["path"][-1]
    for displaced in data.get("displaced", []):
        for unit_id in displaced["units"]:
            state["units"][unit_id]["hex"] = displaced["path"][-1]
    state["advance"] = data.get("advance")


@handles("UnitsAdvanced")
def _advanced(state: State, data: dict[str, Any]) -> None:
    for unit_id in data["units"]:
        state["units"][unit_id]["hex"] = data["path"][-1]
    state["advance"] = None
    _control(state, data["side"], data["path"])


@handles("GameEnded")
def _ended(state: State, data: dict[str, Any]) -> None:
    state["phase"] = "over"
    state["result"] = dict(data)
