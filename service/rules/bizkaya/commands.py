"""The declared commands of Bizkaya: each command's fields and the phases (or combat stages) it
belongs to, on the decision that handles it.  A malformed command is refused before any rule runs
(:mod:`service.rules.declare`); the guard then checks whose turn and which phase (2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.rules.base import Dice, InvalidCommand, RulesEvent, RuleViolation, State
from service.rules.bizkaya import barrage, battle, board, moves, sequence
from service.rules.bizkaya.events import emit, emitter
from service.rules.declare import (
    Commands,
    CommandSpec,
    Count,
    Emitter,
    Hex,
    Nested,
    Path,
    Text,
    Unit,
    Units,
    guard_phase,
)
from service.rules.hexgame import HexNames, HexRefs

IMPULSE = ("operations", "reserve")
_in_phase = guard_phase("2")


def where(state: State) -> str:
    """The phase, or the stage of the pending combat (``combat:leaders``, ``combat:retreat`` ...)."""
    combat = state.get("combat")
    return f"combat:{combat['stage']}" if combat else str(state["phase"])


def check_turn(state: State, side: str, spec: CommandSpec) -> None:
    """16: nothing once the game is over; 2: the side whose turn it is, in the command's phase."""
    if state["phase"] == "over":
        raise RuleViolation("16", "the game is over")
    acting = sequence.acting_side(state)
    if side != acting:
        raise RuleViolation(
            "2", f"it is the {acting} player's turn to act ({where(state)})", "side"
        )
    _in_phase(state, side, spec, where(state))


COMMANDS = Commands("bizkaya", guard=check_turn, refs=HexRefs())
Decision = Callable[[Emitter, str, Mapping[str, Any], Dice], None]


def _decided(decision: Decision) -> Callable[[State, str, Mapping[str, Any], Dice], list]:
    """A decision on a look-ahead emitter, as a declared handler returning its events."""

    def handler(state: State, side: str, command: Mapping[str, Any], dice: Dice) -> list:
        em = emitter(state)
        decision(em, side, command, dice)
        events: list[RulesEvent] = em.events
        return events

    handler.__doc__ = decision.__doc__
    return handler


def _no_dice(decision: Callable[[Emitter, str, Mapping[str, Any]], None]) -> Decision:
    def run(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
        decision(em, side, command)

    run.__doc__ = decision.__doc__
    return run


def _declare(type: str, phases: tuple[str, ...], decision: Decision, **fields: Any) -> None:
    COMMANDS.command(type, phases=phases, doc=(decision.__doc__ or "").strip(), **fields)(
        _decided(decision)
    )


# -- decisions of the sequence of play ---------------------------------------------------------


def roll_weather(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """3: the Nationalist rolls for the weather; the administrative segment follows."""
    sequence.roll_weather(em, dice)


def end_admin_refusal(state: State, side: str) -> RuleViolation | None:
    """4: overstacked stacks must be corrected; 8: both leaders placed on a stack first."""
    over = board.overstacked(state, side)
    if over:
        return RuleViolation(
            "4", f"overstacked: {', '.join(over)}: eliminate units or change echelons"
        )
    if side == "nationalist" and board.on_map(state, side):
        unplaced = [
            leader["name"] for leader in state["leaders"].values() if leader["unit"] is None
        ]
        if unplaced:
            return RuleViolation("8", f"place {', '.join(unplaced)} on a stack first")
    return None


def end_admin(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """2: the administrative segment ends; the supply phase follows (10)."""
    refusal = end_admin_refusal(em.state, side)
    if refusal:
        raise refusal
    sequence.begin_supply(em)


def end_supply(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """2: the supply phase ends; the first operations impulse follows (13)."""
    emit(em, "PhaseBegan", {"side": side, "phase": "operations", "impulse": 1})


def end_impulse_refusal(state: State, side: str) -> RuleViolation | None:
    """12: a barraged hex must be attacked while an attack on it is possible."""
    due = barrage.unanswered(state, side)
    if due:
        names = ", ".join(HexNames(state).hex(h) for h in due)
        return RuleViolation("12", f"a barrage must be followed by an attack on {names}")
    return None


def end_impulse(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """13: the impulse ends: the opponent's reserve impulse, the next impulse or the next phase."""
    refusal = end_impulse_refusal(em.state, side)
    if refusal:
        raise refusal
    sequence.end_impulse(em, dice)


STOP_RULE = ("13", "operations stop at the start of an impulse; end this one first")


def stop_operations(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """2, 13: the active player may stop its operations instead of making an impulse."""
    if em.state["acted"]:
        raise RuleViolation(*STOP_RULE)
    sequence.end_player_phase(em, dice)


def place_leader(em: Emitter, side: str, command: Mapping[str, Any]) -> None:
    """8: the Nationalist places each leader on one of his stacks."""
    if command["leader"] not in em.state["leaders"]:
        known = ", ".join(em.state["leaders"]) or "none"
        raise InvalidCommand("unknown leader", {"leader": [f"must be one of {known}"]})
    moves.place_leader(em, side, command)


def retreat(em: Emitter, side: str, command: Mapping[str, Any], dice: Dice) -> None:
    """13: the loser's units retreat, group by group (``moves``), or are eliminated."""
    refs, problems = COMMANDS.refs, {}
    for index, move in enumerate(command["moves"]):
        bad = [f"unknown unit {u}" for u in move["units"] if not refs.unit(em.state, u)]
        bad += [f"unknown hex {h}" for h in move["path"] if not refs.hex(em.state, h)]
        if bad:
            problems[f"moves[{index}]"] = bad
    if problems:
        raise InvalidCommand("invalid retreat command", problems)
    battle.retreat(em, side, command, dice)


_declare("roll_weather", ("weather",), roll_weather)
_declare("place_leader", ("admin",), _no_dice(place_leader), leader=Text(), unit=Unit())
_declare("reserve", ("admin",), _no_dice(moves.reserve), units=Units(min=1))
_declare("eliminate", ("admin",), _no_dice(moves.eliminate), units=Units(min=1))
_declare(
    "set_echelon",
    ("admin", *IMPULSE),
    _no_dice(moves.set_echelon),
    units=Units(min=1),
    echelon=Count(minimum=1, maximum=2),
)
_declare("end_admin", ("admin",), end_admin)
_declare("entrench", ("supply",), _no_dice(moves.entrench), unit=Unit())
_declare("end_supply", ("supply",), end_supply)
_declare(
    "move",
    IMPULSE,
    _no_dice(moves.move),
    units=Units(min=1),
    path=Path(min=2),
    echelon=Count(required=False, minimum=1, maximum=2),
)
_declare("activate", ("reserve",), _no_dice(moves.activate), units=Units(min=1))
_declare(
    "barrage",
    IMPULSE,
    barrage.barrage,
    hex=Hex(),
    artillery=Units(required=False),
    air=Count(required=False),
    losses=Units(required=False),
)
_declare("attack", IMPULSE, battle.declare, hex=Hex(), units=Units(min=1))
_declare("end_impulse", IMPULSE, end_impulse)
_declare("stop_operations", ("operations",), stop_operations)
_declare(
    "choose_leader",
    ("combat:leaders",),
    battle.choose_leader,
    unit=Unit(),
    losses=Units(required=False),
)
_declare("hold", ("combat:retreat",), battle.hold)
_declare(
    "retreat",
    ("combat:retreat",),
    retreat,
    moves=Nested({"units": Units(min=1), "path": Path(min=2)}, many=True),
)
_declare("advance", ("combat:advance",), _no_dice(battle.advance), units=Units())
