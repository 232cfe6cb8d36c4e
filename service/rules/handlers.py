"""The ``apply`` of a rules module as a registry: one handler per event type it emits.

HANDLERS = EventHandlers("merida")

@HANDLERS.handles("UnitsMoved")
def _moved(state: State, data: dict[str, Any]) -> None: ...

HANDLERS.apply(state, event)   # no validation, no dice: the pure application of one event
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from service.rules.base import RulesEvent, State

Handler = Callable[[State, dict[str, Any]], None]


class EventHandlers:
    def __init__(self, module: str) -> None:
        self.module = module
        self._by_type: dict[str, Handler] = {}

    def handles(self, event_type: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            if event_type in self._by_type:
                raise ValueError(f"{self.module}: two handlers for {event_type}")
            self._by_type[event_type] = handler
            return handler

        return register

    def apply(self, state: State, event: RulesEvent) -> State:
        try:
            handler = self._by_type[event.type]
        except KeyError:
            raise KeyError(
                f"{self.module} has no handler for the event type {event.type!r}"
            ) from None
        handler(state, event.data)
        return state

    def __contains__(self, event_type: object) -> bool:
        return event_type in self._by_type

    def __iter__(self) -> Iterator[str]:
        """The event types this module emits and applies."""
        return iter(self.types())

    def types(self) -> list[str]:
        return sorted(self._by_type)
