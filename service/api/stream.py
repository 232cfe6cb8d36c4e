"""Server-sent events for a game, fed by the broker; polling the store when the broker is lost."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from uuid import UUID

from service.application.games import game_channel
from service.application.services import Services

HEARTBEAT = 15.0
POLL = 1.0


def _message(kind: str, data: dict, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


def game_stream(svc: Services, game_id: UUID, *, since: int, window: float) -> Iterator[str]:
    """Yield SSE messages for ``window`` seconds (EventSource reconnects with Last-Event-ID)."""
    deadline = time.monotonic() + window
    version = svc.games.get(game_id).version
    yield "retry: 2000\n\n"
    if since and since < version:
        yield _message(
            "game",
            {"game": str(game_id), "version": version, "from": since + 1, "to": version},
            version,
        )
    subscription = None
    try:
        try:
            subscription = svc.broker.subscribe(game_channel(game_id))
        except ConnectionError as exc:
            yield _message("degraded", {"reason": str(exc)})
        last_beat = time.monotonic()
        while time.monotonic() < deadline:
            if subscription is not None:
                try:
                    note = subscription.get(
                        timeout=min(HEARTBEAT, max(0.05, deadline - time.monotonic()))
                    )
                except ConnectionError as exc:
                    subscription.close()
                    subscription = None
                    yield _message("degraded", {"reason": str(exc)})
                    continue
                if note is not None and note.get("version", 0) > version:
                    version = note["version"]
                    yield _message("game", note, version)
            else:  # degraded: poll the store, which is the truth anyway
                time.sleep(POLL)
                current = svc.games.get(game_id).version
                if current > version:
                    yield _message(
                        "game",
                        {
                            "game": str(game_id),
                            "version": current,
                            "from": version + 1,
                            "to": current,
                        },
                        current,
                    )
                    version = current
            if time.monotonic() - last_beat >= HEARTBEAT:
                last_beat = time.monotonic()
                yield ": keep-alive\n\n"
    finally:
        if subscription is not None:
            subscription.close()
