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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.rules.kernel.grid import HexGrid

StepCost = Callable[[str, str], float | None]
HexPredicate = Callable[[str], bool]


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
    best: dict[str, Reach] = {start: Reach(0.0, (start,))}
    queue: list[tuple[float, int, str]] = [(0.0, 0, start)]
    counter = 1
    while queue:
        cost, _, here = heapq.heappop(queue)
        reach = best[here]
        if cost > reach.cost or reach.stops:
            continue
        for there in grid.neighbours(here):
            step = step_cost(here, there)
            if step is None:
                continue
            total = cost + step
            if total > mp and not (minimum_move and here == start):
                continue
            known = best.get(there)
            if known is not None and known.cost <= total:
                continue
            best[there] = Reach(total, reach.path + (there,), must_stop(there))
            heapq.heappush(queue, (total, counter, there))
            counter += 1
    del best[start]
    return {label: reach for label, reach in best.items() if can_end(label)}


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
