"""Supply and command lines: breadth-first tracing over the grid.

``can_enter(frm, to)`` says whether the line may pass from ``frm`` into ``to``; the module builds it,
usually with :func:`standard_line`: not into hexes of enemy units, not into enemy ZOC unless a
friendly unit is there.  ``max_length`` bounds the line in hexes (``None``: any length).  The hex the
line starts from is never judged (a unit in an enemy ZOC may still trace out of it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable

from service.rules.kernel.grid import HexGrid

CanEnter = Callable[[str, str], bool]


def standard_line(
    enemy_units: Collection[str],
    enemy_zoc: Collection[str],
    friendly_units: Collection[str] = (),
    extra: CanEnter | None = None,
) -> CanEnter:
    """Blocked by enemy-occupied hexes and by enemy ZOC, except where a friendly unit negates it.
    ``extra`` adds the module's own test (terrain, hexsides ...)."""

    def can_enter(frm: str, to: str) -> bool:
        if to in enemy_units:
            return False
        if to in enemy_zoc and to not in friendly_units:
            return False
        return extra is None or extra(frm, to)

    return can_enter


def trace(
    grid: HexGrid,
    start: str,
    is_target: Callable[[str], bool],
    can_enter: CanEnter,
    max_length: int | None = None,
) -> list[str] | None:
    """The shortest line (start first) to a hex where ``is_target`` holds, or ``None``.
    A line of length n enters n hexes; the start itself counts as reached if it is a target."""
    if is_target(start):
        return [start]
    parents: dict[str, str | None] = {start: None}
    frontier: deque[tuple[str, int]] = deque([(start, 0)])
    while frontier:
        here, length = frontier.popleft()
        if max_length is not None and length >= max_length:
            continue
        for there in grid.neighbours(here):
            if there in parents or not can_enter(here, there):
                continue
            parents[there] = here
            if is_target(there):
                line = [there]
                step: str | None = here
                while step is not None:
                    line.append(step)
                    step = parents[step]
                return line[::-1]
            frontier.append((there, length + 1))
    return None


def supplied_hexes(
    grid: HexGrid,
    sources: Iterable[str],
    can_enter: CanEnter,
    max_length: int | None = None,
) -> dict[str, int]:
    """Every hex a line from some source reaches -> its shortest length, traced *from* the sources
    (so ``can_enter(frm, to)`` sees the direction source -> unit).  Faster than :func:`trace` per
    unit when many units are judged at once; the result includes the sources at length 0.  Here the
    unit's own hex is entered too, so a unit in an enemy ZOC counts as a friendly unit negating it."""
    reached: dict[str, int] = {}
    frontier: deque[str] = deque()
    for source in sources:
        if source not in reached:
            reached[source] = 0
            frontier.append(source)
    while frontier:
        here = frontier.popleft()
        length = reached[here]
        if max_length is not None and length >= max_length:
            continue
        for there in grid.neighbours(here):
            if there not in reached and can_enter(here, there):
                reached[there] = length + 1
                frontier.append(there)
    return reached
