"""Retreats: the legal retreat paths of a given length, and a choice among them.

The module supplies ``can_enter(frm, to)`` (not into enemy units or enemy ZOC, not across
prohibited hexsides ...) and ``can_end(hex)`` (stacking ...).  With ``away_from`` (the attackers'
hexes) each step must increase the distance to the nearest of them.  A path never enters the same
hex twice, nor its start.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from service.rules.kernel.grid import HexGrid

Path = tuple[str, ...]


def _always(_hex: str) -> bool:
    return True


def retreat_paths(
    grid: HexGrid,
    start: str,
    length: int,
    can_enter: Callable[[str, str], bool],
    *,
    can_end: Callable[[str], bool] = _always,
    away_from: Collection[str] = (),
) -> list[Path]:
    """Every legal retreat path of exactly ``length`` hexes (start first), in a stable order."""
    if length <= 0:
        return [(start,)]
    away = tuple(away_from)
    found: list[Path] = []

    def extend(path: Path, distance: int | None) -> None:
        here = path[-1]
        for there in grid.neighbours(here):
            if there in path or not can_enter(here, there):
                continue
            further = grid.distance_to_nearest(there, away) if away else None
            if distance is not None and further is not None and further <= distance:
                continue
            step = path + (there,)
            if len(step) - 1 == length:
                if can_end(there):
                    found.append(step)
            else:
                extend(step, further)

    extend((start,), grid.distance_to_nearest(start, away) if away else None)
    return found


def longest_retreats(
    grid: HexGrid,
    start: str,
    length: int,
    can_enter: Callable[[str, str], bool],
    *,
    can_end: Callable[[str], bool] = _always,
    away_from: Collection[str] = (),
) -> tuple[int, list[Path]]:
    """The paths of the greatest length ``<= length`` that exist, and that length (0 and
    ``[(start,)]`` when the unit cannot retreat at all), for rules that punish a short retreat."""
    for n in range(length, 0, -1):
        paths = retreat_paths(grid, start, n, can_enter, can_end=can_end, away_from=away_from)
        if paths:
            return n, paths
    return 0, [(start,)]


def choose_retreat(
    paths: Sequence[Path], preference: Callable[[Path], Any] | None = None
) -> Path | None:
    """The path with the lowest ``preference`` key (ties: the first in order), or ``None``.
    Without a preference, the first path."""
    if not paths:
        return None
    if preference is None:
        return paths[0]
    return min(paths, key=preference)
