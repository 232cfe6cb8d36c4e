"""How the domain reaches rules systems without importing them.

The composition root installs a lookup (name -> rules system) once at start; the Game aggregate uses
it to apply rules events when it is rebuilt.  Rules systems satisfy :class:`RulesPort` structurally
(see ``service.rules.base.RulesSystem``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol


class RulesEventLike(Protocol):
    type: str
    data: dict[str, Any]


class RulesPort(Protocol):
    name: str

    def apply(self, state: dict[str, Any], event: Any) -> dict[str, Any]: ...
    def decide(
        self, state: dict[str, Any], side: str, command: Mapping[str, Any], dice: Any
    ) -> list[Any]: ...
    def result(self, state: dict[str, Any]) -> dict[str, Any] | None: ...
    def active_sides(self, state: dict[str, Any]) -> list[str]: ...


_lookup: Callable[[str], RulesPort] | None = None
_event_factory: Callable[[str, dict[str, Any]], Any] | None = None


def install(
    lookup: Callable[[str], RulesPort], event_factory: Callable[[str, dict[str, Any]], Any]
) -> None:
    """Install the system lookup and the factory of rules events (``RulesEvent(type, data)``)."""
    global _lookup, _event_factory
    _lookup = lookup
    _event_factory = event_factory


def system(name: str) -> RulesPort:
    if _lookup is None:
        raise RuntimeError(
            "no rules systems installed: call service.domain.systems.install() first"
        )
    return _lookup(name)


def rules_event(kind: str, data: dict[str, Any]) -> Any:
    if _event_factory is None:
        raise RuntimeError("no rules event factory installed")
    return _event_factory(kind, data)


def reveals(rules: Any, event: Any) -> bool:
    """Whether a rules event reveals hidden information (a takeback is then refused)."""
    hook = getattr(rules, "reveals", None)
    return bool(hook(event)) if hook is not None else False
