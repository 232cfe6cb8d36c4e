"""Zones of control: the hexes into which a side's units project a ZOC.

The module supplies ``exerts(unit)`` (does this unit have a ZOC at all?) and ``projects(frm, to)``
(does a ZOC reach from ``frm`` into the adjacent hex ``to``?  e.g. not across a river hexside, not
into a mountain).  :func:`blocked_across` and :func:`blocked_into` build common ``projects``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import TypeVar

from service.rules.kernel.grid import HexGrid
from service.rules.kernel.mapdata import MapData

U = TypeVar("U")
Projects = Callable[[str, str], bool]


def _always(_frm: str, _to: str) -> bool:
    return True


def zoc_sources(
    grid: HexGrid,
    units: Iterable[tuple[str, U]],
    exerts: Callable[[U], bool] = lambda _unit: True,
    projects: Projects = _always,
) -> dict[str, set[str]]:
    """Each hex in a ZOC -> the hexes whose units project it there.  ``units`` are
    ``(hex, unit)`` pairs of the side exerting the ZOC."""
    found: dict[str, set[str]] = {}
    sources = {hex_ for hex_, unit in units if exerts(unit)}
    for source in sources:
        for target in grid.neighbours(source):
            if projects(source, target):
                found.setdefault(target, set()).add(source)
    return found


def zoc_hexes(
    grid: HexGrid,
    units: Iterable[tuple[str, U]],
    exerts: Callable[[U], bool] = lambda _unit: True,
    projects: Projects = _always,
) -> set[str]:
    """The hexes in the ZOC of ``units``."""
    return set(zoc_sources(grid, units, exerts, projects))


def blocked_across(mapdata: MapData, features: Collection[str]) -> Projects:
    """A ``projects`` predicate: no ZOC across a hexside with any of ``features``."""
    wanted = frozenset(features)

    def projects(frm: str, to: str) -> bool:
        return not (mapdata.hexside_features(frm, to) & wanted)

    return projects


def blocked_into(mapdata: MapData, terrains: Collection[str]) -> Projects:
    """A ``projects`` predicate: no ZOC into hexes of any of ``terrains``."""
    wanted = frozenset(terrains)

    def projects(_frm: str, to: str) -> bool:
        return mapdata.terrain(to) not in wanted

    return projects


def all_of(*predicates: Projects) -> Projects:
    """A ``projects`` predicate true when every one of ``predicates`` is."""

    def projects(frm: str, to: str) -> bool:
        return all(predicate(frm, to) for predicate in predicates)

    return projects
