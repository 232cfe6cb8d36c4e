"""Movement in impulses (13), echelons (4), reserves (11), trenches (9), leaders (8) and the
correction of overstacking (4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.base import RuleViolation, State
from service.rules.bizkaya import board, tables
from service.rules.bizkaya.events import emit, regroup
from service.rules.declare import Emitter
from service.rules.kernel.movement import MoveError, reachable, walk

Unit = dict[str, Any]


def may_act(state: State, unit: Unit) -> bool:
    """13, 11: in an operations impulse the active player's units not held in reserve; in a
    reserve impulse the opponent's activated reserves."""
    if unit["status"] != "map":
        return False
    if state["phase"] == "operations":
        return unit["side"] == state["side"] and not unit["reserve"]
    if state["phase"] == "reserve":
        return unit["side"] != state["side"] and unit["activated"]
    return False


def available_mp(state: State, unit: Unit) -> int:
    """13: the MPs left this turn, of which at most 6 / 4 / 2 in the 1st / 2nd / 3rd operations
    impulse; an activated reserve has all its MPs."""
    if state["phase"] == "reserve":
        return max(0, unit["mp"])
    cap = tables.game()["impulse_limits"][state["impulse"] - 1]
    return max(0, min(unit["mp"], cap - unit["spent"]))


def _units(state: State, side: str, ids: list[str]) -> list[Unit]:
    units = [state["units"][i] for i in ids]
    for u in units:
        if u["side"] != side or u["status"] != "map":
            raise RuleViolation("13", f"{u['name']} is not one of your units on the map", "units")
    return units


def check_stacking(state: State, hex_: str, arriving: list[Unit]) -> None:
    ids = {u["id"] for u in arriving}
    present = [u for u in board.stack(state, hex_) if u["id"] not in ids]
    problems = board.stacking_problems(state, hex_, present + arriving)
    if problems:
        raise RuleViolation("4", "overstacked: " + "; ".join(problems), "units")


def move(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    s = em.state
    if s["stage"] != "move":
        raise RuleViolation(
            "13", "units move before the barrages and the attacks of the impulse", "type"
        )
    units = _units(s, side, command["units"])
    path = command["path"]
    if not units or not path or any(u["hex"] != path[0] for u in units):
        raise RuleViolation("13", "a move names units of one hex and a path starting there", "path")
    for u in units:
        if not may_act(s, u):
            why = "is held in reserve" if u["reserve"] else "may not move in this impulse"
            raise RuleViolation("13" if not u["reserve"] else "11", f"{u['name']} {why}", "units")
    echelon = command.get("echelon", 1)
    if echelon not in (1, 2):
        raise RuleViolation("4", "the echelon is 1 or 2", "echelon")
    mp = min(available_mp(s, u) for u in units)  # 13: a stack moves at its slowest
    try:
        done = walk(board.map_of(s).grid, path, mp, board.step_cost(s, side))
    except MoveError as exc:
        raise RuleViolation(
            "13", f"{exc.message} ({mp} MP available this impulse)", "path"
        ) from None
    arriving = [{**u, "echelon": echelon if board.is_combat(u) else 2} for u in units]
    check_stacking(s, path[-1], arriving)
    ids = [u["id"] for u in units]
    emit(
        em,
        "UnitsMoved",
        {
            "side": side,
            "units": [u["id"] for u in units],
            "path": list(path),
            "costs": list(done.costs),
            "cost": int(done.cost),
            "echelon": echelon,
            "regroup": regroup(s, side, ids, list(path), int(done.cost)),
        },
    )


def destinations(
    state: State, units: list[Unit], cost: Callable[[str, str], float | None]
) -> dict[str, list[str]]:
    """Every hex ``units`` may move to now, with the cheapest path (for the legal actions);
    ``cost`` is the side's :func:`board.step_cost`, the same for all its stacks."""
    mp = min(available_mp(state, u) for u in units)
    found = reachable(board.map_of(state).grid, units[0]["hex"], mp, cost)
    ids = {u["id"] for u in units}
    arriving = [{**u, "echelon": 1 if board.is_combat(u) else 2} for u in units]
    by_hex: dict[str, list[Unit]] = {}
    for u in board.on_map(state):
        if u["id"] not in ids:
            by_hex.setdefault(u["hex"], []).append(u)
    out = {}
    for hex_, reach in sorted(found.items()):
        if not board.stacking_problems(state, hex_, by_hex.get(hex_, []) + arriving):
            out[hex_] = list(reach.path)
    return out


def set_echelon(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """4: a combat unit changes echelon free during its movement (or the reserve phase)."""
    s = em.state
    units = _units(s, side, command["units"])
    echelon = command.get("echelon")
    if echelon not in (1, 2):
        raise RuleViolation("4", "the echelon is 1 or 2", "echelon")
    for u in units:
        if not board.is_combat(u):
            raise RuleViolation(
                "4", f"{u['name']} is support: artillery stays in the second echelon", "units"
            )
        if s["phase"] in ("operations", "reserve") and (s["stage"] != "move" or not may_act(s, u)):
            raise RuleViolation(
                "4", f"{u['name']} may change echelon only during its movement", "units"
            )
        if s["phase"] not in ("admin", "operations", "reserve"):
            raise RuleViolation("4", "echelons change during movement or the reserve phase", "type")
        if echelon == 1 and u["reserve"] and board.adjacent_to_enemy(s, u["hex"], side):
            raise RuleViolation(
                "11", f"{u['name']} is a reserve next to the enemy: second echelon", "units"
            )
    for hex_ in {u["hex"] for u in units}:
        moving = [{**u, "echelon": echelon} for u in units if u["hex"] == hex_]
        check_stacking(s, hex_, moving)
    emit(em, "EchelonChanged", {"units": [u["id"] for u in units], "echelon": echelon})


def reserve(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """11: combat units (never artillery) go into reserve; next to enemy units only in the
    second echelon."""
    s = em.state
    units = _units(s, side, command["units"])
    for u in units:
        if not board.is_combat(u):
            raise RuleViolation(
                "11", f"{u['name']}: artillery cannot be placed in reserve", "units"
            )
        if u["reserve"]:
            raise RuleViolation("11", f"{u['name']} is already in reserve", "units")
        if u["echelon"] == 1 and board.adjacent_to_enemy(s, u["hex"], side):
            raise RuleViolation(
                "11",
                f"{u['name']} is adjacent to enemy units: a reserve there must be in the second echelon",
                "units",
            )
    emit(em, "ReserveSet", {"units": [u["id"] for u in units]})


def activate(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """13: in the reserve impulse the non-active player activates reserves; the marker goes."""
    s = em.state
    if s["stage"] != "move":
        raise RuleViolation("13", "reserves are activated before the barrages and attacks", "type")
    units = _units(s, side, command["units"])
    for u in units:
        if not u["reserve"]:
            raise RuleViolation("11", f"{u['name']} is not in reserve", "units")
    emit(em, "ReservesActivated", {"units": [u["id"] for u in units]})


def entrench(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """9: a brigade-sized unit places a trench marker in its hex during the supply phase."""
    s = em.state
    unit = _units(s, side, [command["unit"]])[0]
    if unit["type"] != "brigade":
        raise RuleViolation("9", f"{unit['name']} is not brigade-sized", "unit")
    trench = s["trenches"].get(unit["hex"])
    if trench and trench["side"] == side:
        raise RuleViolation("9", f"{unit['hex']} already has a trench marker", "unit")
    emit(em, "TrenchBegun", {"unit": unit["id"], "hex": unit["hex"], "side": side})


def place_leader(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """8: at the start of each turn the Nationalist places each leader on one of his stacks."""
    s = em.state
    leader = command["leader"]
    if leader not in s["leaders"]:
        raise RuleViolation("8", f"no leader {leader!r} ({', '.join(s['leaders'])})", "leader")
    if side != "nationalist":
        raise RuleViolation("8", "only the Nationalist has leaders", "leader")
    if s["leaders"][leader]["unit"] is not None:
        raise RuleViolation(
            "8", f"{s['leaders'][leader]['name']} is already placed this turn", "leader"
        )
    unit = _units(s, side, [command["unit"]])[0]
    emit(
        em,
        "LeaderPlaced",
        {
            "leader": leader,
            "name": s["leaders"][leader]["name"],
            "unit": unit["id"],
            "hex": unit["hex"],
        },
    )


def eliminate(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """4: the owner of an overstacked stack eliminates units until it is within the limits."""
    s = em.state
    units = _units(s, side, command["units"])
    for u in units:
        if not board.stacking_problems(s, u["hex"], board.stack(s, u["hex"])):
            raise RuleViolation(
                "4", f"{u['name']}'s stack in {u['hex']} is not overstacked", "units"
            )
    emit(em, "UnitsEliminated", {"units": [u["id"] for u in units], "reason": "overstacking (4)"})
