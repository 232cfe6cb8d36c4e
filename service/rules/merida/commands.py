"""``decide``: the shape of each command, the phase it belongs to, and the checks that end a phase."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State
from service.rules.merida import advance, battle, board, moves, reinforce, sequence

# command type -> (phases, {field: type})
COMMANDS: dict[str, tuple[tuple[str, ...], dict[str, type]]] = {
    "deploy": (("deployment",), {"unit": str, "hex": str}),
    "place_reinforcement": (("reinforcements",), {"unit": str, "hex": str}),
    "remove": (("reinforcements",), {"unit": str}),
    "keep": (("reinforcements",), {"unit": str}),
    "reorganize": (("reinforcements",), {"units": list, "return": str, "leader": str}),
    "move": (("movement",), {"units": list, "path": list}),
    "declare_overrun": (("movement",), {"hex": str, "attackers": list}),
    "allocate_air": (("air_attack", "air_defense"), {"hex": str, "air": list}),
    "attack": (("combat",), {"attackers": list, "hex": str}),
    "advance": (("combat",), {"units": list, "path": list}),
    "end_phase": ((), {}),
}


def check_shape(state: State, command: Mapping[str, Any]) -> str:
    if not isinstance(command, Mapping):
        raise InvalidCommand("a command must be an object", {"command": ["not an object"]})
    kind = command.get("type")
    if kind not in COMMANDS:
        raise InvalidCommand("unknown command", {"type": [f"must be one of {', '.join(COMMANDS)}"]})
    problems: dict[str, list[str]] = {}
    for name, expected in COMMANDS[kind][1].items():
        value = command.get(name)
        if not isinstance(value, expected):
            problems[name] = [f"required, a {'list' if expected is list else 'string'}"]
        elif isinstance(value, list) and not all(isinstance(item, str) for item in value):
            problems[name] = ["must be a list of strings"]
    for name in ("units", "attackers"):
        if isinstance(command.get(name), list):
            unknown = [i for i in command[name] if i not in state["units"]]
            if unknown:
                problems.setdefault(name, [f"unknown unit {i}" for i in unknown])
    for name in ("unit", "return", "leader", "instead"):
        if isinstance(command.get(name), str) and command[name] not in state["units"]:
            problems[name] = [f"unknown unit {command[name]}"]
    grid = board.map_of(state).grid
    hexes = [command.get("hex")] if isinstance(command.get("hex"), str) else []
    hexes += command.get("path", []) if isinstance(command.get("path"), list) else []
    bad = [h for h in hexes if not isinstance(h, str) or not grid.in_bounds(h)]
    if bad:
        problems.setdefault(
            "hex" if "hex" in command else "path", [f"unknown hex {h}" for h in bad]
        )
    if problems:
        raise InvalidCommand(f"invalid {kind} command", problems)
    return str(kind)


def check_turn(state: State, side: str, kind: str) -> None:
    """Rule 4 (and 11): a command of ``kind`` only by the acting side, in its phase."""
    if state["phase"] == "over":
        raise RuleViolation("11", "the game is over")
    if side != sequence.acting_side(state):
        raise RuleViolation(
            "4", f"it is the {sequence.acting_side(state)} player's {state['phase']} phase"
        )
    phases = COMMANDS[kind][0]
    if phases and state["phase"] not in phases:
        raise RuleViolation("4", f"{kind} is not allowed in the {state['phase']} phase", "type")


def decide(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    kind = check_shape(state, command)
    check_turn(state, side, kind)
    if kind == "end_phase":
        end_problem(state, side)
        return sequence.advance_events(state)
    handler = {
        "deploy": reinforce.deploy,
        "place_reinforcement": reinforce.place,
        "remove": reinforce.remove,
        "keep": reinforce.keep,
        "reorganize": reinforce.reorganize,
        "move": moves.check_move,
        "declare_overrun": battle.declare_overrun,
        "allocate_air": allocate_air,
        "advance": advance.check_advance,
    }.get(kind)
    if handler is not None:
        return handler(state, side, command)
    return battle.resolve_attack(state, side, command, dice)


def allocate_air(state: State, side: str, command: Mapping[str, Any]) -> list[RulesEvent]:
    """Phases E and F: air points are placed on combat hexes, with no range or stacking limits."""
    hex_ = command["hex"]
    if hex_ not in sequence.attackable_hexes(state):
        raise RuleViolation("4", f"{hex_} is not a hex that can be attacked this phase", "hex")
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


def end_problem(state: State, side: str) -> None:
    """Refuse to end a phase while a rule still requires something of the player."""
    phase = state["phase"]
    if phase == "deployment":
        for hex_ in reinforce.overstacked(state, side):
            raise RuleViolation("6", f"{hex_} is overstacked: deploy within one hex to correct it")
    elif phase == "reinforcements":
        problem = reinforce.unfinished(state, side)
        if problem:
            raise RuleViolation(problem[0], problem[1])
    elif phase == "movement":
        _regained(state, side)
    if phase == "movement" and state["turn"] == 1:
        for unit in board.on_map(state, side):
            leader = state["units"].get(unit["stay_with"] or "")
            if leader and leader["status"] == "map" and leader["hex"] != unit["hex"]:
                raise RuleViolation(
                    "12",
                    f"{unit['name']} began the game with {leader['name']} and must remain with that leader for turn 1",
                )
    elif phase == "combat":
        _combat_done(state)


def _regained(state: State, side: str) -> None:
    """Rule 10: units out of supply or out of command must move to regain their line if they can."""
    for unit in board.on_map(state, side):
        regain = moves.regain_hexes(state, unit)
        if regain is not None:
            raise RuleViolation(
                "10",
                f"{unit['name']} is out of {regain[0]} and must move to regain its line "
                f"(it can reach {', '.join(regain[1][:5])})",
            )


def _combat_done(state: State) -> None:
    """Rule 8: every unit that began the combat phase in an enemy ZOC attacks, and every enemy unit
    exerting a ZOC on them is attacked, as long as an attack is still possible."""
    grid = board.map_of(state).grid
    side = state["side"]
    free_hexes = set(sequence.attackable_hexes(state))
    for unit_id in state["must_attack"]:
        unit = state["units"][unit_id]
        if unit["status"] != "map" or unit["attacked"] or unit["type"] == "armor":
            continue
        if any(h in free_hexes for h in grid.neighbours(unit["hex"])):
            raise RuleViolation("8", f"{unit['name']} is in an enemy ZOC and must attack")
    for unit_id in state["must_be_attacked"]:
        unit = state["units"][unit_id]
        if unit["status"] != "map" or unit["defended"]:
            continue
        if unit["hex"] in free_hexes and any(
            battle.eligible_attacker(state, u) is None
            and board.is_combat(u)
            and u["type"] != "armor"
            for n in grid.neighbours(unit["hex"])
            for u in board.units_at(state, n, side)
        ):
            raise RuleViolation(
                "8", f"{unit['name']} exerts a ZOC on your units and must be attacked"
            )
