"""Ending a phase (rule 4) and what a rule still requires before it ends (rules 6, 8, 10, 12), and
the air allocation of phases E and F (rule 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, RulesEvent, RuleViolation, State
from service.rules.declare import Hex, Texts
from service.rules.merida import battle, board, reach, reinforce, sequence
from service.rules.merida.commands import COMMANDS


@COMMANDS.command(
    "end_phase",
    doc="Rule 4: the acting player ends the phase; the server runs the automatic phases (supply, "
    "command and its retreats) on to the next decision.",
)
def end_phase(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    end_problem(state, side)
    return sequence.advance_events(state)


@COMMANDS.command(
    "allocate_air",
    phases=("air_attack", "air_defense"),
    doc="Rule 8, phases E and F: air points are placed on a combat hex, with no range or stacking "
    "limits.",
    hex=Hex(),
    air=Texts(),
)
def allocate_air(
    state: State, side: str, command: Mapping[str, Any], dice: Dice
) -> list[RulesEvent]:
    """Phases E and F: air points are placed on combat hexes, with no range or stacking limits."""
    hex_ = command["hex"]
    if hex_ not in sequence.attackable_hexes(state):
        name = board.hex_name(state, hex_)
        raise RuleViolation("4", f"{name} is not a hex that can be attacked this phase", "hex")
    available = sequence.available_air(state, side)
    wanted: dict[str, int] = {}
    for kind in command["air"]:
        wanted[kind] = wanted.get(kind, 0) + 1
    if not wanted or any(n > available.get(kind, 0) for kind, n in wanted.items()):
        raise RuleViolation("8", f"air points available: {available or 'none'}", "air")
    role = "attack" if state["phase"] == "air_attack" else "defense"
    return [
        RulesEvent(
            "AirAllocated", {"side": side, "hex": hex_, "air": list(command["air"]), "role": role}
        )
    ]


def end_problem(state: State, side: str, planner: reach.Planner | None = None) -> None:
    """Refuse to end a phase while a rule still requires something of the player (``planner``:
    the movement phase's, when the caller has one)."""
    phase = state["phase"]
    if phase == "deployment":
        for hex_ in reinforce.overstacked(state, side):
            raise RuleViolation(
                "6",
                f"{board.hex_name(state, hex_)} is overstacked: deploy within one hex to correct it",
            )
    elif phase == "reinforcements":
        problem = reinforce.unfinished(state, side)
        if problem:
            raise RuleViolation(problem[0], problem[1])
    elif phase == "movement":
        _regained(planner or reach.Planner(state, side))
        _together(state, side)
    elif phase == "combat":
        _combat_done(state)


def _together(state: State, side: str) -> None:
    """Set up table note: units that began the game stacked with a leader remain with it on turn 1
    (``moves.check_move`` never separates them; this holds whatever else moved them)."""
    if state["turn"] != 1:
        return
    for unit in board.on_map(state, side):
        leader = state["units"].get(unit["stay_with"] or "")
        if leader and leader["status"] == "map" and leader["hex"] != unit["hex"]:
            raise RuleViolation(
                "12",
                f"{unit['name']} began the game with {leader['name']} and must remain with that "
                "leader for turn 1",
            )


def _regained(planner: reach.Planner) -> None:
    """Rule 10: units out of supply or out of command must move to regain their line if they can."""
    state = planner.state
    for unit in board.on_map(state, planner.side):
        regain = planner.regain_hexes(unit)
        if regain is not None:
            raise RuleViolation(
                "10",
                f"{unit['name']} is out of {regain[0]} and must move to regain its line "
                f"({_reach_words(state, regain[1])})",
            )


def _reach_words(state: State, hexes: list[str]) -> str:
    """The hexes that regain a line, as many as the move offers (a long list by its count and
    its first few): "it can reach A8", "it can reach any of 3 hexes: A8, B8 or B9"."""
    names = [board.hex_name(state, h) for h in hexes]
    if len(names) == 1:
        return f"it can reach {names[0]}"
    if len(names) <= 6:
        return f"it can reach any of {len(names)} hexes: {', '.join(names[:-1])} or {names[-1]}"
    return f"it can reach any of {len(names)} hexes, among them {', '.join(names[:5])}"


def _combat_done(state: State) -> None:
    """Rule 8: every unit that began the combat phase in an enemy ZOC attacks, and every enemy unit
    exerting a ZOC on them is attacked, as long as an attack is still possible."""
    grid = board.map_of(state).grid
    side = state["side"]
    free_hexes = set(sequence.attackable_hexes(state))
    for unit_id in state["must_attack"]:
        unit = state["units"][unit_id]
        if unit["status"] != "map" or unit["type"] == "armor":
            continue
        if battle.eligible_attacker(state, unit) == "8":  # fought already this turn
            continue
        if any(h in free_hexes for h in grid.neighbours(unit["hex"])):
            raise RuleViolation("8", f"{unit['name']} is in an enemy ZOC and must attack")
    for unit_id in state["must_be_attacked"]:
        unit = state["units"][unit_id]
        if unit["status"] != "map" or not battle.may_be_attacked(state, unit):
            continue
        if unit["hex"] in free_hexes and _can_be_attacked(state, side, unit["hex"]):
            raise RuleViolation(
                "8", f"{unit['name']} exerts a ZOC on your units and must be attacked"
            )


def _can_be_attacked(state: State, side: str, hex_: str) -> bool:
    return any(
        battle.eligible_attacker(state, u) is None and board.is_combat(u) and u["type"] != "armor"
        for n in board.map_of(state).grid.neighbours(hex_)
        for u in board.units_at(state, n, side)
    )
