"""A Redis connection that publishes without waiting for the answers.

Waiting for each answer costs a thread a sleep and a wake (about 35 µs of CPU on this kind of
machine, against under 5 µs to write the command and read whatever answers have come); handing
the message to another thread costs a wake as well.  So a :class:`PublishPipe` writes each PUBLISH
at once and reads the answers that have arrived before its next write, without waiting: each
message stays in ``unanswered`` until its answer is read.  A pipe that finds its connection closed
or failing, or Redis not answering within ``timeout``, is broken: its owner takes the unanswered
messages back (:meth:`PublishPipe.close`) and sends them another way, so none is lost unseen (one
whose answer was lost on the way may be published twice, as with redis-py's own retry)."""

from __future__ import annotations

import collections
import logging
import select
import socket
import time
from typing import Any

import redis

log = logging.getLogger(__name__)

#: connection classes whose socket is a plain one (TLS is left to redis-py's blocking calls)
PLAIN = (redis.Connection, redis.UnixDomainSocketConnection)
#: the most read from the socket at once
READ_BYTES = 65536


class Broken(Exception):
    """The pipe's connection cannot be trusted any more."""


class PublishPipe:
    """One open connection (taken from ``client``'s pool and connected by the caller), written to
    without waiting.  Not thread-safe: its owner serialises the calls."""

    def __init__(self, client: redis.Redis, connection: Any, *, timeout: float, limit: int) -> None:
        self.client = client
        self.connection = connection
        self._sock: socket.socket = connection._sock  # redis-py keeps it there once connected
        self._sock.setblocking(False)
        self._timeout = timeout
        self._limit = limit
        self._partial = b""  # the start of an answer not whole yet
        #: messages written whose answer has not been read: (channel, data, when written)
        self.unanswered: collections.deque[tuple[str, str, float]] = collections.deque()
        self.errors = 0  # answers that were errors (each a message Redis did not publish)

    @staticmethod
    def usable(connection: Any) -> bool:
        return isinstance(connection, PLAIN) and connection._sock is not None

    def publish(self, channel: str, data: str) -> None:
        """Write one PUBLISH; :class:`Broken` if the connection failed or Redis has not answered
        for ``timeout`` seconds (the message is then among those :meth:`close` gives back)."""
        self.unanswered.append((channel, data, time.monotonic()))
        self.read_answers()
        if len(self.unanswered) > self._limit or (
            time.monotonic() - self.unanswered[0][2] > self._timeout
        ):
            raise Broken("Redis has not answered")
        self._write(b"".join(self.connection.pack_command("PUBLISH", channel, data)))

    def read_answers(self, wait: float = 0.0) -> None:
        """Read the answers that have come (waiting up to ``wait`` seconds for all of them);
        :class:`Broken` if the connection was closed or failed."""
        deadline = time.monotonic() + wait
        while True:
            try:
                chunk = self._sock.recv(READ_BYTES)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if not self.unanswered or left <= 0:
                    return
                select.select([self._sock], [], [], left)
                continue
            except OSError as exc:
                raise Broken(str(exc)) from None
            if not chunk:
                raise Broken("Redis closed the connection")
            self._answers(chunk)
            if not wait and len(chunk) < READ_BYTES:
                # all that had come: what comes next is read before the next write (asking
                # again now would cost a system call, and a turn of the GIL, for nothing)
                return

    def _answers(self, chunk: bytes) -> None:
        # every answer to PUBLISH is one line: ":<subscribers>" or "-<error>"
        lines = (self._partial + chunk).split(b"\r\n")
        self._partial = lines.pop()
        for line in lines:
            if not self.unanswered:
                raise Broken(f"an answer to nothing: {line[:80]!r}")
            channel, _, _ = self.unanswered.popleft()
            if line.startswith(b"-"):
                self.errors += 1
                log.warning("Redis refused a live update on %s: %s", channel, line[1:200])

    def _write(self, packed: bytes) -> None:
        view, deadline = memoryview(packed), 0.0
        while view:
            try:
                view = view[self._sock.send(view) :]
            except BlockingIOError:  # the socket's buffer is full: Redis is slow
                deadline = deadline or time.monotonic() + self._timeout
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self._sock], [], left)[1]:
                    raise Broken("Redis does not take what is written") from None
            except OSError as exc:
                raise Broken(str(exc)) from None

    def close(self) -> list[tuple[str, str]]:
        """Close the connection; the messages whose answer was not read, in order."""
        taken = [(channel, data) for channel, data, _ in self.unanswered]
        self.unanswered.clear()
        self.connection.disconnect()
        self.client.connection_pool.release(self.connection)
        return taken
