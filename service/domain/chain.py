"""The hash chain: each event of a game carries the SHA-256 of the previous one and its own.

An event's hash covers its game id, version, type, timestamp, the previous hash and every field of
its payload, serialised as canonical JSON (sorted keys, no spaces), so any change to a stored event
-- a byte, a deleted or swapped or forged row -- breaks the chain at that event."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

GENESIS = "0" * 64
#: an event's envelope: what its hash does not cover (``prev_hash`` is covered)
ENVELOPE = frozenset(
    {"originator_id", "originator_version", "timestamp", "hash", "seal", "originator_topic"}
)


def _default(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"cannot hash a {type(value).__name__}")


def canonical_json(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default
    )


def event_hash(
    game_id: UUID | str, version: int, kind: str, timestamp: datetime, payload: Mapping[str, Any]
) -> str:
    """The hash of one event; ``payload`` holds its fields including ``prev_hash``."""
    body = {k: v for k, v in payload.items() if k not in ENVELOPE}
    document = {
        "game": str(game_id),
        "version": version,
        "kind": kind,
        "at": timestamp.isoformat(),
        "body": body,
    }
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()


def seal_key_from_secret(secret: str) -> bytes:
    """The server's sealing key (kept outside the event store: the session secret's derivative)."""
    return hmac.new(secret.encode("utf-8"), b"arbiter-event-seal-v1", hashlib.sha256).digest()


def seal(event_digest: str, key: bytes | None) -> str:
    """HMAC-SHA256 of an event's hash under the server key: a forger who rewrites the store and
    recomputes the SHA-256 chain still cannot produce the seals.  Empty without a key."""
    if key is None:
        return ""
    return hmac.new(key, event_digest.encode("ascii"), hashlib.sha256).hexdigest()
