"""The gunicorn worker of the multi-worker set-up: uvicorn's, with connections spread evenly.

All workers accept on the one listening socket, and asyncio accepts every connection waiting when
it wakes.  So a burst of connections (clients starting together, reconnections after a restart)
lands mostly on whichever worker woke first: 16 keep-alive clients were seen at 7, 4, 4 and 1 per
worker (and at 13, 1, 1, 1), and the clients of the crowded worker waited up to nine times as long
for each answer.  Keep-alive connections and live streams last, so the imbalance did too.

Here, as nginx does with its ``accept_disabled``, a worker holding more open connections than
another live worker leaves a waiting connection to that one: it declines to accept for a moment
(:data:`PATIENCE` at most, yielding the CPU meanwhile), and then accepts it anyway if no one else
has.  Workers see each other's counts on a :class:`ConnectionBoard`, memory the master makes
before it forks them.

Run: ``gunicorn -w 4 -k service.worker.ArbiterWorker 'service.asgi:create_asgi()'``."""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import select
import socket
import time
from typing import Any, ClassVar

from uvicorn_worker import UvicornWorker

from service.adapters.http_timeouts import timed_protocol
from service.config import Config

SLOTS = 256  # workers a board can hold at once (a slot is reused when its worker has gone)
PATIENCE = 0.05  # seconds a loaded worker leaves a waiting connection to a less loaded one
EPISODE = 0.5  # a decline this long ago was about an earlier connection (longer than PATIENCE)
REFRESH = 0.25  # seconds between updates of a worker's count as its connections close
#: uvicorn's proxy headers: the app alone reads them (``ARBITER_PROXY_HOPS``)
UVICORN_PROXY_OFF: dict[str, Any] = {"proxy_headers": False, "forwarded_allow_ips": ""}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


class ConnectionBoard:
    """Each worker's number of open connections, shared by the processes forked after it is
    made: a slot per worker (its pid and its count), claimed under a lock."""

    def __init__(self, slots: int = SLOTS) -> None:
        self.pids = multiprocessing.RawArray(ctypes.c_int, slots)
        self.counts = multiprocessing.RawArray(ctypes.c_int, slots)
        self.lock = multiprocessing.Lock()

    def claim(self, pid: int) -> int:
        """A slot for worker ``pid``: a free one, or one whose worker has gone."""
        with self.lock:
            for slot, owner in enumerate(self.pids):
                if owner == 0 or owner == pid or not alive(owner):
                    self.pids[slot], self.counts[slot] = pid, 0
                    return slot
        raise RuntimeError(f"more than {len(self.pids)} workers on one connection board")

    def release(self, slot: int, pid: int) -> None:
        """Free ``pid``'s slot (not a slot another worker has claimed since)."""
        with self.lock:
            if self.pids[slot] == pid:
                self.pids[slot], self.counts[slot] = 0, 0

    def post(self, slot: int, pid: int, count: int) -> None:
        if self.pids[slot] == pid:
            self.counts[slot] = count

    def fewest_elsewhere(self, slot: int) -> int | None:
        """The fewest connections any other live worker holds (None: no other worker)."""
        fewest = None
        for other, pid in enumerate(self.pids):
            if other == slot or pid == 0:
                continue
            count = self.counts[other]
            if (fewest is None or count < fewest) and alive(pid):
                fewest = count
        return fewest


class Connections:
    """The connections a worker has accepted and not yet closed, its count posted on the board."""

    def __init__(self, board: ConnectionBoard, pid: int) -> None:
        self.board = board
        self.pid = pid
        self.slot = board.claim(pid)
        self.open: list[socket.socket] = []

    def count(self) -> int:
        self.open = [conn for conn in self.open if conn.fileno() != -1]
        self.board.post(self.slot, self.pid, len(self.open))
        return len(self.open)

    def add(self, conn: socket.socket) -> None:
        self.open.append(conn)
        self.board.post(self.slot, self.pid, len(self.open))

    def leave(self) -> None:
        self.board.release(self.slot, self.pid)

    def others_fewer(self) -> bool:
        """Whether another live worker holds fewer connections than this one."""
        mine = self.count()
        fewest = self.board.fewest_elsewhere(self.slot)
        return fewest is not None and fewest < mine


class BalancedListener:
    """A worker's view of a listening socket: ``accept`` declines, for up to :data:`PATIENCE`,
    while another worker holds fewer connections than this one."""

    def __init__(self, listener: Any, connections: Connections) -> None:
        self._listener = listener
        self._connections = connections
        self._declining_since: float | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._listener, name)

    def close(self) -> None:
        """The worker stops listening (it is shutting down): it leaves the board at once, so
        that no other worker waits for it to take a connection."""
        self._connections.leave()
        self._listener.close()

    def accept(self) -> tuple[socket.socket, Any]:
        if self._declines():
            os.sched_yield()
            raise BlockingIOError("left to a worker with fewer connections")
        conn, address = self._listener.accept()
        self._declining_since = None
        self._connections.add(conn)
        return conn, address

    def _declines(self) -> bool:
        if not self._connections.others_fewer():
            return False
        if not self._waiting():
            return False  # nothing to leave (asyncio asks again after each accept)
        now = time.monotonic()
        if self._declining_since is None or now - self._declining_since > EPISODE:
            self._declining_since = now
        return now - self._declining_since < PATIENCE

    def _waiting(self) -> bool:
        """Whether a connection waits to be accepted."""
        readable, _, _ = select.select([self._listener], [], [], 0)
        return bool(readable)


class ArbiterWorker(UvicornWorker):  # type: ignore[misc]
    """uvicorn's gunicorn worker, accepting through a :class:`BalancedListener`."""

    board: ClassVar[ConnectionBoard | None] = None  # made in the master, before the first fork
    sockets: list[Any]  # gunicorn's listeners (set by gunicorn, which is untyped)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # before uvicorn's config is made from CONFIG_KWARGS: this server's read timeouts, and
        # uvicorn's reading of X-Forwarded-For/-Proto never on (it trusted them from 127.0.0.1
        # whatever ARBITER_PROXY_HOPS said): the app reads them, only with ARBITER_PROXY_HOPS > 0
        # and only that many hops from the right (``service.api.headers.trusting_proxies``)
        config = Config.from_env()
        self.CONFIG_KWARGS = {
            **UvicornWorker.CONFIG_KWARGS,
            "http": timed_protocol(config.header_timeout, config.body_timeout),
            **UVICORN_PROXY_OFF,
        }
        super().__init__(*args, **kwargs)
        if ArbiterWorker.board is None:
            ArbiterWorker.board = ConnectionBoard()

    async def _serve(self) -> None:
        board = ArbiterWorker.board
        assert board is not None
        connections = Connections(board, os.getpid())
        self.sockets = [BalancedListener(sock, connections) for sock in self.sockets]
        refresher = asyncio.create_task(self._refresh(connections))
        try:
            await super()._serve()
        finally:
            refresher.cancel()
            connections.leave()

    @staticmethod
    async def _refresh(connections: Connections) -> None:
        """Keep this worker's count true as its connections close (it is also posted whenever
        the worker is offered a connection)."""
        while True:
            await asyncio.sleep(REFRESH)
            connections.count()
