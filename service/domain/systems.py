"""What the Game aggregate needs from outside the domain, given to it explicitly.

The domain imports no rules system and keeps no module globals: the composition root builds one
:class:`GamePorts` (the rules lookup, the factory of rules events, the seal) and hands it to the
store, whose projector applies rules events on replay, and to the application services, which pass
it to the aggregate's command methods.  Rules systems satisfy :class:`RulesPort` structurally (see
``service.rules.base.RulesSystem``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from service.domain.chain import salt, seal


class RulesEventLike(Protocol):
    type: str
    data: dict[str, Any]


class RulesPort(Protocol):
    name: str

    def apply(self, state: dict[str, Any], event: Any) -> dict[str, Any]: ...
    def parse_command(self, state: dict[str, Any], command: Any) -> dict[str, Any]: ...
    def decide(
        self, state: dict[str, Any], side: str, command: Mapping[str, Any], dice: Any
    ) -> list[Any]: ...
    def result(self, state: dict[str, Any]) -> dict[str, Any] | None: ...
    def active_sides(self, state: dict[str, Any]) -> list[str]: ...
    def phase(self, state: dict[str, Any]) -> dict[str, Any]: ...
    def reveals(self, event: Any) -> bool: ...
    def view(self, state: dict[str, Any], side: str | None) -> dict[str, Any]: ...
    def event_view(self, event: Any, state_before: Any, side: str | None) -> Any: ...


@dataclass(frozen=True)
class GamePorts:
    """``rules(name)``: the rules system of that name; ``rules_event(kind, data)``: a rules event to
    give it (``RulesEvent``); ``seal(digest)``: an event's seal under the server key ("" without);
    ``salt(game, version, form)``: the secret salt of a sealed form (None without a key: then
    nothing is sealed)."""

    rules: Callable[[str], RulesPort]
    rules_event: Callable[[str, dict[str, Any]], Any]
    seal: Callable[[str], str]
    salt: Callable[[Any, int, str], str] | None = None

    @classmethod
    def of(
        cls,
        rules: Callable[[str], RulesPort],
        rules_event: Callable[[str, dict[str, Any]], Any],
        seal_key: bytes | None,
    ) -> GamePorts:
        salting = partial(salt, seal_key) if seal_key is not None else None
        return cls(rules, rules_event, partial(seal, key=seal_key), salting)
