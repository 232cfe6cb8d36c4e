"""Land movement (15) with zones of control (7.1), special infiltration (9.2) and stacking (5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.rules.backbone import geography as geo
from service.rules.backbone import sequence
from service.rules.backbone.declared import COMMANDS
from service.rules.backbone.fog import limited, view
from service.rules.backbone.units import ON_MAP, State, Unit, at, enemy, occupied, on_map, tags
from service.rules.base import Dice, RulesEvent, RuleViolation
from service.rules.declare import Path
from service.rules.declare import Unit as UnitField
from service.rules.kernel.movement import MoveError, Reach, reachable, walk
from service.rules.kernel.stacking import StackLimit, check_stacking, stacks_by_hex

_MOVE_RULES = {
    "empty": "15.1",
    "off_map": "15.1",
    "not_adjacent": "15.1",
    "prohibited": "15.2",
    "too_costly": "15.2",
    "after_stop": "7.1",
    "cannot_end": "5",
}


def ignores_first_zoc(u: Unit) -> bool:
    """Moors (Regulars, Mehalas), Commandos, Rangers + Para and Rif units ignore the first enemy
    ZOC hex they enter (9.2, 10.2)."""
    return bool({"moors", "infiltrate"} & tags(u))


def _costs(state: State, u: Unit, blocked: set[str]):  # type: ignore[no-untyped-def]
    def cost(frm: str, to: str) -> float | None:
        if to in blocked:
            return None  # enemy units (15.1)
        return geo.step_cost(state, u, frm, to)

    return cost


def obstacles(state: State, side: str) -> tuple[set[str], set[str]]:
    """What ``side``'s moves meet: the enemy ZOC (7.1) and the hexes of enemy units (15.1)."""
    return geo.enemy_zoc(state, side), occupied(state, enemy(side))


def check_path(state: State, u: Unit, path: list[str]) -> dict[str, Any]:
    """Validate a move and return its facts (path, cost, MP); RuleViolation citing the rule."""
    if path[0] != u["hex"]:
        raise RuleViolation("15.1", f"the path must start in {u['hex']}", "path")
    grid = geo.board(state).grid
    zoc, blocked = obstacles(state, u["side"])
    mp = geo.movement_allowance(state, u)
    try:
        moved = walk(grid, path, mp, _costs(state, u, blocked))
    except MoveError as exc:
        raise RuleViolation(_MOVE_RULES.get(exc.code, "15"), exc.message, "path") from exc
    free = 1 if ignores_first_zoc(u) else 0
    entered: list[str] = []
    for index, hex_ in enumerate(path[1:], start=1):
        if hex_ not in zoc:
            continue
        if free:
            free -= 1
            entered.append(hex_)
            continue
        if index != len(path) - 1:
            raise RuleViolation("7.1", f"a unit entering the enemy ZOC in {hex_} must stop", "path")
    zoc_to_zoc = path[0] in zoc and path[1] in zoc and len(path) == 2
    return {
        "unit": u["id"],
        "path": list(path),
        "cost": moved.cost,
        "mp": mp,
        "ignored_zoc": entered,
        "zoc_to_zoc": zoc_to_zoc,
    }


def destinations(
    state: State, u: Unit, around: tuple[set[str], set[str]] | None = None
) -> dict[str, Reach]:
    """The hexes a unit may move to, each with its cheapest legal path (for legal_actions): the
    same costs, blocked hexes and ZOC stops as :func:`check_path`.  A unit that ignores the first
    enemy ZOC hex (9.2) may go on from any ZOC hex it reaches without crossing another one.
    ``around`` is the side's :func:`obstacles`, when the caller lists several units."""
    grid = geo.board(state).grid
    zoc, blocked = around or obstacles(state, u["side"])
    cost = _costs(state, u, blocked)
    mp = geo.movement_allowance(state, u)
    found = reachable(grid, u["hex"], mp, cost, must_stop=zoc.__contains__)
    if ignores_first_zoc(u):
        for hex_, first in list(found.items()):
            if hex_ not in zoc:
                continue
            rest = reachable(grid, hex_, mp - first.cost, cost, must_stop=zoc.__contains__)
            for there, more in rest.items():
                total = first.cost + more.cost
                known = found.get(there)
                if known is None or total < known.cost:
                    found[there] = Reach(total, first.path + more.path[1:], more.stops)
    found.pop(u["hex"], None)
    return found


def stacking_violations(state: State, side: str) -> list[dict[str, Any]]:
    """Over-stacked hexes of a side (5), and US and British units ending together (5)."""
    units = on_map(state, side)
    stacks = stacks_by_hex((u["hex"], u) for u in units)
    limit = StackLimit[Unit]("steps", lambda u: u["steps"], lambda h: geo.stacking_limit(state, h))
    found = [v.as_dict() for v in check_stacking(stacks, [limit])]
    for hex_, stack in sorted(stacks.items()):
        found += [{"hex": hex_, "limit": why} for why in mixed(stack)]
    return found


def mixed(stack: list[Unit]) -> list[str]:
    """The units of a stack that may not end together (5: US and British; 10.2: Rif units)."""
    found = []
    if {"us", "uk"} <= {u["nation"] for u in stack}:
        found.append("US and British units together")
    if len({u["type"] == "rif" for u in stack}) > 1:
        found.append("Rif units do not stack with Allied units")
    return found


def may_end(state: State, u: Unit, hex_: str) -> bool:
    """Whether ``u`` may end its move in ``hex_`` with the stack there as it stands: within the
    hex's steps (5) and no units that may not stack together.  Stacking is counted at the end of the
    movement phase (5) and a unit moves once (15.1), so a move listed for a player never leaves a
    stack that no listed move could put right."""
    stack = [v for v in at(state, hex_) if v["side"] == u["side"] and v["id"] != u["id"]]
    if sum(v["steps"] for v in stack) + u["steps"] > geo.stacking_limit(state, hex_):
        return False
    return not mixed([*stack, u])


class Room:
    """Steps one decision puts on the map outside movement -- arrivals (13.1, 14, 9.1), rebuilt
    units and recovered steps (13.2).  Each must fit (5) with the stack in its hex and with what the
    same decision has already put there: a stack made over the limit then may have no move to put
    it right (a unit moves once, 15.1, and may be hemmed in by enemy units and ZOC, 7.1), and the
    rules give such a stack no way out (16.7 gives one only to retreats).  Placing units is done
    within the limits, as at deployment (18.1)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.added: dict[str, list[Unit]] = {}

    def fits(self, u: Unit, hex_: str, steps: int) -> bool:
        """Whether ``steps`` steps of ``u`` (arriving, rebuilt or recovered) fit in ``hex_``: a land
        hex with no enemy unit (15.1), within its limit and with no units that may not stack (5)."""
        here = at(self.state, hex_)
        if geo.impassable(self.state, hex_) or any(v["side"] != u["side"] for v in here):
            return False
        stack = [*here, *self.added.get(hex_, [])]
        total = sum(v["steps"] for v in stack) + steps
        newcomer = [] if any(v["id"] == u["id"] for v in stack) else [u]
        return total <= geo.stacking_limit(self.state, hex_) and not mixed([*stack, *newcomer])

    def take(self, u: Unit, hexes: Sequence[str], steps: int) -> str | None:
        """The first of ``hexes`` where the steps fit, now counted there; None if none has room."""
        for hex_ in hexes:
            if self.fits(u, hex_, steps):
                self.add(u, hex_, steps)
                return hex_
        return None

    def add(self, u: Unit, hex_: str, steps: int) -> None:
        self.added.setdefault(hex_, []).append({**u, "steps": steps})

    def arrived(self) -> State:
        """The state with the units this decision brought onto the map placed (not recovered
        steps), to judge what moves could do with them."""
        units = dict(self.state["units"])
        for hex_, placed in self.added.items():
            for u in placed:
                if units[u["id"]]["status"] != ON_MAP:
                    units[u["id"]] = {**u, "hex": hex_, "status": ON_MAP}
        return {**self.state, "units": units, "moved": []}


class PutRight:
    """The side's stacks over the steps limit (5) and the moves that may still put them right: the
    units in them that may still move (15.1, 14) with the hexes they may reach and end in (15.2,
    7.1), the room of those hexes shared among them.  Stacking is counted at the end of the
    movement phase (5), so a stack may be over the limit before it -- the British reserve lands at
    the beachhead and moves on (14) -- as long as moving out of it can still bring it within."""

    def __init__(self, state: State, side: str) -> None:
        units = on_map(state, side)
        stacks = stacks_by_hex((u["hex"], u) for u in units)
        steps = {h: sum(u["steps"] for u in s) for h, s in stacks.items()}
        self.need = {
            h: n - geo.stacking_limit(state, h)
            for h, n in steps.items()
            if n > geo.stacking_limit(state, h)
        }
        self.movers: list[tuple[Unit, list[str]]] = []
        self.room: dict[str, int] = {}
        if not self.need:
            return
        around = obstacles(state, side)
        for u in units:
            if u["hex"] not in self.need or u["id"] in state["moved"]:
                continue
            if u.get("landed_turn") == state["turn"]:
                continue
            dests = [
                h
                for h in destinations(state, u, around)
                if h not in self.need and may_end(state, u, h)
            ]
            if dests:
                self.movers.append((u, dests))
            for h in dests:
                self.room[h] = geo.stacking_limit(state, h) - steps.get(h, 0)

    def possible(self, moving: Unit | None = None, to: str | None = None) -> bool:
        """Whether the stacks can still be put right (after ``moving`` goes ``to``)."""
        if not self.need:
            return True
        need, room, movers = dict(self.need), dict(self.room), self.movers
        if moving is not None and to is not None:
            movers = [(u, d) for u, d in movers if u["id"] != moving["id"]]
            if moving["hex"] in need:
                need[moving["hex"]] -= moving["steps"]
            if to in room:
                room[to] -= moving["steps"]
        budget = [20000]
        return _assign(movers, 0, need, room, budget)


def _assign(
    movers: list[tuple[Unit, list[str]]],
    i: int,
    need: dict[str, int],
    room: dict[str, int],
    budget: list[int],
) -> bool:
    """Whether the movers from ``i`` on can take the steps ``need`` says out into ``room`` (a
    bounded search: past its budget the answer is no, which only ever withholds a choice)."""
    if all(n <= 0 for n in need.values()):
        return True
    budget[0] -= 1
    if i == len(movers) or budget[0] < 0:
        return False
    u, dests = movers[i]
    if _assign(movers, i + 1, need, room, budget):
        return True
    if need[u["hex"]] <= 0:
        return False
    for h in dests:
        if room[h] < u["steps"]:
            continue
        room[h] -= u["steps"]
        need[u["hex"]] -= u["steps"]
        found = _assign(movers, i + 1, need, room, budget)
        room[h] += u["steps"]
        need[u["hex"]] += u["steps"]
        if found:
            return True
    return False


# -- the commands of the movement and combat phases ----------------------------------------------
@COMMANDS.command(
    "move",
    phases=("movement",),
    unit=UnitField(),
    path=Path(min=2),
    doc="15: move one unit along a path of adjacent hexes from its own",
)
def move(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    u = state["units"][command["unit"]]
    if u["side"] != side or u["status"] != "map":
        raise RuleViolation("15.1", "the unit named is not one of your units on the map", "unit")
    if u["id"] in state["moved"]:
        raise RuleViolation("15.1", f"{u['name']} has already moved this phase", "unit")
    if u.get("landed_turn") == state["turn"]:
        raise RuleViolation("14", f"{u['name']} landed this turn and cannot move", "unit")
    path = list(command["path"])
    if not limited(state):
        return [RulesEvent("UnitMoved", check_path(state, u, path))]
    # 19.2: the move is judged on what the mover sees; a zone of control it could not see (a unit
    # under the top of a stack) stops it where it is met (7.1), as the opponent would at the table
    seen = view(state, side)
    check_path(seen, seen["units"][u["id"]], path)
    stop = _zoc_stop(state, u, path)
    if stop is None:
        return [RulesEvent("UnitMoved", check_path(state, u, path))]
    facts = check_path(state, u, path[: stop + 1])
    facts["stopped"] = {"hex": path[stop], "rule": "7.1"}
    return [RulesEvent("UnitMoved", facts)]


def _zoc_stop(state: State, u: Unit, path: list[str]) -> int | None:
    """The index in ``path`` of the enemy ZOC hex where ``u`` must stop (7.1; the first ignored by
    units that may, 9.2) before the end of the path, else None."""
    zoc, _ = obstacles(state, u["side"])
    free = 1 if ignores_first_zoc(u) else 0
    for index, hex_ in enumerate(path[1:], start=1):
        if hex_ not in zoc:
            continue
        if free:
            free -= 1
            continue
        return index if index != len(path) - 1 else None
    return None


@COMMANDS.command(
    "end_phase", phases=("movement", "combat"), doc="8.2: end the movement or combat phase"
)
def end_phase(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    """The end of a movement phase checks stacking (5); then the sequence goes on (8.2)."""
    problems = stacking_violations(state, side) if state["step"].endswith("_movement") else []
    if problems:
        where = ", ".join(f"{p['hex']} ({p['limit']})" for p in problems)
        raise RuleViolation(
            "5", f"stacking is over the limit at the end of movement: {where}", "type"
        )
    return sequence.next_step(state, state["step"])
