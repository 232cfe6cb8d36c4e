"""Rule 8 retreats (and the 2-hex retreat of units out of command, rule 10): never into or through
an enemy ZOC or prohibited terrain (eliminated instead), within stacking limits, displacing friendly
units rather than overstacking."""

from __future__ import annotations

from typing import Any

from service.rules.base import State
from service.rules.kernel import retreat as kernel_retreat
from service.rules.merida import board, stacking, terrain


def _can_enter(state: State, group: list[dict[str, Any]], zoc: set[str], enemy: set[str]):
    def can_enter(frm: str, to: str) -> bool:
        if to in zoc or to in enemy:
            return False
        return all(terrain.prohibited(state, unit, frm, to) is None for unit in group)

    return can_enter


def _others_at(state: State, hex_: str, group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = {u["id"] for u in group}
    return [u for u in board.units_at(state, hex_) if u["id"] not in ids]


def retreat_group(
    state: State, group: list[dict[str, Any]], length: int, towards: list[str] | None = None
) -> dict[str, Any]:
    """The retreat of a stack: ``{"units", "path"}`` with an optional ``displaced`` move, or
    ``{"units", "eliminated": True, "reason"}``.  The retreating player's choice is made by a fixed
    preference: away from the enemy (or, for units out of command, ``towards`` their leaders)."""
    start = group[0]["hex"]
    side = group[0]["side"]
    enemy = board.other(side)
    zoc = set(board.zoc_sources(state, enemy))
    enemy_hexes = board.occupied(state, enemy)
    grid = board.map_of(state).grid
    can_enter = _can_enter(state, group, zoc, enemy_hexes)
    paths = kernel_retreat.retreat_paths(grid, start, length, can_enter)
    ids = [u["id"] for u in group]
    if not paths:
        return {
            "units": ids,
            "eliminated": True,
            "reason": "no retreat free of enemy ZOC and prohibited terrain",
        }

    def preference(path: tuple[str, ...]) -> tuple[Any, ...]:
        end = path[-1]
        if towards:
            return (grid.distance_to_nearest(end, towards) or 0, path)
        return (-(grid.distance_to_nearest(end, enemy_hexes) or 0), path)

    fitting = [p for p in paths if stacking.fits(_others_at(state, p[-1], group) + group)]
    path = kernel_retreat.choose_retreat(fitting, preference)
    if path is not None:
        return {"units": ids, "path": list(path)}
    if stacking.fits(group):
        for path in sorted(paths, key=preference):
            displaced = _displace(state, path[-1], group, zoc, enemy_hexes)
            if displaced is not None:
                return {"units": ids, "path": list(path), "displaced": displaced}
    return {"units": ids, "eliminated": True, "reason": "no retreat within stacking limits"}


def _displace(
    state: State, hex_: str, group: list[dict[str, Any]], zoc: set[str], enemy: set[str]
) -> dict[str, Any] | None:
    """Rule 8: move the units already in ``hex_`` one hex (not into an enemy ZOC, nor into the
    retreating stack's hex) to make room."""
    present = _others_at(state, hex_, group)
    enter = _can_enter(state, present, zoc, enemy | {group[0]["hex"]})
    room = kernel_retreat.retreat_paths(
        board.map_of(state).grid,
        hex_,
        1,
        enter,
        can_end=lambda near: stacking.fits(_others_at(state, near, present) + present),
    )
    if not room:
        return None
    return {"units": [u["id"] for u in present], "path": list(room[0])}
