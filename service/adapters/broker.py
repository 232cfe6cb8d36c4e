"""Live-update brokers: in-process (one process, no Redis) and Redis pub/sub (any worker, any client).

Publishing never raises: a lost broker degrades the live stream, never the game log."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import queue
import threading
import time
from typing import Any, Protocol

import redis
import redis.asyncio

from service.adapters.redis_pipe import Broken, PublishPipe

REDIS_LOST = (redis.ConnectionError, redis.TimeoutError, OSError)

log = logging.getLogger(__name__)


class InProcessSubscription:
    def __init__(self, broker: InProcessBroker, channel: str) -> None:
        self._broker = broker
        self._channel = channel
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=1000)

    def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._broker._remove(self._channel, self)

    def _put(self, message: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait(message)
        except queue.Full:  # a client that stopped reading loses old notifications, not the server
            log.warning("dropping a live update for a slow subscriber of %s", self._channel)


class AsyncInProcessSubscription:
    """An asyncio-friendly bridge: ``publish`` (from any thread) hands the message to the
    subscriber's event loop, where ``get`` awaits it without holding a thread."""

    def __init__(self, broker: InProcessBroker, channel: str) -> None:
        self._broker = broker
        self._channel = channel
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1000)

    async def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            return await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            return None

    async def close(self) -> None:
        self._broker._remove(self._channel, self)

    def _put(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(RuntimeError):  # the subscriber's loop has closed
            self._loop.call_soon_threadsafe(self._deliver, message)

    def _deliver(self, message: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            log.warning("dropping a live update for a slow subscriber of %s", self._channel)


class _Subscriber(Protocol):
    def _put(self, message: dict[str, Any]) -> None: ...


class InProcessBroker:
    """Fan-out to the subscribers of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, list[_Subscriber]] = {}

    def publish(self, channel: str, message: dict[str, Any]) -> bool:
        with self._lock:
            targets = list(self._subscribers.get(channel, ()))
        for sub in targets:
            sub._put(message)
        return True

    def subscribe(self, channel: str) -> InProcessSubscription:
        sub = InProcessSubscription(self, channel)
        with self._lock:
            self._subscribers.setdefault(channel, []).append(sub)
        return sub

    async def subscribe_async(self, channel: str) -> AsyncInProcessSubscription:
        sub = AsyncInProcessSubscription(self, channel)
        with self._lock:
            self._subscribers.setdefault(channel, []).append(sub)
        return sub

    def healthy(self) -> bool:
        return True

    def _remove(self, channel: str, sub: _Subscriber) -> None:
        with self._lock:
            subs = self._subscribers.get(channel, [])
            if sub in subs:
                subs.remove(sub)


class RedisSubscription:
    def __init__(self, client: redis.Redis, channel: str) -> None:
        self._pubsub = client.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(channel)

    def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            message = self._pubsub.get_message(timeout=timeout)
        except REDIS_LOST as exc:
            raise ConnectionError(f"live updates lost: {exc}") from exc
        return _note(message)

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError, OSError):
            self._pubsub.close()


class AsyncRedisSubscription:
    """Redis pub/sub read with redis.asyncio: a waiting stream holds no thread."""

    def __init__(self, pubsub: redis.asyncio.client.PubSub) -> None:
        self._pubsub = pubsub

    async def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            message = await self._pubsub.get_message(
                ignore_subscribe_messages=True, timeout=timeout
            )
        except REDIS_LOST as exc:
            raise ConnectionError(f"live updates lost: {exc}") from exc
        return _note(message)

    async def close(self) -> None:
        with contextlib.suppress(redis.RedisError, OSError, RuntimeError):
            await self._pubsub.aclose()


def _note(message: dict[str, Any] | None) -> dict[str, Any] | None:
    if message is None or message.get("type") != "message":
        return None
    return json.loads(message["data"])


class RedisBroker:
    """Redis pub/sub.  A publish that fails is logged and counted; the caller's command stands.

    A publish is written at once on the process's :class:`PublishPipe`, an open connection that
    does not wait for Redis's answers (it reads those that have come before its next write): a
    command's request never waits for Redis, and no thread is woken for it (handing each message
    to a publisher thread cost a command an eighth of its CPU).  Where there is no pipe yet, or
    it broke, or messages wait already (so that none overtakes another), the message is queued,
    and one publisher thread per process sends the queue in order, as many as have queued in one
    packed write, on the connection it holds; that thread alone connects, and opens the pipe
    once it has reached Redis.  A broken pipe's unanswered messages are queued again (one whose
    answer was lost on the way may be published twice, as with redis-py's own retry).  A message
    still queued when the process dies is lost, as one published to a Redis that is down: live
    streams poll the store, which is the truth, after a gap."""

    #: messages held while Redis is slow or away; past this the oldest are dropped (and counted)
    MAX_QUEUED = 10_000
    #: messages sent in one round trip at most
    BATCH = 500

    def __init__(self, url: str, *, timeout: float = 0.5, retry_after: float = 5.0) -> None:
        self.url = url
        self._client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=30
        )
        self._timeout = timeout
        self._async: tuple[asyncio.AbstractEventLoop, redis.asyncio.Redis] | None = None
        self._retry_after = retry_after
        self._down_since: float | None = None
        self.failures = 0
        self._queued: collections.deque[tuple[str, str]] = collections.deque()
        self._sending = 0  # messages taken from the queue and not yet sent (or failed)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)  # the publisher waits here for messages
        self._sent = threading.Condition(self._lock)  # flush() waits here for an empty queue
        self._asleep = False  # the publisher waits for a message (else it will look again)
        self._publisher: threading.Thread | None = None
        self._pid = os.getpid()
        #: the publisher's connection: (the client it came from, the connection, the process)
        self._held: tuple[redis.Redis, Any, int] | None = None
        #: the pipe publishes go out on at once, and the process it was opened in
        self._pipe: tuple[PublishPipe, int] | None = None

    @property
    def client(self) -> redis.Redis:
        return self._client

    def publish(self, channel: str, message: dict[str, Any]) -> bool:
        """Queue ``message`` for the publisher thread; False (and counted) while Redis is known
        to be down, for ``retry_after`` seconds after a failed send."""
        if self._down_since is not None and time.monotonic() - self._down_since < self._retry_after:
            self.failures += 1
            return False
        data = json.dumps(message)
        with self._lock:
            pipe = None if self._queued or self._sending else self._own_pipe()
            if pipe is None:
                self._queue((channel, data))
                return True
            try:
                pipe.publish(channel, data)
            except Broken as exc:
                log.info("the Redis publishing pipe broke (%s): its messages are sent again", exc)
                self._drop_pipe(pipe)
            self._count_refused(pipe)
        return True

    def _queue(self, message: tuple[str, str]) -> None:
        """(Holding ``_lock``.)  ``message`` queued for the publisher thread, woken if it sleeps."""
        if len(self._queued) >= self.MAX_QUEUED:
            self._queued.popleft()
            self.failures += 1
        self._queued.append(message)
        self._wake_publisher()

    def _wake_publisher(self) -> None:
        """(Holding ``_lock``, with messages queued.)  The publisher started, or woken if it
        sleeps: a busy one takes them with its next batch, no wake-up needed."""
        self._start_publisher()
        if self._asleep:
            self._asleep = False
            self._wake.notify()

    def _own_pipe(self) -> PublishPipe | None:
        """(Holding ``_lock``.)  This process's pipe to the current client's Redis, if open."""
        if self._pipe is None:
            return None
        pipe, pid = self._pipe
        if pid != os.getpid():  # forked: the parent's connection is not this process's
            self._pipe = None
            return None
        if pipe.client is not self._client:  # the client was replaced
            self._drop_pipe(pipe)
            return None
        return pipe

    def _drop_pipe(self, pipe: PublishPipe) -> None:
        """(Holding ``_lock``.)  ``pipe`` closed; its unanswered messages queued again, first."""
        self._pipe = None
        again = pipe.close()
        self._queued.extendleft(reversed(again))
        if again:
            self._wake_publisher()

    def _count_refused(self, pipe: PublishPipe) -> None:
        if pipe.errors:
            self.failures += pipe.errors
            pipe.errors = 0

    def _open_pipe(self) -> None:
        """(On the publisher thread, which has just reached Redis.)  Open the pipe if there is
        none: a plain connection taken from the client's pool (a TLS one is not used so)."""
        with self._lock:
            if self._own_pipe() is not None:
                return
        client = self._client
        try:
            connection = client.connection_pool.get_connection()
        except (redis.RedisError, OSError):
            return
        if not PublishPipe.usable(connection):
            client.connection_pool.release(connection)
            return
        pipe = PublishPipe(client, connection, timeout=self._timeout, limit=self.MAX_QUEUED)
        with self._lock:
            if self._pipe is None:
                self._pipe = (pipe, os.getpid())
                return
        pipe.close()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every message has been sent and answered, or has failed; False on
        ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                while self._queued or self._sending:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._sent.wait(left)
                pipe = self._own_pipe()
                if pipe is None or not pipe.unanswered:
                    return True
                try:  # holding the lock: publishes wait meanwhile (this is for tests and exits)
                    pipe.read_answers(wait=max(0.0, deadline - time.monotonic()))
                except Broken:
                    self._drop_pipe(pipe)
                    continue
                self._count_refused(pipe)
                return not pipe.unanswered

    def _start_publisher(self) -> None:
        """(Holding ``_lock``.)  One publisher thread per process, started on the first
        publish: a forked worker (gunicorn) starts its own."""
        if self._publisher is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        self._publisher = threading.Thread(target=self._publish_queued, name="redis-publisher")
        self._publisher.daemon = True
        self._publisher.start()

    def _publish_queued(self) -> None:
        while True:
            with self._lock:
                while not self._queued:
                    self._asleep = True
                    self._wake.wait()
                self._asleep = False
                batch = [self._queued.popleft() for _ in range(min(self.BATCH, len(self._queued)))]
                self._sending = len(batch)
            self._send(batch)
            with self._lock:
                self._sending = 0
                if not self._queued:
                    self._sent.notify_all()

    def _send(self, batch: list[tuple[str, str]]) -> None:
        """One round trip for ``batch`` on the publisher's own connection (held, not taken from
        the pool and given back for each batch: a third of a publish's CPU).  A connection found
        closed (Redis restarted, or it dropped an idle client) is made again once at once, as
        redis-py's own retry would (and as with it, a batch whose answers were lost on the way
        may be published twice); a second failure counts the batch as not published."""
        commands = [("PUBLISH", channel, data) for channel, data in batch]
        for attempt in (1, 2):
            connection = None
            try:
                connection = self._connection()
                connection.send_packed_command(connection.pack_commands(commands))
                for _ in batch:
                    connection.read_response()
            except (redis.RedisError, OSError) as exc:
                if connection is not None:
                    connection.disconnect()  # answers left unread go with it
                if attempt == 1 and isinstance(exc, (redis.ConnectionError, OSError)):
                    continue
                self.failures += len(batch)
                self._down_since = time.monotonic()
                log.warning(
                    "%d live update(s) not published (Redis unavailable: %s); the game log is "
                    "unaffected",
                    len(batch),
                    exc,
                )
                return
            self._down_since = None
            self._open_pipe()
            return

    def _connection(self) -> Any:
        """(On the publisher thread.)  The connection it holds from the client's pool, taken
        again after a fork or when the client was replaced."""
        held = self._held
        if held is not None and held[0] is self._client and held[2] == os.getpid():
            return held[1]
        if held is not None and held[2] == os.getpid():
            held[0].connection_pool.release(held[1])
        connection = self._client.connection_pool.get_connection()
        self._held = (self._client, connection, os.getpid())
        return connection

    def subscribe(self, channel: str) -> RedisSubscription:
        try:
            return RedisSubscription(self._client, channel)
        except (redis.RedisError, OSError) as exc:
            raise ConnectionError(f"live updates unavailable: {exc}") from exc

    async def subscribe_async(self, channel: str) -> AsyncRedisSubscription:
        pubsub = self._async_client().pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(channel)
        except REDIS_LOST as exc:
            await AsyncRedisSubscription(pubsub).close()
            raise ConnectionError(f"live updates unavailable: {exc}") from exc
        return AsyncRedisSubscription(pubsub)

    def _async_client(self) -> redis.asyncio.Redis:
        """One redis.asyncio client per event loop (its connections belong to that loop)."""
        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:
            client = redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                health_check_interval=30,
            )
            self._async = (loop, client)
        return self._async[1]

    def healthy(self) -> bool:
        try:
            return bool(self._client.ping())
        except (redis.RedisError, OSError):
            return False
