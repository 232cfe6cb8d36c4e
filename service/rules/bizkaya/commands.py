"""``decide``: each command's shape, the phase it belongs to and its handler."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State
from service.rules.bizkaya import barrage, battle, board, moves, sequence
from service.rules.bizkaya.sequence import Emitter

IMPULSE = ("operations", "reserve")
# command -> (phases or combat stages, {field: type}); optional fields are checked when present
COMMANDS: dict[str, tuple[tuple[str, ...], dict[str, type]]] = {
    "roll_weather": (("weather",), {}),
    "place_leader": (("admin",), {"leader": str, "unit": str}),
    "reserve": (("admin",), {"units": list}),
    "eliminate": (("admin",), {"units": list}),
    "set_echelon": (("admin", *IMPULSE), {"units": list, "echelon": int}),
    "end_admin": (("admin",), {}),
    "entrench": (("supply",), {"unit": str}),
    "end_supply": (("supply",), {}),
    "move": (IMPULSE, {"units": list, "path": list}),
    "activate": (("reserve",), {"units": list}),
    "barrage": (IMPULSE, {"hex": str}),
    "attack": (IMPULSE, {"hex": str, "units": list}),
    "end_impulse": (IMPULSE, {}),
    "stop_operations": (("operations",), {}),
    "choose_leader": (("combat:leaders",), {"unit": str}),
    "hold": (("combat:retreat",), {}),
    "retreat": (("combat:retreat",), {"moves": list}),
    "advance": (("combat:advance",), {"units": list}),
}
OPTIONAL = {"echelon": int, "artillery": list, "air": int, "losses": list}


def check_shape(state: State, command: Mapping[str, Any]) -> str:
    if not isinstance(command, Mapping):
        raise InvalidCommand("a command must be an object", {"command": ["not an object"]})
    kind = command.get("type")
    if kind not in COMMANDS:
        raise InvalidCommand("unknown command", {"type": [f"must be one of {', '.join(COMMANDS)}"]})
    problems: dict[str, list[str]] = {}
    fields = dict(COMMANDS[kind][1])
    fields.update({k: v for k, v in OPTIONAL.items() if k in command and k not in fields})
    for name, expected in fields.items():
        value = command.get(name)
        if not isinstance(value, expected) or isinstance(value, bool):
            problems[name] = [f"required, a{'n' if expected is int else ''} {expected.__name__}"]
        elif (
            isinstance(value, list)
            and name != "moves"
            and not all(isinstance(i, str) for i in value)
        ):
            problems[name] = ["must be a list of strings"]
    for name in ("units", "artillery", "losses"):
        if isinstance(command.get(name), list):
            unknown = [i for i in command[name] if isinstance(i, str) and i not in state["units"]]
            if unknown:
                problems[name] = [f"unknown unit {i}" for i in unknown]
    if isinstance(command.get("unit"), str) and command["unit"] not in state["units"]:
        problems["unit"] = [f"unknown unit {command['unit']}"]
    grid = board.map_of(state).grid
    hexes = [command["hex"]] if isinstance(command.get("hex"), str) else []
    hexes += command["path"] if isinstance(command.get("path"), list) else []
    bad = [h for h in hexes if not isinstance(h, str) or not grid.in_bounds(h)]
    if bad:
        problems["hex" if "hex" in command else "path"] = [f"unknown hex {h}" for h in bad]
    if problems:
        raise InvalidCommand(f"invalid {kind} command", problems)
    return str(kind)


def where(state: State) -> str:
    combat = state.get("combat")
    return f"combat:{combat['stage']}" if combat else str(state["phase"])


def decide(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list[RulesEvent]:
    kind = check_shape(state, command)
    if state["phase"] == "over":
        raise RuleViolation("16", "the game is over")
    acting = sequence.acting_side(state)
    if side != acting:
        raise RuleViolation(
            "2", f"it is the {acting} player's turn to act ({where(state)})", "side"
        )
    if where(state) not in COMMANDS[kind][0]:
        raise RuleViolation("2", f"{kind} is not allowed now ({where(state)})", "type")
    em = Emitter(state)
    handler = HANDLERS[kind]
    handler(em, side, command, dice)
    return em.events


def _weather(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    sequence.roll_weather(em, dice)


def _end_admin(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    s = em.state
    over = board.overstacked(s, side)
    if over:
        raise RuleViolation(
            "4", f"overstacked: {', '.join(over)}: eliminate units or change echelons"
        )
    if side == "nationalist" and board.on_map(s, side):
        unplaced = [leader["name"] for leader in s["leaders"].values() if leader["unit"] is None]
        if unplaced:
            raise RuleViolation("8", f"place {', '.join(unplaced)} on a stack first")
    sequence.begin_supply(em)


def _end_supply(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    em.emit("PhaseBegan", {"side": side, "phase": "operations", "impulse": 1})


def _end_impulse(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    due = barrage.unanswered(em.state, side)
    if due:
        raise RuleViolation("12", f"a barrage must be followed by an attack on {', '.join(due)}")
    sequence.end_impulse(em, dice)


def _stop(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """2, 13: the active player may stop its operations instead of making an impulse."""
    if em.state["acted"]:
        raise RuleViolation("13", "operations stop at the start of an impulse; end this one first")
    sequence.end_player_phase(em, dice)


def _plain(handler: Any) -> Any:
    def run(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
        handler(em, side, command)

    return run


HANDLERS: dict[str, Any] = {
    "roll_weather": _weather,
    "place_leader": _plain(moves.place_leader),
    "reserve": _plain(moves.reserve),
    "eliminate": _plain(moves.eliminate),
    "set_echelon": _plain(moves.set_echelon),
    "end_admin": _end_admin,
    "entrench": _plain(moves.entrench),
    "end_supply": _end_supply,
    "move": _plain(moves.move),
    "activate": _plain(moves.activate),
    "barrage": barrage.barrage,
    "attack": battle.declare,
    "end_impulse": _end_impulse,
    "stop_operations": _stop,
    "choose_leader": battle.choose_leader,
    "hold": battle.hold,
    "retreat": battle.retreat,
    "advance": _plain(battle.advance),
}
