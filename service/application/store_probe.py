"""What ``/healthz`` reports of the store: can it be read, and can it be written.

**Read:** the newest notification id (:func:`service.application.availability.probe`).

**Write:** a write that is never kept -- ``UPDATE <events table> ... WHERE 1 = 0`` in a
transaction that is rolled back.  It changes no row and consumes no sequence number, yet the
database refuses it exactly where it would refuse a command's events: a read-only SQLite file or
file system (``SQLITE_READONLY``), a read-only PostgreSQL transaction (``default_transaction_read_
only``, a standby after a fail-over: SQLSTATE 25006).  A health check never writes durable data,
so a rolled-back write cannot see a full disk (nothing reaches the disk); for SQLite the file
system holding the file is asked instead (``statvfs``: read-only, or less than
:data:`~service.application.store_faults.FREE_FLOOR` free).  A PostgreSQL server's full disk
shows only when a write fails, and that 503 says so.

SQLite's write probe opens its own connection, waiting at most :data:`BUSY_WAIT` for the write
lock (a lock held by a command means the store is writing: healthy); PostgreSQL's waits at most
:data:`BUSY_WAIT` for its table lock the same way.  The write's answer is kept :data:`TTL` seconds, so
``/healthz`` polled by a load balancer or by every worker stays cheap; the read is asked on every
call, so an unreachable store shows at once."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import PersistenceError
from psycopg.sql import SQL, Identifier

from service.application.availability import StoreUnavailable, probe
from service.application.store_faults import (
    BUSY_WAIT,
    FAULTS,
    UNREACHABLE,
    StoreFault,
    StoreFaults,
)

log = logging.getLogger(__name__)

#: seconds the write probe's answer is kept
TTL = 1.5
#: PostgreSQL's SQLSTATE for a lock not had within ``lock_timeout``
_LOCK_NOT_AVAILABLE = "55P03"


class StoreProbe:
    def __init__(
        self,
        recorder: Any,
        faults: StoreFaults,
        *,
        ttl: float = TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.recorder = recorder
        self.faults = faults
        self.ttl = ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._fault: StoreFault | None = None
        self._at: float | None = None

    def report(self) -> dict[str, Any]:
        """``{"ok", "ms"}``, and when not ok ``"reason"`` (unreachable, read-only, disk full, disk
        error) and ``"error"`` (the words for it).  The read is asked every time (one indexed
        query, as before); the write at most once per :data:`TTL`."""
        started = time.perf_counter()
        read = probe(self.recorder)
        if not read["ok"]:
            return {**read, "reason": UNREACHABLE}
        fault = self._write_fault()
        if fault is None:
            return {"ok": True, "ms": _since(started)}
        return {"ok": False, "ms": _since(started), "reason": fault.reason, "error": fault.message}

    def _write_fault(self) -> StoreFault | None:
        with self._lock:
            if self._at is None or self.clock() - self._at >= self.ttl:
                disk = self.faults.disk()
                self._fault = FAULTS[disk] if disk else self._write() or self.faults.recent()
                self._at = self.clock()
                if self._fault is not None:
                    log.warning("the store cannot write: %s", self._fault.reason)
            return self._fault

    def _write(self) -> StoreFault | None:
        """The fault a write that is rolled back meets (None: it would have been written)."""
        table = self.recorder.events_table_name
        if self.faults.sqlite_file is not None:
            reason = self.faults.sqlite_write(table)
            return FAULTS[reason] if reason else None
        try:
            with self.recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{int(BUSY_WAIT * 1000)}ms'")
                cursor.execute(
                    SQL(
                        "UPDATE {schema}.{table} SET originator_version = originator_version "
                        "WHERE 1 = 0"
                    ).format(
                        schema=Identifier(self.recorder.datastore.schema),
                        table=Identifier(table),
                    )
                )
        except (StoreUnavailable, PersistenceError) as exc:
            if getattr(exc.__cause__, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
                return None  # a command holds the table: the store is writing
            return self.faults.of(exc)
        return None


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
