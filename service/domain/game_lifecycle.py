"""A game's life around its rules (``service/application/lifecycle.py``), but for its clock
(``service.domain.game_clock``): the invitations before play, and the draws, resignations and
adjudications that end a game before its rules do.

Pure: each command checks the game (:class:`~service.domain.game.Game`), raising a domain error,
and yields the events the game records (``game_data.Steps``); the rest computes what the events
hold (a result, an invitation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.domain.errors import Conflict, Forbidden, Invalid
from service.domain.game_data import DECLINED, ENDED, INVITED, Steps, copy_json
from service.domain.game_play import own_side, require_active

if TYPE_CHECKING:
    from service.domain.game import Game

#: how an arbiter ends a game from outside play (a club event's round past its deadline)
ADJUDICATIONS = ("forfeit", "adjudication")


# -- invitations -----------------------------------------------------------------------------------
def invite(game: Game, by: str) -> Steps[list[str]]:
    """Right after creation: every named player but ``by`` must accept before play starts.
    Returns who must accept (nothing is recorded when nobody must)."""
    pending = list(dict.fromkeys(u for u in game.sides.values() if u != by))
    if pending:
        if game.version != game.INITIAL_VERSION:
            raise Conflict("only a new game invites", {"game": ["already under way"]})
        yield game.Invited, {"pending": pending, "by": by}
    return pending


def invited_side(game: Game, user: str) -> str:
    """The side of ``user``, who is still to answer the game's invitation."""
    if game.status != INVITED or game.invitation is None:
        raise Conflict("there is no invitation to answer", {"game": [f"the game is {game.status}"]})
    if user not in game.invitation["pending"]:
        mine = game.side_of(user)
        raise Forbidden(
            "this invitation is not yours to answer"
            if not mine
            else "you have already accepted this invitation",
            {"user": ["not invited to this game" if not mine else "already accepted"]},
        )
    return game.side_of(user)[0]


def accept_invitation(game: Game, user: str) -> Steps[None]:
    yield game.InvitationAccepted, {"user": user, "side": invited_side(game, user)}


def decline_invitation(game: Game, user: str) -> Steps[None]:
    yield game.InvitationDeclined, {"user": user, "side": invited_side(game, user)}


def accepted(invitation: Mapping[str, Any] | None, user: str) -> dict[str, Any]:
    """The invitation once ``user`` accepted it (``Game.InvitationAccepted``)."""
    out: dict[str, Any] = copy_json(invitation or {"pending": [], "accepted": []})
    out["pending"] = [u for u in out["pending"] if u != user]
    out["accepted"].append(user)
    return out


def declined(invitation: Mapping[str, Any] | None, user: str) -> dict[str, Any]:
    """The invitation once ``user`` declined it (``Game.InvitationDeclined``)."""
    out: dict[str, Any] = copy_json(invitation or {"pending": [], "accepted": []})
    out["declined"] = user
    return out


# -- results before the rules' ---------------------------------------------------------------------
def others(game: Game, side: str) -> list[str]:
    return [s for s in game.sides if s != side]


def loss_of(game: Game, side: str, reason: str) -> dict[str, Any]:
    """The result when ``side`` loses by ``reason`` (resignation, timeout, abandon), in the shape
    of the rules' own results so that ladders and campaigns take it as a played-out one."""
    rest = others(game, side)
    winner = rest[0] if len(rest) == 1 else None
    return {
        "winner": winner,
        "outcome": "win" if winner else "loss",
        "level": reason,
        "reason": reason,
        "loser": side,
    }


def resign(game: Game, side: str, user: str, seed: str) -> Steps[None]:
    require_active(game)
    own_side(game, side, user)
    yield game.Resigned, {"side": side, "user": user}
    yield game.Ended, {"result": loss_of(game, side, "resignation"), "seed": seed}


def adjudicate(
    game: Game, arbiter: str, kind: str, winner: str | None, note: str, seed: str
) -> Steps[None]:
    """End the game from outside play (a club event's arbiter, after the round's deadline):
    ``winner`` wins by ``kind`` (forfeit or adjudication), or a draw when None.  The game may
    still wait for its invitations (a player who never accepted forfeits it too)."""
    if game.status in (ENDED, DECLINED):
        raise Conflict("the game is over", {"game": ["it has ended already"]})
    if arbiter in game.sides.values():
        raise Forbidden("a player of this game may not decide it", {"arbiter": ["plays this game"]})
    if kind not in ADJUDICATIONS:
        raise Invalid("unknown kind of result", {"kind": [" or ".join(ADJUDICATIONS)]})
    if winner is not None and winner not in game.sides:
        raise Invalid(f"no side {winner!r}", {"winner": [", ".join(game.sides) + " or null"]})
    adjudicated = {"arbiter": arbiter, "kind": kind, "winner": winner, "note": note[:500]}
    yield game.Adjudicated, adjudicated
    losers = others(game, winner) if winner is not None else []
    result: dict[str, Any] = {
        "winner": winner,
        "outcome": "win" if winner else "draw",
        "level": kind,
        "reason": kind,
    }
    if len(losers) == 1:
        result["loser"] = losers[0]
    yield game.Ended, {"result": result, "seed": seed}


# -- draws -----------------------------------------------------------------------------------------
def offer_draw(game: Game, side: str, user: str) -> Steps[None]:
    """``side`` offers a draw, while no offer is pending, its own or its opponent's."""
    require_active(game)
    own_side(game, side, user)
    offer = game.draw_offer
    if offer is not None and offer["side"] == side:
        raise Conflict(
            "you have already offered a draw",
            {"draw": ["already offered; wait for the answer"]},
        )
    if offer is not None:
        raise Conflict(
            f"{offer['side']} has offered a draw: accept or decline it",
            {"draw": ["an offer from your opponent is pending; answer it"]},
        )
    yield game.DrawOffered, {"side": side, "user": user}


def _draw_to_answer(game: Game, side: str, user: str) -> None:
    """``side`` may answer the pending draw offer: its opponent made it."""
    require_active(game)
    own_side(game, side, user)
    offer = game.draw_offer
    if offer is None:
        raise Conflict("no draw offer is pending", {"draw": ["nothing to answer"]})
    if offer["side"] == side:
        raise Forbidden("only the opponent answers a draw offer", {"side": ["you offered it"]})


def accept_draw(game: Game, side: str, user: str, seed: str) -> Steps[None]:
    _draw_to_answer(game, side, user)
    result = {"winner": None, "outcome": "draw", "level": "draw", "reason": "agreement"}
    yield game.Ended, {"result": result, "seed": seed}


def decline_draw(game: Game, side: str, user: str) -> Steps[None]:
    _draw_to_answer(game, side, user)
    yield game.DrawDeclined, {"side": side, "user": user}
