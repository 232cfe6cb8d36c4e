"""The table as the rules see it: areas and their effects (cover, trench, fortification, defences,
bad going, road), where units and their figures stand, contact, and what a unit is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.rules.barcelona import data
from service.rules.barcelona import geometry as geo
from service.rules.base import State

Unit = dict[str, Any]
SOFT_KINDS = ("foot", "cavalry", "team")  # units of figures (they have morale)


def other(state: State, side: str) -> str:
    a, b = state["sides"]
    return b if side == a else a


def unit(state: State, uid: str) -> Unit:
    return state["units"][uid]  # type: ignore[no-any-return]


def on_table(state: State, side: str | None = None) -> list[Unit]:
    return [
        u
        for u in state["units"].values()
        if u["status"] == "table" and (side is None or u["side"] == side)
    ]


def effects_at(state: State, point: Sequence[float]) -> set[str]:
    found: set[str] = set()
    for area in state["areas"]:
        if geo.inside(point, geo.polygon(area)):
            found.update(area["effects"])
    return found


def where(u: Unit) -> tuple[float, float]:
    return (float(u["x"]), float(u["y"]))


def in_cover(state: State, u: Unit) -> bool:
    return "cover" in effects_at(state, where(u))


def in_works(state: State, u: Unit) -> bool:
    """In a trench or fortifications (-2 to hit)."""
    return bool({"trench", "fortification"} & effects_at(state, where(u)))


def behind_defences(state: State, u: Unit) -> bool:
    """Defences other than a trench (the close-combat -1 to cross them)."""
    return bool({"defences", "fortification"} & effects_at(state, where(u)))


def in_open(state: State, u: Unit) -> bool:
    return not ({"cover", "trench", "fortification", "defences"} & effects_at(state, where(u)))


def figures_of(u: Unit, figures: int | None = None) -> list[geo.Point]:
    return geo.figure_positions(u, data.house("figure_spacing"), figures)


def gap(a: Unit, b: Unit) -> float:
    """Distance between the nearest figures of two units."""
    return geo.nearest(figures_of(a), figures_of(b))


def in_contact(a: Unit, b: Unit) -> bool:
    return gap(a, b) <= data.house("contact_distance") + 1e-9


def contacts(state: State, u: Unit) -> list[str]:
    return sorted(e["id"] for e in on_table(state, other(state, u["side"])) if in_contact(u, e))


def nearest_enemy_distance(state: State, u: Unit, at: Sequence[float] | None = None) -> float:
    here = at if at is not None else where(u)
    enemies = on_table(state, other(state, u["side"]))
    return min((geo.dist(here, where(e)) for e in enemies), default=float("inf"))


def is_afv(u: Unit) -> bool:
    return u["kind"] == "vehicle" and u.get("class") in ("A", "B")


def is_vehicle(u: Unit) -> bool:
    return u["kind"] == "vehicle"


def has_figures(u: Unit) -> bool:
    """Units of figures: they test morale and fight close combats."""
    return u["kind"] in SOFT_KINDS


def is_foot(u: Unit) -> bool:
    return u["kind"] in ("foot", "team")


def movement_class(u: Unit) -> str:
    if u["kind"] == "cavalry":
        return "Cavalry"
    if u["kind"] == "aircraft":
        return "Aircraft"
    if u["kind"] == "vehicle":
        return "Tanks" if is_afv(u) else "Wheeled Vehicles"
    if u["kind"] == "team":
        weapon = u["weapons"][0]
        if weapon == "Field Gun":
            return "Field Guns"
        if weapon in ("Mtn/Inf/AFV Gun", "AT Gun"):
            return "Mountain/AT guns"
        if weapon in ("HMG", "Mortar", "Lt Mortar"):
            return "Mortar/HMG"
    return "Infantry"


class UnitRefs:
    """Command references on a table: a unit must be a unit of the game; there are no hexes."""

    def unit(self, state: State, unit_id: str) -> bool:
        return unit_id in state.get("units", {})

    def hex(self, state: State, hex_id: str) -> bool:
        return False
