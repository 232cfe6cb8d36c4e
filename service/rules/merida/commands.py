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
    acting = board.acting_side(state)
    if side != acting:
        raise RuleViolation("4", f"it is the {acting} player's {state['phase']} phase")
    _in_phase(state, side, spec, state["phase"])


COMMANDS = Commands("merida", guard=check_turn, refs=HexRefs())
