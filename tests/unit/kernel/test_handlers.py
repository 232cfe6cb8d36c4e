"""The shared registry of a rules module's ``apply`` handlers."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.base import RulesEvent
from service.rules.handlers import EventHandlers


def test_apply_runs_the_handler_of_the_event_type() -> None:
    handlers = EventHandlers("test")

    @handlers.handles("Moved")
    def moved(state: dict[str, Any], data: dict[str, Any]) -> None:
        state["hex"] = data["to"]

    state = handlers.apply({"hex": "A1"}, RulesEvent("Moved", {"to": "A2"}))
    assert state == {"hex": "A2"} and "Moved" in handlers and handlers.types() == ["Moved"]


def test_an_unknown_event_type_or_a_second_handler_is_an_error() -> None:
    handlers = EventHandlers("test")
    handlers.handles("Moved")(lambda state, data: None)
    with pytest.raises(ValueError, match="two handlers"):
        handlers.handles("Moved")(lambda state, data: None)
    with pytest.raises(KeyError, match="no handler for the event type 'Flew'"):
        handlers.apply({}, RulesEvent("Flew", {}))
