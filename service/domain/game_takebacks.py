"""Takebacks: a player asks to take back its latest commands, and the opponent accepts (they are
retracted) or declines.

A game's ``tail`` holds the side that acted last, the seqs of its commands since the other side
acted (``commands``) and why none may be taken back any more (``cut``: dice rolled or hidden
information revealed since).  Its ``takeback`` is the pending request, if any.

Pure: each command checks the game (:class:`~service.domain.game.Game`), raising a domain error,
and yields the events the game records (``game_data.Steps``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.domain.errors import Conflict, Forbidden, Unprocessable
from service.domain.game_data import ACTIVE, Steps, copy_json
from service.domain.game_play import require_active, require_player

if TYPE_CHECKING:
    from service.domain.game import Game


def policy(game: Game) -> str:
    """never, casual (not in a rated game) or always (the default)."""
    return str(game.labels.get("takeback_policy", "always"))


def forbidden(game: Game, policy: str) -> bool:
    return policy == "never" or (policy == "casual" and bool(game.labels.get("rated")))


def offer(game: Game) -> dict[str, Any] | None:
    """The side whose latest commands a take back may ask for now and their seqs, or None
    (no command since the other side acted, dice rolled or information revealed since, the
    game not under way, or its policy forbids take backs)."""
    if game.status != ACTIVE or forbidden(game, policy(game)) or not game.tail["commands"]:
        return None
    return {"side": game.tail["side"], "seqs": list(game.tail["commands"])}


def request_takeback(game: Game, side: str, user: str, from_seq: int | None) -> Steps[str]:
    """Ask to take back ``side``'s latest commands from ``from_seq`` (default: the last one);
    returns the request's id.  Allowed while no die has been rolled and no hidden information
    revealed by them, and the opponent has not acted since; the game's policy may forbid
    takebacks."""
    rule = policy(game)
    if forbidden(game, rule):
        raise Forbidden("takebacks are not allowed in this game", {"takeback": [f"policy: {rule}"]})
    require_active(game)
    require_player(game, side, user)
    mine = game.tail["side"] == side
    commands = game.tail["commands"] if mine else []
    if not commands and mine and game.tail["cut"] == "dice":
        raise Conflict(
            "dice have been rolled since; no takeback", {"takeback": ["dice were rolled"]}
        )
    if not commands and mine and game.tail["cut"] == "reveals":
        raise Conflict(
            "hidden information has been revealed since; no takeback",
            {"takeback": ["hidden information was revealed"]},
        )
    if not commands:
        raise Conflict(
            "there is nothing of yours to take back: the opponent has acted since",
            {"takeback": ["no own command since the opponent last acted"]},
        )
    first = commands[-1] if from_seq is None else from_seq
    if first not in commands:
        raise Unprocessable(
            f"seq {first} is not one of your latest commands",
            {"from_seq": [f"one of {', '.join(map(str, commands))}"]},
        )
    if game.takeback is not None:
        raise Conflict("a takeback request is already pending", {"takeback": ["already pending"]})
    request = f"t{game.version + 1}"
    yield (
        game.TakebackRequested,
        {"request": request, "side": side, "user": user, "from_seq": first},
    )
    return request


def answer_takeback(
    game: Game, side: str, user: str, accept: bool, restored_state: Mapping[str, Any] | None
) -> Steps[None]:
    """The opponent accepts the pending request (its commands are retracted, the live game events
    from its first on, and play resumes from ``restored_state``) or declines it."""
    pending = game.takeback
    if pending is None:
        raise Conflict("no takeback request is pending", {"takeback": ["nothing to answer"]})
    require_player(game, side, user)
    if side == pending["side"]:
        raise Forbidden(
            "only the opponent answers a takeback request", {"side": ["you asked for it"]}
        )
    request = pending["request"]
    answered = {"request": request, "side": side, "user": user, "accepted": accept}
    yield game.TakebackAnswered, answered
    if accept:
        if restored_state is None:
            raise ValueError("an accepted takeback needs the state to restore")
        skip = set(game.retracted) | set(game.bookkeeping)
        seqs = [s for s in range(pending["from_seq"], game.version) if s not in skip]
        restored = copy_json(dict(restored_state))
        yield (
            game.Retracted,
            {"seqs": seqs, "restored_state": restored, "reason": "takeback", "ref": request},
        )
