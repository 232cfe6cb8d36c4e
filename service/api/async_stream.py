"""Live streams served natively async (under ``arbiter serve``, an ASGI server).

A waiting stream is a coroutine awaiting the broker (redis.asyncio pub/sub, or the in-process
broker's bridge), never a request thread: ordinary requests keep their own thread pool however
many streams are open.  Each stream counts against a per-client and a global limit, and ends as
soon as its client goes (its slot and its subscription are freed at once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor
from typing import Any

from service.api.stream import HEARTBEAT, RETRY, TICK, Note, Plan, message
from service.application.ports import AsyncSubscription

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

log = logging.getLogger(__name__)

RETRY_AFTER = 5  # seconds a refused client is asked to wait


class TooManyStreams(Exception):  # noqa: N818 - named for what the client is told
    def __init__(self, status: int, message: str, field: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = {field: [message]}


class StreamLimits:
    """At most ``per_client`` open streams per client address and ``total`` in this worker."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    @property
    def open(self) -> int:
        return sum(self._open.values())

    def acquire(self, client: str) -> None:
        with self._lock:
            if self._open[client] >= self.per_client:
                raise TooManyStreams(
                    429, f"at most {self.per_client} live streams per client", "client"
                )
            if sum(self._open.values()) >= self.total:
                raise TooManyStreams(
                    503, f"the server holds its {self.total} live streams", "server"
                )
            self._open[client] += 1

    def release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]


class Follower:
    """The async twin of ``stream.follow``: the same messages, awaited instead of blocked on."""

    def __init__(self, plan: Plan, pool: Executor) -> None:
        self.plan = plan
        self.pool = pool
        self.since = plan.since
        self.subscription: AsyncSubscription | None = None
        loop = asyncio.get_running_loop()
        self.clock = loop.time
        self.deadline = self.clock() + plan.window
        self.last_beat = self.clock()

    async def events(self) -> AsyncIterator[str]:
        try:
            # subscribed before the first bytes (and the headers: ``serve_events``) go out: a
            # client told the stream is open misses nothing published after that
            degraded = await self._subscribe()
            yield RETRY
            for first in self.plan.first:
                yield first
            if degraded:
                yield degraded
            while (left := self.deadline - self.clock()) > 0:
                for out in await self._step(min(TICK, max(0.05, left))):
                    yield out
        finally:
            await self._unsubscribe()

    async def _subscribe(self) -> str | None:
        try:
            self.subscription = await self.plan.broker.subscribe_async(self.plan.channel)
        except ConnectionError as exc:
            return message("degraded", {"reason": str(exc)})
        return None

    async def _unsubscribe(self) -> None:
        subscription, self.subscription = self.subscription, None
        if subscription is not None:
            await subscription.close()

    async def _step(self, timeout: float) -> list[str]:
        out: list[str] = []
        note = await self._wait(timeout, out)
        if note is None and (self.subscription is None or self.plan.idle_when_live):
            note = await self._idle()
        if note is not None and self.plan.position(note) > self.since:
            self.since = self.plan.position(note)
            out.append(message(self.plan.kind, note, self.since))
        if self.clock() - self.last_beat >= HEARTBEAT:
            self.last_beat = self.clock()
            out.append(": keep-alive\n\n")
        return out

    async def _wait(self, timeout: float, out: list[str]) -> Note | None:
        if self.subscription is None:
            await asyncio.sleep(timeout)
            return None
        try:
            return await self.subscription.get(timeout)
        except ConnectionError as exc:
            await self._unsubscribe()
            out.append(message("degraded", {"reason": str(exc)}))
            return None

    async def _idle(self) -> Note | None:
        """The plan's idle step touches the store: run it on the stream pool, not the loop."""
        degraded = self.subscription is None
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool, self.plan.idle, degraded)
        except Exception as exc:  # noqa: BLE001 - the store is down: the stream waits it out
            log.warning("live stream on %s could not poll the store: %s", self.plan.channel, exc)
            return None


async def serve_events(
    send: Send, receive: Receive, headers: list[tuple[bytes, bytes]], events: AsyncIterator[str]
) -> None:
    """Send ``events`` until they end or the client goes, whichever comes first; the headers go
    out with the first event, once the stream is subscribed (``Follower.events``)."""
    first = await anext(events, None)
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    if first is not None:
        await send({"type": "http.response.body", "body": first.encode(), "more_body": True})
    pump = asyncio.ensure_future(_pump(send, events))
    gone = asyncio.ensure_future(_disconnected(receive))
    done, pending = await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    if pump in done and not pump.cancelled():
        error = pump.exception()
        if error is not None and not isinstance(error, OSError):  # OSError: the client went
            raise error


async def _pump(send: Send, events: AsyncIterator[str]) -> None:
    try:
        async for chunk in events:
            await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
