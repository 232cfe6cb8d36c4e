"""Server-sent events fed by the broker; when the broker is lost, they fall back to polling the
store, which is the truth anyway.  Used for games (``game`` events) and ladders (``standings``).

A Flask view decides what a stream follows -- a :class:`Plan`, after its own checks (404s, bad
``window`` or ``since``, the input gate) -- and answers with :func:`respond`.  Under ``arbiter
serve`` (an ASGI server) the plan is served natively async by ``service/api/async_stream.py`` and
holds no request thread; under a plain WSGI server or Flask's test client the generator here
serves it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from flask import Response, request

from service.application.games import game_channel
from service.application.ports import Broker
from service.application.services import Services

HEARTBEAT = 15.0
TICK = 1.0
RETRY = "retry: 2000\n\n"
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
#: the WSGI environ key under which a view leaves its plan for the ASGI server
PLAN_KEY = "arbiter.stream"

Note = dict[str, Any]


def message(kind: str, data: Note, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


@dataclass(frozen=True)
class Plan:
    """What one stream follows: ``kind`` notes on ``channel`` newer than ``since``, for ``window``
    seconds.  ``idle(degraded)`` runs at quiet ticks (every tick with ``idle_when_live``, else only
    while the broker is lost); it touches the store, so the async path runs it in a thread."""

    broker: Broker
    channel: str
    kind: str
    since: int
    window: float
    position: Callable[[Note], int]
    idle: Callable[[bool], Note | None]
    idle_when_live: bool = False
    first: tuple[str, ...] = ()


def respond(plan: Plan) -> Response:
    """The view's answer: the WSGI generator, with the plan left in the environ for ASGI."""
    request.environ[PLAN_KEY] = plan
    return Response(events(plan), mimetype="text/event-stream", headers=HEADERS)


def events(plan: Plan) -> Iterator[str]:
    yield from plan.first
    yield from follow(
        plan.broker,
        plan.channel,
        kind=plan.kind,
        window=plan.window,
        since=plan.since,
        position=plan.position,
        idle=plan.idle,
    )


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
    subscription = None
    try:
        # subscribed before the first bytes go out: a client told the stream is open (its
        # EventSource "open") misses nothing published after that
        failed = None
        try:
            subscription = broker.subscribe(channel)
        except ConnectionError as exc:
            failed = message("degraded", {"reason": str(exc)})
        yield RETRY
        if failed is not None:
            yield failed
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


def game_plan(svc: Services, game_id: UUID, *, since: int, window: float) -> Plan:
    """A ``game`` event whenever the game's version passes ``since`` (EventSource resends it as
    Last-Event-ID when it reconnects, so nothing is missed between windows)."""
    version = svc.games.get(game_id).version

    def note(current: int, first: int) -> Note:
        return {"game": str(game_id), "version": current, "from": first, "to": current}

    first = (
        (message("game", note(version, since + 1), version),) if since and since < version else ()
    )
    since = max(since, version)

    def idle(degraded: bool) -> Note | None:
        if not degraded:
            return None
        current = svc.games.get(game_id).version
        return note(current, since + 1) if current > since else None

    return Plan(
        broker=svc.broker,
        channel=game_channel(game_id),
        kind="game",
        since=since,
        window=window,
        position=lambda n: int(n.get("version", 0)),
        idle=idle,
        first=first,
    )
