"""``actions``: what a side may send now, in the one action vocabulary (``service.rules.actions``).

Templates are built from the declared commands (``COMMANDS.template``) with labels in printed names;
every ``one_of`` option is one ``decide`` accepts on its own (moves: one template per unit, or per
stack that must move as one, and mode, a path to each destination; placements, deployments,
substitutes and leaders: each option probed against the decision).  What the rules refuse now
(ending a phase while a rule still requires something) is a blocked entry with the reason and rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.rules.actions import Actions, Choice, one_of, some_of
from service.rules.base import DieRoll, RuleViolation, State
from service.rules.declare import Names
from service.rules.merida import (
    advance,
    battle,
    board,
    choices,
    combat,
    moves,
    reach,
    reinforce,
    sequence,
)
from service.rules.merida.commands import COMMANDS
from service.rules.merida.phases import end_problem


class _NoDice:
    """The dice of a probe: the commands probed here roll none."""

    def roll(self, sides: int = 6, purpose: str = "") -> DieRoll:
        raise AssertionError(f"a probe rolled a die ({purpose})")


def refused(state: State, side: str, command: dict[str, Any]) -> RuleViolation | None:
    """Why ``decide`` refuses ``command`` (a command without dice), else None."""
    try:
        COMMANDS.decide(state, side, command, _NoDice())
    except RuleViolation as err:
        return err
    return None


def actions(state: State, side: str) -> Actions:
    out = Actions()
    if board.acting_side(state) != side:
        return out
    names = board.PlaceNames(state)
    if state.get("pending"):  # issue 19: only the answers to the pending decision
        choices.templates(state, side, names, out)
        return out
    # the moves listed and the check of the end of the movement phase share one planner
    planner = reach.Planner(state, side) if state["phase"] == "movement" else None
    if planner is not None:
        _movement(planner, names, out)
    else:
        BUILDERS[state["phase"]](state, side, names, out)
    label = f"End the {state['phase'].replace('_', ' ')} phase"
    try:
        end_problem(state, side, planner)
    except RuleViolation as err:
        out.block("end_phase", label, err.message, err.rule)
    else:
        out.add(COMMANDS.template("end_phase", label))
    return out


def _hexes(
    state: State, side: str, command: dict[str, Any], hexes: list[str]
) -> tuple[list[str], RuleViolation | None]:
    """The hexes of ``hexes`` that ``command`` accepts as its ``hex``, and the first refusal."""
    legal, first = [], None
    for hex_ in hexes:
        problem = refused(state, side, {**command, "hex": hex_})
        if problem is None:
            legal.append(hex_)
        first = first or problem
    return legal, first


def _placing(
    state: State, side: str, names: Names, out: Actions, kind: str, verb: str, unit_id: str
) -> None:
    """A template to place ``unit_id`` (deploy, place_reinforcement) on a hex decide accepts."""
    label = f"{verb} {names.unit(unit_id)}"
    candidates = (
        reinforce.arrival_hexes(state, unit_id)
        if kind == "place_reinforcement"
        else reinforce.deployment_hexes(state, unit_id)
    )
    command = {"type": kind, "unit": unit_id}
    hexes, problem = _hexes(state, side, command, candidates)
    if hexes:
        choose = {"hex": one_of(hexes, [names.hex(h) for h in hexes])}
        out.add(COMMANDS.template(kind, label, fixed={"unit": unit_id}, choose=choose))
    elif problem is not None:
        out.block(kind, label, problem.message, problem.rule)


def _deployment(state: State, side: str, names: Names, out: Actions) -> None:
    for unit_id in sorted(state["deployment"]["units"]):
        if state["units"][unit_id]["side"] == side:
            _placing(state, side, names, out, "deploy", "Deploy", unit_id)


def _reinforcements(state: State, side: str, names: Names, out: Actions) -> None:
    for unit in sorted(reinforce.pending_units(state, side), key=lambda u: u["id"]):
        _placing(state, side, names, out, "place_reinforcement", "Place", unit["id"])
    for unit_id in state["pending_removals"]:
        if state["units"][unit_id]["side"] == side:
            _removal(state, side, names, out, unit_id)
    for (_kind, _formation), ids in sorted(reinforce.reorganizable(state, side).items()):
        _reorganization(state, side, names, out, ids)


def _removal(state: State, side: str, names: Names, out: Actions, unit_id: str) -> None:
    """The Reinforcement table: remove the unit due, or (eliminated) a unit of equal or greater
    value instead; the 71 Div may stay for victory points."""
    label = f"Remove {names.unit(unit_id)}"
    if state["units"][unit_id]["status"] == "map":
        out.add(COMMANDS.template("remove", label, fixed={"unit": unit_id}))
    else:
        instead = reinforce.substitutes(state, unit_id)
        if instead:
            choose = {"instead": one_of(instead, [names.unit(u) for u in instead])}
            label = f"Remove a unit in place of {names.unit(unit_id)} (eliminated)"
            out.add(COMMANDS.template("remove", label, fixed={"unit": unit_id}, choose=choose))
        else:
            reason = f"{names.unit(unit_id)} was eliminated and no unit of equal value is left"
            out.block("remove", label, reason, "12")
    cost = reinforce.removal_entry(state, unit_id).get("may_keep_for_vp")
    if cost is not None:
        label = f"Keep {names.unit(unit_id)} on the map for {cost} victory points"
        out.add(COMMANDS.template("keep", label, fixed={"unit": unit_id}))


def _reorganization(state: State, side: str, names: Names, out: Actions, ids: list[str]) -> None:
    """Rule 9: three of the eliminated units, the first returns with a leader the player picks."""
    chosen = ids[: reinforce.REORGANIZE]
    fixed = {"units": chosen, "return": chosen[0]}
    label = f"Reorganize {names.unit(chosen[0])} (with {names.units(chosen[1:])} gone for good)"
    leaders = sorted(u["id"] for u in board.on_map(state, side) if u["type"] == "leader")
    problems = [refused(state, side, {"type": "reorganize", **fixed, "leader": u}) for u in leaders]
    legal = [leader for leader, problem in zip(leaders, problems, strict=True) if problem is None]
    if legal:
        choose = {"leader": one_of(legal, [names.unit(u) for u in legal])}
        out.add(COMMANDS.template("reorganize", label, fixed=fixed, choose=choose))
    else:
        first = next((p for p in problems if p is not None), None)
        reason = first.message if first else "no leader of yours is on the map"
        out.block("reorganize", label, reason, "9")


def _movement(planner: reach.Planner, names: Names, out: Actions) -> None:
    """Rule 5: the moves of each unit (or stack that moves as one) in each mode; rule 8: overruns."""
    state, side = planner.state, planner.side
    seen: set[str] = set()
    for unit in sorted(board.on_map(state, side), key=lambda u: u["id"]):
        if unit["id"] in seen or unit["moved"] or moves.committed(state, unit):
            continue
        group = moves.bound_group(state, unit)
        seen.update(u["id"] for u in group)
        for mode in ("rail",) if any(u["type"] == "train" for u in group) else moves.MODES:
            _moves(planner, names, out, group, mode)
    for hex_ in _enemy_hexes_adjacent(state, side):
        _overrun(state, side, names, out, hex_)


def _moves(
    planner: reach.Planner, names: Names, out: Actions, group: list[dict[str, Any]], mode: str
) -> None:
    """Rule 5: a template for ``group`` in ``mode``, a path to each destination; first, rule 10's
    obligation to regain a line, the destinations that regain it."""
    paths = planner.group_destinations(group, mode)
    if not paths:
        return
    ids = sorted(u["id"] for u in group)
    fixed = {"units": ids, "mode": mode}
    label = f"Move {names.units(ids)} ({mode})"
    for unit in group if mode == "tactical" else []:
        regain = planner.regain_hexes(unit, paths)
        if regain is not None:
            must = f"{label} to regain its line of {regain[0]} (rule 10)"
            choose = {"path": _paths(names, paths, regain[1])}
            out.add(COMMANDS.template("move", must, fixed=fixed, choose=choose))
            break
    out.add(COMMANDS.template("move", label, fixed=fixed, choose={"path": _paths(names, paths)}))


def _paths(names: Names, paths: dict[str, list[str]], only: list[str] | None = None) -> Choice:
    wanted = None if only is None else set(only)
    ends = [h for h in sorted(paths) if wanted is None or h in wanted]
    return one_of([paths[h] for h in ends], [names.hex(h) for h in ends])


def _overrun(state: State, side: str, names: Names, out: Actions, hex_: str) -> None:
    """Rule 8 automatic victory: the units next to an enemy stack that together reach 6-1."""
    attackers = _eligible_around(state, side, hex_)
    if not attackers or any(o["hex"] == hex_ for o in state["overruns"]):
        return
    units = [state["units"][a] for a in attackers]
    if combat.assess(battle.situation(state, units, hex_))["column"] != "6-1":
        return
    label = f"Overrun {names.hex(hex_)} (6-1)"
    choose = {"attackers": some_of(attackers, [names.unit(a) for a in attackers])}
    out.add(COMMANDS.template("declare_overrun", label, fixed={"hex": hex_}, choose=choose))


def _enemy_hexes_adjacent(state: State, side: str) -> list[str]:
    grid = board.map_of(state).grid
    enemy = board.occupied(state, board.other(side))
    return sorted(
        {n for u in board.on_map(state, side) for n in grid.neighbours(u["hex"]) if n in enemy}
    )


def _eligible_around(state: State, side: str, hex_: str) -> list[str]:
    """The units that may attack ``hex_``, if together they may (tanks never attack alone)."""
    grid = board.map_of(state).grid
    found = [
        u["id"]
        for n in grid.neighbours(hex_)
        for u in board.units_at(state, n, side)
        if battle.eligible_attacker(state, u) is None
    ]
    kinds = {state["units"][i]["type"] for i in found}
    return sorted(found) if kinds - {"armor", "leader"} else []


def _air(state: State, side: str, names: Names, out: Actions) -> None:
    """Rule 8, phases E and F: the air points left this turn, on any hex that can be attacked."""
    available = sequence.available_air(state, side)
    points = [kind for kind, number in sorted(available.items()) for _ in range(number)]
    if not points:
        return
    role = "attack" if state["phase"] == "air_attack" else "defend"
    for hex_ in sequence.attackable_hexes(state):
        label = f"Air points to {role} at {names.hex(hex_)}"
        choose = {"air": some_of(points, points)}
        out.add(COMMANDS.template("allocate_air", label, fixed={"hex": hex_}, choose=choose))


def _combat(state: State, side: str, names: Names, out: Actions) -> None:
    if state["advance"]:
        _advance(state, names, out)
    for hex_ in sequence.attackable_hexes(state):
        label = f"Attack {names.hex(hex_)}"
        attackers = _eligible_around(state, side, hex_)
        if attackers:
            choose = {"attackers": some_of(attackers, [names.unit(a) for a in attackers])}
            out.add(COMMANDS.template("attack", label, fixed={"hex": hex_}, choose=choose))
        else:
            out.block("attack", label, "tanks may not attack by themselves", "2")


def _advance(state: State, names: Names, out: Actions) -> None:
    """Rule 8: the survivors of the last attack into the vacated hex, and on with unfilled results."""
    offer = state["advance"]
    label = f"Advance into {names.hex(offer['hex'])}"
    if not advance.advancers(state):
        first = state["units"][offer["units"][0]]
        problem = advance.entry_problem(state, first, offer["hex"]) or ("8", "")
        out.block("advance", label, problem[1], problem[0])
        return
    paths = advance.advance_paths(state)
    if not paths:
        return
    survivors = advance.advancers(state)
    choose = {
        "units": some_of(survivors, [names.unit(u) for u in survivors]),
        "path": one_of(paths, [names.hex(p[-1]) for p in paths]),
    }
    out.add(COMMANDS.template("advance", label, choose=choose))


BUILDERS: dict[str, Callable[[State, str, Names, Actions], None]] = {
    "deployment": _deployment,
    "reinforcements": _reinforcements,
    "air_attack": _air,
    "air_defense": _air,
    "combat": _combat,
}
