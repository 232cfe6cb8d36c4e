"""The board as the rules see it: the map, where the units are, zones of control (rule 7), and the
lines of command and supply (rule 10)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from service.rules.base import State
from service.rules.hexgame import HexNames
from service.rules.kernel import supply as kernel_supply
from service.rules.kernel import zoc as kernel_zoc
from service.rules.kernel.mapdata import MapData, cached_map

SIDES = ("nationalist", "republican")
COMBAT_TYPES = ("infantry", "cavalry", "artillery", "armor", "guerrilla", "train")
COMMAND_RANGE = 7  # rule 10


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def acting_side(state: State) -> str | None:
    """Rule 4: the phasing player acts, except in phase F, where the non-phasing player places his
    defending air units, and while a decision the rules leave to a unit's owner is pending (rules
    8 and 10: losses and retreats); no one acts once the game is over."""
    if state["phase"] == "over":
        return None
    if state.get("pending"):  # issue 19: the owner of the units decides (decisions.py)
        return str(state["pending"][0]["side"])
    if state["phase"] == "air_defense":
        return other(state["side"])
    return str(state["side"])


def map_of(state: State) -> MapData:
    """The state's map (the rules never change it), built once (see kernel ``cached_map``)."""
    return cached_map(state["map"])


def is_combat(unit: dict[str, Any]) -> bool:
    return unit["type"] in COMBAT_TYPES


def on_map(state: State, side: str | None = None) -> list[dict[str, Any]]:
    return [
        u
        for u in state["units"].values()
        if u["status"] == "map" and (side is None or u["side"] == side)
    ]


def units_at(state: State, hex_: str, side: str | None = None) -> list[dict[str, Any]]:
    return [u for u in on_map(state, side) if u["hex"] == hex_]


def occupied(state: State, side: str) -> set[str]:
    return {u["hex"] for u in on_map(state, side)}


def zoc_sources(state: State, side: str, ignore: Iterable[str] = ()) -> dict[str, set[str]]:
    """Rule 7: every hex in the zone of control of ``side``'s combat units (the six adjacent hexes),
    mapped to the hexes of the stacks exerting it.  Leaders exert none unless the scenario option
    ``leader_zoc`` says so (conflict entry ``merida:conflict-leader-zoc``).  Stacks in ``ignore`` (overrun, rule 8) exert
    none."""
    ignored = set(ignore)
    leaders = state["options"].get("leader_zoc", "none") == "exerted"
    return kernel_zoc.zoc_sources(
        map_of(state).grid,
        [(u["hex"], u) for u in on_map(state, side) if u["hex"] not in ignored],
        exerts=exerts_zoc_with_leaders if leaders else is_combat,
    )


def exerts_zoc_with_leaders(unit: dict[str, Any]) -> bool:
    """Scenario option ``leader_zoc = "exerted"``: rule 7 literally, every unit on the map exerts a
    ZOC, leaders too (see the conflict entry ``merida:conflict-leader-zoc``)."""
    return is_combat(unit) or unit["type"] == "leader"


def _free_hexes(state: State, side: str) -> set[str]:
    """Hexes a line of ``side`` may pass: no enemy unit and no enemy ZOC (rule 10)."""
    enemy = other(side)
    blocked = occupied(state, enemy) | set(zoc_sources(state, enemy))
    return set(map_of(state).grid.labels()) - blocked


def supplied_hexes(state: State, side: str) -> set[str]:
    """Rule 10: the hexes from which a unit of ``side`` traces a line of any length to its supply
    source.  The line's hexes (source included) must be free of enemy units and ZOCs; the unit's own
    hex is its start, not part of the line."""
    mapdata = map_of(state)
    free = _free_hexes(state, side)
    sources = [h for h in mapdata.supply_sources.get(side, ()) if h in free]
    return set(kernel_supply.supplied_hexes(mapdata.grid, sources, lambda frm, _to: frm in free))


def commanded_hexes(state: State, side: str) -> set[str]:
    """Rule 10: the hexes within a line of up to 7 hexes of a friendly leader, the hexes between
    free of enemy units and ZOCs, through any terrain."""
    free = _free_hexes(state, side)
    leaders = {u["hex"] for u in on_map(state, side) if u["type"] == "leader"}
    reached = kernel_supply.supplied_hexes(
        map_of(state).grid,
        sorted(leaders),
        lambda frm, _to: frm in free or frm in leaders,
        max_length=COMMAND_RANGE,
    )
    return set(reached)


def needs_lines(unit: dict[str, Any]) -> bool:
    """Rule 2: guerrillas need no line of command or communication; leaders command themselves."""
    return unit["type"] not in ("guerrilla", "leader")


def status_of(state: State, side: str) -> tuple[list[str], list[str]]:
    """The ids of ``side``'s units on the map out of supply and out of command (rule 10)."""
    supplied = supplied_hexes(state, side)
    commanded = commanded_hexes(state, side)
    out_supply, out_command = [], []
    for unit in on_map(state, side):
        if not needs_lines(unit):
            continue
        if unit["hex"] not in supplied:
            out_supply.append(unit["id"])
        if unit["hex"] not in commanded:
            out_command.append(unit["id"])
    return sorted(out_supply), sorted(out_command)


def controller(state: State, hex_: str) -> str | None:
    """Who controls a hex: the last side to enter it, else the scenario's initial control."""
    if hex_ in state["control"]:
        return str(state["control"][hex_])
    col, _row = map_of(state).grid.coord(hex_)
    for side, (first, last) in state["initial_control"].items():
        if first <= col <= last:
            return str(side)
    return None


def town_or_city(state: State, hex_: str) -> str | None:
    features = map_of(state).hex_features(hex_)
    for kind in ("city", "town"):
        if kind in features:
            return kind
    return None


_HEX_NAMES: weakref.WeakKeyDictionary[MapData, dict[str, str]] = weakref.WeakKeyDictionary()


class PlaceNames(HexNames):
    """Printed names, each hex's looked up once per map (a listing names hundreds of destinations,
    and the map never changes)."""

    def __init__(self, state: State | None) -> None:
        super().__init__(state)
        self._hexes: dict[str, str] = {}
        if state is not None and "map" in state:
            self._hexes = _HEX_NAMES.setdefault(map_of(state), {})

    def hex(self, hex_id: str) -> str:
        if hex_id not in self._hexes:
            self._hexes[hex_id] = super().hex(hex_id)
        return self._hexes[hex_id]


def hex_name(state: State, hex_: str) -> str:
    """A hex as people read it: the place standing there, else its label (``Merida (J7)``)."""
    return HexNames(state).hex(hex_)
