"""How a stored game event is presented: in the API, the NDJSON export and the audit tools.

``payload`` holds every field that the event's hash covers (see service.domain.chain), so an exported
line can be verified offline: ``event_hash(game, seq, kind, at, payload | {prev_hash})``."""

from __future__ import annotations

from typing import Any

from service.domain.chain import ENVELOPE
from service.domain.game import Game, copy_json

#: shown beside ``payload`` (or not at all), not in it
_APART = ENVELOPE | {"prev_hash"}


def present_event(event: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A stored game event (a ``Game.Event``) as JSON-compatible data."""
    names = names or {}
    fields = {k: v for k, v in vars(event).items() if k not in _APART}
    payload = copy_json(fields)
    kind = type(event).__qualname__
    item: dict[str, Any] = {
        "game": str(event.originator_id),
        "seq": event.originator_version,
        "kind": kind,
        "type": _type_of(event),
        "at": event.timestamp.isoformat(),
        "payload": payload,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
        "seal": event.seal,
    }
    side = getattr(event, "side", None)
    if side is not None:
        item["side"] = side
    user = getattr(event, "user", None)
    if user is not None:
        item["user"] = names.get(user, user)
    return item


def _type_of(event: Any) -> str:
    if isinstance(event, Game.Recorded):
        return event.kind
    names: dict[type, str] = {
        Game.Created: "GameCreated",
        Game.EntropyAdded: "EntropyAdded",
        Game.CommandAccepted: "CommandAccepted",
        Game.DiceRolled: "DiceRolled",
        Game.Ended: "GameEnded",
    }
    return names.get(type(event), type(event).__name__)
