"""What each side may see: hidden event chits (10.2), replacements hidden until both are placed
(13.2), and with limited intelligence (19.2) only the top unit of an enemy stack, except the
units of a combat once it is declared."""

from __future__ import annotations

import copy
from typing import Any

from service.rules.backbone.units import State, on_map
from service.rules.base import RulesEvent, RulesSystem

HIDDEN = "hidden"


def hidden_units(state: State, side: str | None) -> set[str]:
    """Enemy units ``side`` may not see under limited intelligence (19.2): all but the top unit of
    each enemy stack, unless they fight in the combat now declared."""
    if not state["options"].get("limited_intelligence"):
        return set()
    revealed: set[str] = set()
    combat = state.get("combat")
    if combat:
        revealed = set(combat["attackers"]) | set(combat["defenders"])
    stacks: dict[str, list[dict[str, Any]]] = {}
    for u in on_map(state):
        if side is None or u["side"] != side:
            stacks.setdefault(u["hex"], []).append(u)
    hidden: set[str] = set()
    for units in stacks.values():
        by_side: dict[str, list[dict[str, Any]]] = {}
        for u in units:
            by_side.setdefault(u["side"], []).append(u)
        for group in by_side.values():
            top = max(group, key=lambda u: u["seq"])
            hidden |= {u["id"] for u in group if u is not top and u["id"] not in revealed}
    return hidden


def _copy(state: State) -> State:
    """A deep copy that shares the map: the rules never change it, it is most of the state, and
    sharing it keeps the kernel's map cache (keyed by the map object) warm for the copy."""
    seen = copy.deepcopy({**state, "map": None})
    seen["map"] = state["map"]
    return seen


def view(state: State, side: str | None) -> State:
    seen = _copy(state)
    events = seen["events"]
    for other in ("allied", "spanish"):
        if other != side:
            events["hands"][other] = [HIDDEN] * len(events["hands"][other])
            events["cups"][other] = [HIDDEN] * len(events["cups"][other])
    for other in list(seen["replacements"]):
        if other != side:
            seen["replacements"][other] = HIDDEN
    hidden = hidden_units(state, side)
    for uid in hidden:
        del seen["units"][uid]
    for key in ("moved", "attacked_units", "supply_links", "exploiters"):
        seen[key] = [uid for uid in seen[key] if uid not in hidden]
    seen["hq_used"] = {uid: roles for uid, roles in seen["hq_used"].items() if uid not in hidden}
    if hidden:
        seen["hidden_stacks"] = True
    return seen


_UNIT_LISTS = (
    "units",
    "out_of_supply",
    "linked_to_port_lyautey",
    "survivors",
    "eliminated",
    "extra_losses",
    "exploiters",
)


def event_view(
    system: RulesSystem, event: RulesEvent, before: State, side: str | None
) -> RulesEvent:
    data = copy.deepcopy(event.data)
    if event.type == "EventChitDrawn" and data["side"] != side:
        data["chit"] = HIDDEN
        data["die"] = HIDDEN
        data["permanent"] = HIDDEN if not data.get("permanent") else True
        if data["permanent"] is True:
            data["chit"] = event.data["chit"]  # a chit in force from its draw is public
    if event.type == "ReplacementsChosen" and data["side"] != side:
        data["steps"] = HIDDEN
    if not before["options"].get("limited_intelligence"):
        return RulesEvent(event.type, data)
    after = system.apply(_copy(before), RulesEvent(event.type, copy.deepcopy(event.data)))
    unseen = hidden_units(before, side) & hidden_units(after, side)
    if event.type == "UnitMoved" and data["unit"] in unseen:
        return RulesEvent(event.type, {"unit": HIDDEN, "hidden": True})
    for key in _UNIT_LISTS:
        if isinstance(data.get(key), list):
            data[key] = [
                x
                for x in data[key]
                if not (isinstance(x, str) and x in unseen)
                and not (isinstance(x, dict) and x.get("unit") in unseen)
            ]
    return RulesEvent(event.type, data)
