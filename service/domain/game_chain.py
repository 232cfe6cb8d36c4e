"""A game's events on the hash chain (``service.domain.chain``): each event's hash, seal and the
commitments to the readers' forms of the fields a view may change, and the check that new events
are a chain each hashed for the version it carries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.domain.chain import SEALED_FIELDS, event_hash, every_form, seal_forms
from service.domain.systems import GamePorts


def sealed(
    ports: GamePorts,
    system: str,
    game_id: UUID,
    version: int,
    kind: str,
    payload: Mapping[str, Any],
    state_before: Any,
    sides: list[str],
) -> dict[str, Any] | None:
    """The commitments to every reader's form of an event of a hidden-information game whose
    fields a view may change (``service.domain.chain``); None otherwise or without a key."""
    names = SEALED_FIELDS.get(kind)
    rules = ports.rules(system)
    salting = ports.salt
    if not names or salting is None or not getattr(rules, "hidden_information", False):
        return None
    forms = every_form(
        rules,
        ports.rules_event,
        kind,
        {name: payload[name] for name in names},
        actor=payload.get("side"),
        state_before=state_before,
        sides=sides,
    )
    return seal_forms(forms, lambda form: salting(game_id, version, form))


def stamp(
    ports: GamePorts,
    system: str,
    game_id: UUID,
    version: int,
    kind: str,
    timestamp: datetime,
    payload: dict[str, Any],
    state_before: Any,
    sides: Iterable[str],
) -> dict[str, Any]:
    """The ``hash`` and ``seal`` of a game's event ``kind`` at ``version``, once its ``payload``
    (with its ``prev_hash``) has its ``sealed`` commitments (set here: the hash covers them)."""
    payload["sealed"] = sealed(
        ports, system, game_id, version, kind, payload, state_before, list(sides)
    )
    digest = event_hash(game_id, version, kind, timestamp, payload)
    return {"hash": digest, "seal": ports.seal(digest)}


def chain_break(events: Sequence[Any]) -> str | None:
    """Why ``events`` (a game's new events, in order) are not a chain each hashed for the version it
    carries, or None.  An event's hash covers its version and its ``prev_hash``, so an event moved
    to another version than it was decided and hashed for (a lost race) is caught here."""
    previous: str | None = None
    for event in events:
        kind = type(event).__qualname__
        if previous is not None and event.prev_hash != previous:
            return f"event {event.originator_version} does not follow the one before it"
        fields = vars(event)
        if (
            event_hash(event.originator_id, event.originator_version, kind, event.timestamp, fields)
            != event.hash
        ):
            return f"event {event.originator_version} was hashed for another version or content"
        previous = event.hash
    return None
