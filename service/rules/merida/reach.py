"""Where units may move (rule 5 with rules 6, 7 and 10), for the legal actions: the destinations
``moves.check_move`` accepts, each with a path, judged by the very same step rules
(``moves.StepRules``).

One :class:`Planner` serves one listing (an ``actions`` call, an end-of-phase check) and computes
once what the units' searches share: the enemy's ZOCs and units, the stacks, the lines of supply and
command, each area once per start, kind of unit and mode.  What depends only on the enemy's
positions -- each kind of unit's permitted steps out of each hex, each search from a start hex, each
unit's and each stack's destinations as if every hex were empty -- is kept across listings for as
long as the enemy stands still (:class:`_Shared`), so a player's successive moves in a phase search
again only for the units that moved, and each listing applies only rule 6 (the stacks as they now
stand) to what was kept."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from itertools import pairwise
from typing import Any

from service.rules.base import RuleViolation, State
from service.rules.kernel import movement as kernel_movement
from service.rules.kernel.mapdata import MapData
from service.rules.merida import board, stacking, terrain
from service.rules.merida.moves import (
    EnemyView,
    StepRules,
    allowance,
    bound_group,
    check_mode,
    check_movers,
    committed,
    enemy_view,
    strategic_move,
    train_strategic,
    walk_costs,
)

Paths = dict[str, list[str]]
Steps = dict[str, float]


class Planner:
    """The shared judgements of one listing of moves for ``side`` (the state does not change)."""

    def __init__(self, state: State, side: str) -> None:
        self.state, self.side = state, side
        mapdata = board.map_of(state)
        self.grid = mapdata.grid
        self.view = enemy_view(state, side)
        self.zoc, self.enemy_hexes = self.view
        self.stacks: dict[str, list[dict[str, Any]]] = {}
        for unit in board.on_map(state):
            self.stacks.setdefault(unit["hex"], []).append(unit)
        exerting = frozenset(hex_ for sources in self.zoc.values() for hex_ in sources)
        option = state["options"].get("zoc_to_zoc", "same_unit")
        river = terrain.river_added(state)
        train = train_strategic(state)
        self.shared = _shared(
            (mapdata, side, frozenset(self.enemy_hexes), exerting, option, river, train)
        )
        self._control: tuple[Any, ...] | None = None
        self._began_zoc: dict[str, set[str]] | None = None
        self._areas: dict[tuple[Any, ...], Paths] = {}
        self._nearest: dict[str, int | None] = {}
        self._lines: dict[str, set[str]] = {}

    # -- shared judgements --------------------------------------------------------------------------
    def began_in_zoc(self, hex_: str) -> bool:
        """Rule 5: strategic movement may not begin in an enemy ZOC (overrun stacks included)."""
        if self._began_zoc is None:
            self._began_zoc = board.zoc_sources(self.state, board.other(self.side))
        return hex_ in self._began_zoc

    def kind(self, unit: dict[str, Any], mode: str) -> tuple[Any, ...]:
        """What the steps of ``unit`` in ``mode`` depend on besides the enemy: its type and command,
        and for rail movement who controls the rail hexes."""
        rail = mode == "rail" or unit["type"] == "train"
        if rail and self._control is None:
            lines = _rail_hexes(board.map_of(self.state))
            self._control = (
                tuple(sorted((h, s) for h, s in self.state["control"].items() if h in lines)),
                tuple(sorted((s, tuple(c)) for s, c in self.state["initial_control"].items())),
            )
        return unit["type"], mode, bool(unit["out_of_command"]), self._control if rail else None

    def steps(self, unit: dict[str, Any], mode: str) -> Callable[[str], Steps]:
        """The permitted steps out of a hex (neighbour -> cost, in the grid's order) for units of
        ``unit``'s kind in ``mode``, by ``moves.StepRules.step``, away from their start hex (whose
        ZOC-to-ZOC rule is the unit's own) and with no ZOC ignored; each hex judged once."""
        table = self.shared.steps.setdefault(self.kind(unit, mode), {})
        rules = StepRules(self.state, unit, mode, "", [], self.view)
        neighbours = self.grid.neighbours

        def out_of(frm: str) -> Steps:
            found = table.get(frm)
            if found is None:
                found = table[frm] = _permitted(rules, frm, neighbours(frm))
            return found

        return out_of

    def can_end(self, hex_: str, moving: list[dict[str, Any]], start: str) -> bool:
        """Rule 6 at the end of a move (``moves._fitter``): ``hex_`` holds the moving units."""
        here = self.stacks.get(hex_)
        if here is None:
            return stacking.fits(moving)
        if hex_ == start:
            ids = {u["id"] for u in moving}
            here = [u for u in here if u["id"] not in ids]
        return stacking.fits(here + moving)

    def towards_enemy(self, start: str, end: str) -> bool:
        """Rule 4B (``moves._towards_enemy``): does ``end`` lie nearer the nearest enemy unit?"""
        before, after = self._distance(start), self._distance(end)
        return before is not None and after is not None and after < before

    def _distance(self, hex_: str) -> int | None:
        if hex_ not in self._nearest:
            self._nearest[hex_] = self.grid.distance_to_nearest(hex_, self.enemy_hexes)
        return self._nearest[hex_]

    def lines(self, line: str) -> set[str]:
        """Rule 10: the hexes on ``side``'s line of ``supply`` or ``command``."""
        if line not in self._lines:
            reach = board.supplied_hexes if line == "supply" else board.commanded_hexes
            self._lines[line] = reach(self.state, self.side)
        return self._lines[line]

    # -- areas ------------------------------------------------------------------------------------
    def destinations(self, unit: dict[str, Any], mode: str) -> Paths:
        """Where ``unit`` may end a move in ``mode``, with a path to each, in hex order."""
        start = unit["hex"]
        key = (start, self.kind(unit, mode), allowance(unit, mode), bool(unit["out_of_supply"]))
        if key not in self._areas:
            self._areas[key] = self._unstacked(self._open_area(unit, mode), [unit], start)
        return self._areas[key]

    def _open_area(self, unit: dict[str, Any], mode: str) -> Paths:
        """Where ``unit`` may end a move in ``mode`` if every hex were empty (rule 6 aside): what
        holds while the enemy stands still, kept across listings."""
        start = unit["hex"]
        if strategic_move(self.state, unit, mode) and self.began_in_zoc(start):
            return {}
        if mode == "rail" and unit["type"] not in ("train", "leader") and self.state["rail_used"]:
            return {}  # rule 5: one brigade a turn by rail
        key = (start, self.kind(unit, mode), allowance(unit, mode), bool(unit["out_of_supply"]))
        area = self.shared.areas.get(key)
        if area is None:
            alone = stacking.fits([unit])
            area = self.shared.areas[key] = {
                hex_: list(path)
                for hex_, path in self.reached(unit, mode)
                if alone and not (unit["out_of_supply"] and self.towards_enemy(start, hex_))
            }
        return area

    def _unstacked(self, area: Paths, units: list[dict[str, Any]], start: str) -> Paths:
        """``area`` without the hexes whose stack ``units`` may not join (rule 6).  Adding a unit
        never lowers a stack's points, so a hex ``units`` may not end on alone is never in it."""
        blocked = {h for h in self.stacks if h in area and not self.can_end(h, units, start)}
        return {h: p for h, p in area.items() if h not in blocked} if blocked else area

    def reached(self, unit: dict[str, Any], mode: str) -> list[tuple[str, tuple[str, ...]]]:
        """Every hex ``unit`` reaches in ``mode`` whether or not it may end there (rule 6), with
        the cheapest path, in hex order; one search per start, kind and allowance while the enemy
        stands still."""
        start, mp = unit["hex"], allowance(unit, mode)
        key = (start, self.kind(unit, mode), mp)
        found = self.shared.searches.get(key)
        if found is None:
            own = StepRules(self.state, unit, mode, start, [start], self.view)
            away = self.steps(unit, mode)

            def edges(here: str) -> Iterable[tuple[str, float]]:
                if here == start:
                    return _permitted(own, here, self.grid.neighbours(here)).items()
                return away(here).items()

            reached = kernel_movement.reachable_by(
                start, mp, edges, must_stop=self.zoc.__contains__
            )
            found = [(hex_, reach.path) for hex_, reach in sorted(reached.items())]
            self.shared.searches[key] = found
        return found

    def group_destinations(self, units: list[dict[str, Any]], mode: str) -> Paths:
        """Where a stack that moves as one may end a move in ``mode``: the hexes every unit reaches
        on its own, by the first of their paths ``check_move`` accepts for all."""
        if len(units) == 1:
            return self.destinations(units[0], mode)
        side, start = units[0]["side"], units[0]["hex"]
        try:
            check_movers(self.state, side, units, start)
            check_mode(self.state, side, units, mode, start)
        except RuleViolation:
            return {}
        if any(u["type"] == "guerrilla" for u in units):  # their ZOC ignored depends on the path
            return self._group_area(units, mode, start)
        key = (
            start,
            mode,
            mode == "rail" and bool(self.state["rail_used"]),
            tuple(
                (self.kind(u, mode), allowance(u, mode), bool(u["out_of_supply"])) for u in units
            ),
        )
        area = self.shared.groups.get(key)
        if area is None:
            area = self.shared.groups[key] = self._group_area(units, mode, start, stacked=False)
        return self._unstacked(area, units, start)

    def _group_area(
        self, units: list[dict[str, Any]], mode: str, start: str, stacked: bool = True
    ) -> Paths:
        """The hexes every unit of a stack reaches on its own, by the first of their paths
        ``check_move`` accepts for all; ``stacked=False``: on the map's empty hexes (rule 6 is the
        caller's, so that the area holds while the enemy stands still)."""
        area = self.destinations if stacked else self._open_area
        each = [area(unit, mode) for unit in units]
        accepts = self._accepts(units, mode, start, stacked)
        found: Paths = {}
        for hex_ in sorted(set(each[0]).intersection(*each[1:])):
            path = next((p[hex_] for p in each if accepts(p[hex_])), None)
            if path is not None:
                found[hex_] = path
        return found

    def _accepts(
        self, units: list[dict[str, Any]], mode: str, start: str, stacked: bool = True
    ) -> Callable[[list[str]], bool]:
        """Does ``moves.walk_costs`` accept a listed path (on the map, hex by hex) from ``start``
        for all of ``units`` together?"""
        if any(u["type"] == "guerrilla" for u in units):  # their ZOC ignored depends on the path
            return lambda path: _walks(self.state, units, mode, path, self.view)
        affords = [self._affords(unit, mode, start) for unit in units]
        supply = any(u["out_of_supply"] for u in units)

        def accepts(path: list[str]) -> bool:
            end = path[-1]
            if any(hex_ in self.zoc for hex_ in path[1:-1]):  # rule 7: stop on entering a ZOC
                return False
            if not all(afford(path) for afford in affords):
                return False
            if stacked and not self.can_end(end, units, start):
                return False
            return not supply or not self.towards_enemy(start, end)

        return accepts

    def _affords(self, unit: dict[str, Any], mode: str, start: str) -> Callable[[list[str]], bool]:
        """Is every step of a path from ``start`` permitted to ``unit``, within its allowance?"""
        first = _permitted(
            StepRules(self.state, unit, mode, start, [start], self.view),
            start,
            self.grid.neighbours(start),
        )
        away, mp = self.steps(unit, mode), allowance(unit, mode)

        def affords(path: list[str]) -> bool:
            total = 0.0
            for frm, to in pairwise(path):
                step = (first if frm == start else away(frm)).get(to)
                if step is None:
                    return False
                total += step
                if total > mp:
                    return False
            return True

        return affords

    def regain_hexes(
        self, unit: dict[str, Any], tactical: Mapping[str, list[str]] | None = None
    ) -> tuple[str, list[str]] | None:
        """Rule 10: a unit found out of supply (or out of command) in the supply phase that has not
        moved and could regain its line by moving: which line, and the hexes that regain it.
        ``tactical`` is the unit's tactical destinations when the caller has them already."""
        if unit["moved"] or unit["status"] != "map" or not board.needs_lines(unit):
            return None
        if committed(self.state, unit):  # rule 8: it may not move any more
            return None
        for line, flag in (("supply", "out_of_supply"), ("command", "out_of_command")):
            if not unit[flag]:
                continue
            lined = self.lines(line)
            if unit["hex"] in lined:
                continue
            if tactical is None:
                tactical = self.group_destinations(bound_group(self.state, unit), "tactical")
            found = [h for h in tactical if h in lined]
            if found:
                return line, found
        return None


class _Shared:
    """The judgements of a side's moves that hold while the enemy stands still (and, by rail,
    control does not change): each kind of unit's permitted steps out of each hex, and each
    search from a start hex.  Kept for the last few boards, across listings."""

    def __init__(self) -> None:
        self.steps: dict[tuple[Any, ...], dict[str, Steps]] = {}
        self.searches: dict[tuple[Any, ...], list[tuple[str, tuple[str, ...]]]] = {}
        #: each unit's and each stack's destinations on the map's empty hexes (read, never changed)
        self.areas: dict[tuple[Any, ...], Paths] = {}
        self.groups: dict[tuple[Any, ...], Paths] = {}


_SHARED: dict[tuple[Any, ...], _Shared] = {}
_KEPT = 4
_LOCK = threading.Lock()


def _shared(board_key: tuple[Any, ...]) -> _Shared:
    """The shared judgements of a board: the map, the moving side, the enemy's hexes, the stacks
    exerting a ZOC and the readings steps depend on (ZOC to ZOC, river cost, armored train)."""
    with _LOCK:
        found = _SHARED.get(board_key)
        if found is None:
            if len(_SHARED) >= _KEPT:
                del _SHARED[next(iter(_SHARED))]
            found = _SHARED[board_key] = _Shared()
        return found


def forget() -> None:
    """Drop the judgements kept across listings (benchmarks and tests measure a cold listing)."""
    with _LOCK:
        _SHARED.clear()


@lru_cache(maxsize=16)
def _rail_hexes(mapdata: MapData) -> frozenset[str]:
    """The hexes on a rail line (whose control rail movement depends on)."""
    return frozenset(h for side in mapdata.hexsides_with("rail") for h in side)


def _walks(
    state: State, units: list[dict[str, Any]], mode: str, path: list[str], view: EnemyView
) -> bool:
    try:
        walk_costs(state, units, mode, path, view)
    except RuleViolation:
        return False
    return True


def _permitted(rules: StepRules, frm: str, neighbours: Iterable[str]) -> Steps:
    """The steps out of ``frm`` that ``rules`` permits, with their cost, in the grid's order."""
    found: Steps = {}
    for to in neighbours:
        cost = rules.step(frm, to)
        if cost is not None:
            found[to] = cost
    return found
