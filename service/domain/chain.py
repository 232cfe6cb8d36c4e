"""The hash chain: each event of a game carries the SHA-256 of the previous one and its own.

An event's hash covers its game id, version, kind, timestamp, the previous hash and every field of
its payload, serialised as canonical JSON (sorted keys, no spaces), so any change to a stored event
-- a byte, a deleted or swapped or forged row -- breaks the chain at that event.

**Sealed fields.**  In a game that hides information, what each reader may see of an event differs
(the other side's orders, a hidden unit's hex).  For those events the hash covers, instead of the
raw fields a view may change (:data:`SEALED_FIELDS`), ``sealed``: a salted commitment to the full
form and one to each reader's form (each side's, the spectator's ``*``), each
``SHA-256(salt | canonical(form))`` with its own secret salt (:func:`salt`, an HMAC under the
server key, never derivable from what an export carries).  An export shows one form with its salt
and every commitment, so it verifies end to end as redacted and reveals nothing it does not show.

**Anchored heads.**  The chain alone cannot show a cut tail; :func:`head_mac` signs each game's head
(version, hash), which is kept apart from the rows (``service.adapters.heads``)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

GENESIS = "0" * 64
#: an event's envelope: what its hash does not cover (``prev_hash`` is covered)
ENVELOPE = frozenset(
    {"originator_id", "originator_version", "timestamp", "hash", "seal", "originator_topic"}
)
#: the full form of a sealed event, and the spectator's form (each side's form is its name)
FULL = "full"
SPECTATOR = "*"
#: per event kind, the fields that a reader's view may change: sealed in a hidden-information game
SEALED_FIELDS: Mapping[str, tuple[str, ...]] = {
    "Game.Created": ("initial_state",),
    "Game.CommandAccepted": ("command",),
    "Game.Recorded": ("kind", "data"),
    "Game.Retracted": ("restored_state",),
}


def _default(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot hash a {type(value).__name__}")


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default
)
#: the standard library's C encoder for the same settings, made once (``JSONEncoder.encode``
#: makes one on every call: a microsecond of each of a command's half-dozen hashes); no
#: circular-reference bookkeeping (shared by threads, it would need its own per call), so a
#: cycle ends in ``RecursionError`` -- JSON data has none.  None where the C module is missing.
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # untyped in typeshed
_ESCAPE: Any = getattr(json.encoder, "c_encode_basestring", None)
_C_CANONICAL = (
    _MAKE_ENCODER(None, _default, _ESCAPE, None, ":", ",", True, False, True)
    if _MAKE_ENCODER is not None and _ESCAPE is not None
    else None
)


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no spaces, UTF-8 as is."""
    if _C_CANONICAL is None or isinstance(value, str):
        return _CANONICAL.encode(value)
    return "".join(_C_CANONICAL(value, 0))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def event_hash(
    game_id: UUID | str, version: int, kind: str, timestamp: datetime, payload: Mapping[str, Any]
) -> str:
    """The hash of one event; ``payload`` holds its fields including ``prev_hash`` (and ``sealed``
    when its view-dependent fields are sealed: then those fields are not hashed, their
    commitments are)."""
    body = {k: v for k, v in payload.items() if k not in ENVELOPE}
    sealed = body.pop("sealed", None)
    if sealed is not None:
        for name in SEALED_FIELDS.get(kind, ()):
            body.pop(name, None)
        body["sealed"] = sealed
    document = {
        "game": str(game_id),
        "version": version,
        "kind": kind,
        "at": timestamp.isoformat(),
        "body": body,
    }
    return _sha256(canonical_json(document))


# -- sealed fields ---------------------------------------------------------------------------------
def salt(key: bytes, game_id: UUID | str, version: int, form: str) -> str:
    """The secret salt of one form of one event: 256 bits that only the key's holder derives."""
    message = f"arbiter-chain-salt-v2|{game_id}|{version}|{form}".encode()
    return hmac.digest(key, message, "sha256").hex()


def commitment(salt_hex: str, content: Any) -> str:
    """A hiding, binding commitment to ``content``: nothing is learnt of it without the salt."""
    return _sha256(f"{salt_hex}|{canonical_json(content)}")


def seal_forms(forms: Mapping[str, Any], salt_of: Callable[[str], str]) -> dict[str, Any]:
    """``sealed`` for an event whose forms are ``forms`` (``full`` and one per reader): the
    commitments, and which readers' forms withhold something (what ``redacted`` shows)."""
    full = forms[FULL]
    return {
        "full": commitment(salt_of(FULL), full),
        "views": {
            form: commitment(salt_of(form), content)
            for form, content in forms.items()
            if form != FULL
        },
        "redacted": sorted(form for form, content in forms.items() if content != full),
    }


def sealed_digest(sealed: Mapping[str, Any], form: str) -> Any:
    """The commitment of ``form`` in ``sealed`` (None if it has none)."""
    if form == FULL:
        return sealed.get("full")
    return (sealed.get("views") or {}).get(form)


class ViewingRules(Protocol):
    """What forming a reader's view of an event needs of a rules system."""

    def view(self, state: dict[str, Any], side: str | None) -> dict[str, Any]: ...
    def event_view(self, event: Any, state_before: Any, side: str | None) -> Any: ...


def reader_form(
    rules: ViewingRules,
    rules_event: Callable[[str, dict[str, Any]], Any],
    kind: str,
    full: Mapping[str, Any],
    *,
    actor: str | None,
    state_before: Any,
    reader: str | None,
) -> dict[str, Any]:
    """What ``reader`` (a side; None: a spectator) may see of an event's sealed fields ``full``:
    the one definition used to record the commitments and to present the event."""
    if kind in ("Game.Created", "Game.Retracted"):
        (name,) = SEALED_FIELDS[kind]
        return {name: rules.view(copy.deepcopy(full[name]), reader)}
    if kind == "Game.CommandAccepted":
        if reader == actor:
            return copy.deepcopy(dict(full))
        return {"command": {"type": full["command"].get("type")}}
    if kind == "Game.Recorded":
        shown = rules.event_view(
            rules_event(full["kind"], copy.deepcopy(full["data"])), state_before, reader
        )
        return {"kind": shown.type, "data": copy.deepcopy(shown.data)}
    return copy.deepcopy(dict(full))


def every_form(
    rules: ViewingRules,
    rules_event: Callable[[str, dict[str, Any]], Any],
    kind: str,
    full: Mapping[str, Any],
    *,
    actor: str | None,
    state_before: Any,
    sides: Sequence[str],
) -> dict[str, Any]:
    """The full form and every reader's form of an event's sealed fields."""
    forms: dict[str, Any] = {FULL: copy.deepcopy(dict(full))}
    for reader in [*sides, None]:
        forms[reader or SPECTATOR] = reader_form(
            rules, rules_event, kind, full, actor=actor, state_before=state_before, reader=reader
        )
    return forms


# -- seals and anchored heads ----------------------------------------------------------------------
def seal_key_from_secret(secret: str) -> bytes:
    """The server's sealing key (kept outside the event store: the session secret's derivative)."""
    return hmac.new(secret.encode("utf-8"), b"arbiter-event-seal-v1", hashlib.sha256).digest()


def seal(event_digest: str, key: bytes | None) -> str:
    """HMAC-SHA256 of an event's hash under the server key: a forger who rewrites the store and
    recomputes the SHA-256 chain still cannot produce the seals.  Empty without a key."""
    if key is None:
        return ""
    return hmac.digest(key, event_digest.encode("ascii"), "sha256").hex()


def head_mac(key: bytes, game_id: UUID | str, version: int, event_digest: str) -> str:
    """The signature of a game's head: its last version and that event's hash."""
    message = f"arbiter-head-v1|{game_id}|{version}|{event_digest}".encode()
    return hmac.digest(key, message, "sha256").hex()
