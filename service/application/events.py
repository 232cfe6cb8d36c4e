"""How a stored game event is presented: in the API, the NDJSON export and the audit tools.

``payload`` holds every field that the event's hash covers (see service.domain.chain), so an exported
line can be verified offline: ``event_hash(game, seq, kind, at, payload | {prev_hash, sealed})``.

In a game that hides information, the fields a view may change are *sealed*: the line carries
``sealed`` (the commitments its hash covers), ``shown`` (which form ``payload`` holds: ``full``, a
side's name, or ``*`` for a spectator) and ``salt`` (that form's salt), so a redacted export
verifies as redacted.  ``type``, ``user``, ``retracted``, ``redacted`` and ``text`` are derived
from covered data; ``arbiter audit verify`` re-derives and checks them (see
docs/audit-and-disputes.md)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from service.domain.audit import event_type
from service.domain.chain import ENVELOPE, FULL, SEALED_FIELDS, SPECTATOR, reader_form
from service.domain.game import copy_json
from service.domain.systems import GamePorts

#: shown beside ``payload`` (or not at all), not in it
_APART = ENVELOPE | {"prev_hash", "sealed"}

Salting = Callable[[Any, int, str], str]


def present_event(
    event: Any, names: Mapping[str, str] | None = None, *, salting: Salting | None = None
) -> dict[str, Any]:
    """A stored game event (a ``Game.Event``) as JSON-compatible data, in full (with the full form's
    salt when ``salting`` is given, so a full export of a hidden-information game verifies)."""
    names = names or {}
    fields = {k: v for k, v in vars(event).items() if k not in _APART}
    payload = copy_json(fields)
    kind = type(event).__qualname__
    item: dict[str, Any] = {
        "game": str(event.originator_id),
        "seq": event.originator_version,
        "kind": kind,
        "type": event_type(kind, payload),
        "at": event.timestamp.isoformat(),
        "payload": payload,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
        "seal": event.seal,
    }
    sealed = getattr(event, "sealed", None)
    if sealed is not None:
        item["sealed"] = copy_json(sealed)
        item["shown"] = FULL
        if salting is not None:
            item["salt"] = salting(event.originator_id, event.originator_version, FULL)
    side = getattr(event, "side", None)
    if side is not None:
        item["side"] = side
    user = getattr(event, "user", None)
    if user is not None:
        item["user"] = names.get(user, user)
    return item


def present_as(
    event: Any,
    state_before: Any,
    *,
    names: Mapping[str, str],
    rules: Any,
    ports: GamePorts,
    viewer: str | None,
    in_full: bool,
) -> dict[str, Any]:
    """A stored game event as ``viewer`` (a side; None: a spectator) may see it -- all of it when
    ``in_full`` -- with the salt of the form shown, so that the line verifies as shown."""
    item = present_event(event, names, salting=ports.salt if in_full else None)
    kind = type(event).__qualname__
    fields = SEALED_FIELDS.get(kind)
    if in_full or not fields:
        return item
    full = {name: getattr(event, name) for name in fields}
    shown = reader_form(
        rules,
        ports.rules_event,
        kind,
        copy_json(full),
        actor=getattr(event, "side", None),
        state_before=copy_json(state_before),
        reader=viewer,
    )
    item["payload"].update(shown)
    item["type"] = event_type(kind, item["payload"])
    item["redacted"] = shown != full
    if "sealed" in item:
        form = viewer or SPECTATOR
        item["redacted"] = form in item["sealed"].get("redacted", ())
        item["shown"] = form
        if ports.salt is not None:
            item["salt"] = ports.salt(event.originator_id, event.originator_version, form)
    return item


def export_lines(items: Iterable[Mapping[str, Any]], head: Any) -> Iterator[str]:
    """An NDJSON export: one event a line, then the game's anchored head (read before the events,
    so a log cut below it shows): ``{"head": {"game", "version", "hash", "mac"}}``."""
    for item in items:
        yield json.dumps(item, sort_keys=True) + "\n"
    yield json.dumps({"head": head}, sort_keys=True) + "\n"
