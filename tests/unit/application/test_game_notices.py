"""The notices of a game's events are declared per event type (issue 45): the table names every
event the notification process follows for what it tells, and nothing that is not a game event."""

from __future__ import annotations

from service.application.game_notices import NOTICES
from service.application.notifications import GAME_EVENTS, TURN_EVENTS
from service.domain.game import Game


def test_every_notified_game_event_is_declared_once_or_tells_whose_turn_it_is() -> None:
    assert set(GAME_EVENTS) == set(NOTICES) | TURN_EVENTS
    for name in NOTICES:
        cls = getattr(Game, name, None)
        assert isinstance(cls, type) and issubclass(cls, Game.Event), name
