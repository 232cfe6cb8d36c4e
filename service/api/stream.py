"""Server-sent events fed by the broker; when the broker is lost, they fall back to polling the
store, which is the truth anyway.  Used for games (``game`` events) and ladders (``standings``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from service.application.games import game_channel
from service.application.ports import Broker
from service.application.services import Services

HEARTBEAT = 15.0
TICK = 1.0

Note = dict[str, Any]


def message(kind: str, data: Note, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


def follow(
    broker: Broker,
    channel: str,
    *,
    kind: str,
    window: float,
    since: int,
    position: Callable[[Note], int],
    idle: Callable[[bool], Note | None],
) -> Iterator[str]:
    """Yield ``kind`` messages for ``window`` seconds, each note newer than ``since`` once.

    ``idle(degraded)`` runs at every quiet tick: it may catch up and return a note of its own (when
    ``degraded`` the broker is lost and only this keeps the client informed)."""
    deadline = time.monotonic() + window
    yield "retry: 2000\n\n"
    subscription = None
    try:
        try:
            subscription = broker.subscribe(channel)
        except ConnectionError as exc:
            yield message("degraded", {"reason": str(exc)})
        last_beat = time.monotonic()
        while time.monotonic() < deadline:
            note = None
            if subscription is not None:
                try:
                    note = subscription.get(
                        timeout=min(TICK, max(0.05, deadline - time.monotonic()))
                    )
                except ConnectionError as exc:
                    subscription.close()
                    subscription = None
                    yield message("degraded", {"reason": str(exc)})
                    continue
            else:
                time.sleep(TICK)
            if note is None:
                note = idle(subscription is None)
            if note is not None and position(note) > since:
                since = position(note)
                yield message(kind, note, since)
            if time.monotonic() - last_beat >= HEARTBEAT:
                last_beat = time.monotonic()
                yield ": keep-alive\n\n"
    finally:
        if subscription is not None:
            subscription.close()


def game_stream(svc: Services, game_id: UUID, *, since: int, window: float) -> Iterator[str]:
    """A ``game`` event whenever the game's version passes ``since`` (EventSource resends it as
    Last-Event-ID when it reconnects, so nothing is missed between windows)."""
    version = svc.games.get(game_id).version

    def note(current: int, first: int) -> Note:
        return {"game": str(game_id), "version": current, "from": first, "to": current}

    if since and since < version:
        yield message("game", note(version, since + 1), version)
    since = max(since, version)

    def idle(degraded: bool) -> Note | None:
        if not degraded:
            return None
        current = svc.games.get(game_id).version
        return note(current, since + 1) if current > since else None

    yield from follow(
        svc.broker,
        game_channel(game_id),
        kind="game",
        window=window,
        since=since,
        position=lambda n: int(n.get("version", 0)),
        idle=idle,
    )
