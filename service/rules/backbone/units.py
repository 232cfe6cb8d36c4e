"""Units in the state: kinds and special abilities (4, 9.2), positions and stacks."""

from __future__ import annotations

from typing import Any

State = dict[str, Any]
Unit = dict[str, Any]

#: tags each counter type carries (4, 9.2, 15.2)
TYPE_TAGS: dict[str, tuple[str, ...]] = {
    "hq": ("hq",),
    "armor": ("armor",),
    "tank_destroyer": ("armor",),
    "legion": ("legion",),
    "regulars": ("moors", "gfri"),
    "mehalas": ("moors", "mehalas"),
    "commando": ("infiltrate",),
    "ranger_para": ("infiltrate",),
    "engineer": ("engineer",),
    "rif": ("infiltrate", "no_zoc", "always_supplied"),
}
#: the German regiments whose efficiency the Spanish player may count as 3 or 2 (16.3 note)
EFFICIENCY_OPTIONS: dict[str, list[int]] = {"fallschirmjager": [3, 2], "gebirgsjager": [3, 2]}
ON_MAP = "map"


def tags(unit: Unit) -> set[str]:
    return set(TYPE_TAGS.get(unit["type"], ()))


def is_hq(unit: Unit) -> bool:
    return unit["type"] == "hq"


def is_armor(unit: Unit) -> bool:
    return "armor" in tags(unit)


def enemy(side: str) -> str:
    return "spanish" if side == "allied" else "allied"


def on_map(state: State, side: str | None = None) -> list[Unit]:
    return [
        u
        for u in state["units"].values()
        if u["status"] == ON_MAP and (side is None or u["side"] == side)
    ]


def at(state: State, hex_: str) -> list[Unit]:
    """The units in a hex, top of the stack first (the last placed is on top)."""
    found = [u for u in on_map(state) if u["hex"] == hex_]
    return sorted(found, key=lambda u: -u["seq"])


def occupied(state: State, side: str) -> set[str]:
    return {u["hex"] for u in on_map(state, side)}


def unit(state: State, uid: Any) -> Unit | None:
    return state["units"].get(uid) if isinstance(uid, str) else None


def place(state: State, u: Unit, hex_: str) -> None:
    """Put a unit in a hex, on top of the stack."""
    state["seq"] += 1
    u["hex"] = hex_
    u["seq"] = state["seq"]
    u["status"] = ON_MAP


def eliminate(state: State, u: Unit) -> None:
    u["steps"] = 0
    u["hex"] = None
    u["status"] = "eliminated"
    u["eliminated_turn"] = state["turn"]


def combat_view(u: Unit, **extra: Any) -> dict[str, Any]:
    """The unit as a combat situation needs it (see combat.evaluate)."""
    view: dict[str, Any] = {
        "id": u["id"],
        "attack": 0 if is_hq(u) else u["attack"],
        "defense": u["defense"],
        "efficiency": u["efficiency"],
        "steps": u["steps"],
        "nation": u["nation"],
        "tags": sorted(tags(u)),
        "out_of_supply": not u.get("supplied", True),
    }
    if u["type"] in EFFICIENCY_OPTIONS:
        view["efficiency_options"] = EFFICIENCY_OPTIONS[u["type"]]
    view.update(extra)
    return view
