"""A club arbiter ends a game from outside play (issue 30's forfeit or adjudication, after a club
event's round deadline): ``Game.Adjudicated`` then ``Ended``, a game rebuilt
from its events the same; never by a player of the game, never twice."""

from __future__ import annotations

import pytest

from service.domain.errors import Conflict, Forbidden, Invalid
from service.domain.game import ENDED, Game, projector
from tests.unit.domain.test_clock_projection import ALICE, PORTS, SEED, new_game

ARBITER = "u-arbiter"


def adjudicate(game: Game, winner: str | None, kind: str = "forfeit", by: str = ARBITER) -> None:
    game.adjudicate(arbiter=by, kind=kind, winner=winner, note="no move", seed=SEED, ports=PORTS)


def test_a_forfeit_ends_the_game_against_the_other_side() -> None:
    game = new_game()
    adjudicate(game, "blue")
    assert game.status == ENDED
    assert game.result == {
        "winner": "blue",
        "outcome": "win",
        "level": "forfeit",
        "reason": "forfeit",
        "loser": "red",
    }
    kinds = [type(e).__name__ for e in game.pending_events][-2:]
    assert kinds == ["Adjudicated", "Ended"]
    again = projector(PORTS)(None, list(game.pending_events))
    assert again.status == ENDED and again.result == game.result


def test_an_adjudication_may_be_a_draw_and_a_game_still_waiting_for_its_players_ends_too() -> None:
    game = new_game(invite=True)
    adjudicate(game, None, "adjudication")
    assert game.status == ENDED
    assert game.result == {
        "winner": None,
        "outcome": "draw",
        "level": "adjudication",
        "reason": "adjudication",
    }


def test_no_player_decides_and_no_game_is_decided_twice() -> None:
    game = new_game()
    with pytest.raises(Forbidden):
        adjudicate(game, "red", by=ALICE)
    with pytest.raises(Invalid) as bad_kind:
        adjudicate(game, "red", kind="coin toss")
    assert "kind" in bad_kind.value.details
    with pytest.raises(Invalid) as bad_side:
        adjudicate(game, "purple")
    assert "winner" in bad_side.value.details
    assert game.status != ENDED
    adjudicate(game, "red")
    with pytest.raises(Conflict):
        adjudicate(game, "blue")
