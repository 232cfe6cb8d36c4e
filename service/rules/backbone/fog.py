"""What each side may see: hidden event chits (10.2), replacements hidden until both are placed
(13.2), and with limited intelligence (19.2) only the top unit of an enemy stack, except the
units of a combat once it is declared.  The ``visible`` functions here are declared on the events
(:mod:`.apply`): what a side may see of each."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from service.rules.backbone.declared import EVENTS, SIDES
from service.rules.backbone.units import State, on_map
from service.rules.base import RulesEvent

HIDDEN = "hidden"
Visible = Callable[[dict[str, Any], State, "str | None"], dict[str, Any]]


def limited(state: State) -> bool:
    return bool(state["options"].get("limited_intelligence"))


def hidden_units(state: State, side: str | None) -> set[str]:
    """Enemy units ``side`` may not see under limited intelligence (19.2): all but the top unit of
    each enemy stack, unless they fight in the combat now declared."""
    if not limited(state):
        return set()
    combat = state.get("combat")
    revealed = set(combat["attackers"]) | set(combat["defenders"]) if combat else set()
    stacks: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for u in on_map(state):
        if u["side"] != side:
            stacks.setdefault((u["hex"], u["side"]), []).append(u)
    hidden: set[str] = set()
    for group in stacks.values():
        top = max(group, key=lambda u: u["seq"])
        hidden |= {u["id"] for u in group if u is not top}
    return hidden - revealed


def copy_state(state: State) -> State:
    """A deep copy that shares the map: the rules never change it, it is most of the state, and
    sharing it keeps the kernel's map cache (keyed by the map object) warm for the copy."""
    seen = copy.deepcopy({**state, "map": None})
    seen["map"] = state["map"]
    return seen


def view(state: State, side: str | None) -> State:
    seen = copy_state(state)
    events = seen["events"]
    for other in SIDES:
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


# -- what a side sees of an event ------------------------------------------------------------------
def _without(value: Any, unseen: set[str]) -> Any:
    """``value`` less every mention of an unseen unit: ids in lists, ``{"unit": id}`` entries,
    dict keys (deployment positions); an unseen id as a value reads ``hidden``."""
    if isinstance(value, dict):
        if value.get("unit") in unseen:
            return _GONE
        return {k: _without(v, unseen) for k, v in value.items() if k not in unseen}
    if isinstance(value, list):
        kept = (_without(v, unseen) for v in value)
        return [v for v in kept if v is not _GONE and v != HIDDEN]
    return HIDDEN if isinstance(value, str) and value in unseen else value


_GONE = object()


def _after(type_: str, data: dict[str, Any], before: State) -> State:
    return EVENTS.apply(copy_state(before), RulesEvent(type_, copy.deepcopy(data)))


def units_visible(type_: str, *, placed: bool = False) -> Visible:
    """What a side sees of an event naming units under limited intelligence (19.2): no mention of a
    unit hidden from it before and after the event -- or, for a placement (``placed``: a deployment
    puts units where the other side has not seen them), of a unit hidden after it."""

    def visible(data: dict[str, Any], before: State, side: str | None) -> dict[str, Any]:
        if not limited(before):
            return data
        after = hidden_units(_after(type_, data, before), side)
        unseen = after if placed else hidden_units(before, side) & after
        if type_ == "UnitMoved" and data["unit"] in unseen:
            return {"unit": HIDDEN, "hidden": True}
        out: dict[str, Any] = _without(data, unseen)
        return out

    return visible


def chit_drawn_visible(data: dict[str, Any], before: State, side: str | None) -> dict[str, Any]:
    """10.2: a chit is drawn hidden, unless it is in force from its draw (then it is public)."""
    if data["side"] == side:
        return data
    permanent = bool(data.get("permanent"))
    return {
        **data,
        "chit": data["chit"] if permanent else HIDDEN,
        "die": HIDDEN,
        "permanent": True if permanent else HIDDEN,
    }


def replacements_chosen_visible(
    data: dict[str, Any], before: State, side: str | None
) -> dict[str, Any]:
    """13.2: replacements stay hidden until both sides have chosen."""
    return data if data["side"] == side else {**data, "steps": HIDDEN}
