"""The declared commands of Closing the Merida Pocket (``COMMANDS``) and their guard.

Each command type is declared once, with its typed fields and the phases it belongs to, on the
decision that handles it (``reinforce``, ``moves``, ``battle``, ``advance``, ``phases``): a command
that does not match its declaration is an ``InvalidCommand`` naming the field before any rule runs.
The guard then applies rule 4 (the acting player, in the command's phase) and rule 11 (the game is
over)."""

from __future__ import annotations

from service.rules.base import RuleViolation, State
from service.rules.declare import Commands, CommandSpec, guard_phase
from service.rules.hexgame import HexRefs
from service.rules.merida import board

_in_phase = guard_phase("4")


def check_turn(state: State, side: str, spec: CommandSpec) -> None:
    """Rule 4 (and 11): a command only by the acting side, in its phase."""
    if state["phase"] == "over":
        raise RuleViolation("11", "the game is over")
    steps = state.get("pending") or []
    if steps:  # issue 19: a decision the rules leave to a unit's owner comes first
        head = steps[0]
        wanted = "choose_loss" if head["kind"] == "loss" else "choose_retreat"
        choice = "the units lost" if head["kind"] == "loss" else "a retreat path"
        if side != head["side"]:
            raise RuleViolation(
                head["rule"], f"the game waits for the {head['side']} player to choose {choice}"
            )
        if spec.type != wanted:
            raise RuleViolation(head["rule"], f"choose {choice} first ({wanted})", "type")
        return
    if spec.type in ("choose_loss", "choose_retreat"):
        raise RuleViolation("8", "no loss or retreat is waiting for a decision", "type")
    acting = board.acting_side(state)
    if side != acting:
        raise RuleViolation("4", f"it is the {acting} player's {state['phase']} phase")
    _in_phase(state, side, spec, state["phase"])


COMMANDS = Commands("merida", guard=check_turn, refs=HexRefs())
