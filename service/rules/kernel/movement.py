"""Movement: the reachable set of a moving unit (Dijkstra) and the step-by-step check of a path.

The module supplies its judgements:

* ``step_cost(frm, to)`` -- the movement points to enter ``to`` from ``frm``, or ``None`` when the
  step is prohibited (terrain, hexside, enemy unit ...);
* ``must_stop(hex)`` -- entering this hex ends the move (an enemy ZOC, a town ...);
* ``can_end(hex)`` -- the unit may finish its move here (stacking ...); it may still pass through.

A unit may always spend its whole allowance; with ``minimum_move`` it may also enter one adjacent
hex whatever that costs, as long as the step is not prohibited.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from service.rules.kernel.grid import HexGrid

StepCost = Callable[[str, str], float | None]
HexPredicate = Callable[[str], bool]
Edges = Callable[[str], Iterable[tuple[str, float]]]


@dataclass(frozen=True)
class Reach:
    """How a hex is reached: the cheapest cost and its path (start hex first)."""

    cost: float
    path: tuple[str, ...]
    stops: bool = False  # the unit must stop on entering this hex


class MoveError(ValueError):
    """A path breaks movement: ``code`` says how, ``index`` is the offending step in the path."""

    def __init__(self, code: str, index: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.index = index
        self.message = message


@dataclass(frozen=True)
class Walk:
    path: tuple[str, ...]
    cost: float
    costs: tuple[float, ...]  # cost of each step
    stopped: bool  # the last hex is one where the unit must stop


def _never(_hex: str) -> bool:
    return False


def _always(_hex: str) -> bool:
    return True


def reachable(
    grid: HexGrid,
    start: str,
    mp: float,
    step_cost: StepCost,
    *,
    must_stop: HexPredicate = _never,
    can_end: HexPredicate = _always,
    minimum_move: bool = False,
) -> dict[str, Reach]:
    """Every hex the unit may end its move in (start excluded), with the cheapest path to it.

    Ties between equally cheap paths are broken by the order of ``grid.neighbours`` so the result
    is deterministic."""

    def edges(here: str) -> Iterator[tuple[str, float]]:
        for there in grid.neighbours(here):
            step = step_cost(here, there)
            if step is not None:
                yield there, step

    return reachable_by(
        start, mp, edges, must_stop=must_stop, can_end=can_end, minimum_move=minimum_move
    )


def reachable_by(
    start: str,
    mp: float,
    edges: Edges,
    *,
    must_stop: HexPredicate = _never,
    can_end: HexPredicate = _always,
    minimum_move: bool = False,
) -> dict[str, Reach]:
    """:func:`reachable` with the permitted steps out of each hex given at once: ``edges(hex)``
    yields ``(neighbour, cost)`` in the order of ``grid.neighbours``, prohibited steps left out
    (a caller that shares them between units computes each hex's steps once).

    Dijkstra cut at the allowance; each hex keeps its cheapest cost and the hex it was entered
    from, and the paths are built only for the hexes returned."""
    cost: dict[str, float] = {start: 0.0}
    parent: dict[str, str] = {}
    stops: set[str] = set()
    queue: list[tuple[float, int, str]] = [(0.0, 0, start)]
    counter = 1
    pop, push = heapq.heappop, heapq.heappush
    while queue:
        spent, _, here = pop(queue)
        if spent > cost[here] or here in stops:
            continue
        free = minimum_move and here == start
        for there, step in edges(here):
            total = spent + step
            if total > mp and not free:
                continue
            known = cost.get(there)
            if known is not None and known <= total:
                continue
            if known is None and must_stop(there):
                stops.add(there)
            cost[there] = total
            parent[there] = here
            push(queue, (total, counter, there))
            counter += 1
    return _reaches(start, cost, parent, stops, can_end)


def _reaches(
    start: str,
    cost: dict[str, float],
    parent: dict[str, str],
    stops: set[str],
    can_end: HexPredicate,
) -> dict[str, Reach]:
    """The reached hexes the unit may end in (start excluded, in the order first reached), each
    with its path rebuilt from the hexes it was entered from."""
    paths: dict[str, tuple[str, ...]] = {start: (start,)}

    def path(hex_: str) -> tuple[str, ...]:
        trail = [hex_]
        while trail[-1] not in paths:
            trail.append(parent[trail[-1]])
        found = paths[trail.pop()]
        while trail:
            hex_ = trail.pop()
            found = found + (hex_,)
            paths[hex_] = found
        return found

    return {
        hex_: Reach(total, path(hex_), hex_ in stops)
        for hex_, total in cost.items()
        if hex_ != start and can_end(hex_)
    }


def walk(
    grid: HexGrid,
    path: Sequence[str],
    mp: float,
    step_cost: StepCost,
    *,
    must_stop: HexPredicate = _never,
    can_end: HexPredicate = _always,
    minimum_move: bool = False,
) -> Walk:
    """Check a submitted path (start hex first) step by step; raise :class:`MoveError` on the
    first problem: ``empty``, ``off_map``, ``not_adjacent`` (no skipping hexes), ``prohibited``,
    ``too_costly``, ``after_stop`` (moving on after a must-stop hex) or ``cannot_end``."""
    if len(path) < 2:
        raise MoveError("empty", 0, "a move must enter at least one hex")
    total = 0.0
    costs: list[float] = []
    for index in range(1, len(path)):
        here, there = path[index - 1], path[index]
        if not grid.in_bounds(there):
            raise MoveError("off_map", index, f"{there} is not on the map")
        if index > 1 and must_stop(here):
            raise MoveError("after_stop", index, f"the unit must stop in {here}")
        if not grid.adjacent(here, there):
            raise MoveError("not_adjacent", index, f"{there} is not adjacent to {here}")
        step = step_cost(here, there)
        if step is None:
            raise MoveError("prohibited", index, f"moving from {here} to {there} is prohibited")
        total += step
        costs.append(step)
        if total > mp and not (minimum_move and index == 1 and len(path) == 2):
            raise MoveError(
                "too_costly", index, f"entering {there} costs {total:g} of {mp:g} movement points"
            )
    if not can_end(path[-1]):
        raise MoveError("cannot_end", len(path) - 1, f"the unit may not end its move in {path[-1]}")
    return Walk(tuple(path), total, tuple(costs), must_stop(path[-1]))
