"""Why the game store cannot save, in words a person reads: it is not reachable, it is read-only,
its disk is full, or its disk failed.

A failed write says why (the API's 503) and ``/healthz`` reports the same reasons
(:mod:`service.application.store_probe`).  The reason is read from the error itself -- SQLite's
result code (``SQLITE_FULL``, ``SQLITE_READONLY``), PostgreSQL's SQLSTATE (``25006`` a read-only
transaction, ``53100`` disk full), an ``OSError``'s errno -- and, for SQLite, from the file
system that holds the file: a file system that went read-only under a running server answers the
connections already open with a plain ``SQLITE_IOERR`` ("disk I/O error"), so the folder's state
(``statvfs``: read-only flag, free space) says which it is."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from eventsourcing.persistence import InterfaceError, OperationalError

from service.application.availability import UNAVAILABLE_MESSAGE, StoreUnavailable
from service.config import Config

UNREACHABLE = "unreachable"
READ_ONLY = "read-only"
DISK_FULL = "disk full"
DISK_ERROR = "disk error"

#: seconds a write probe waits for the write lock another connection holds
BUSY_WAIT = 0.5
#: below this much free space the disk of a SQLite store counts as full (a command's events and
#: their write-ahead log pages need room; SQLite fails a write that finds none)
FREE_FLOOR = 1024 * 1024


@dataclass(frozen=True)
class StoreFault:
    """One reason the store cannot save: its short ``reason``, the words shown for it, and how
    long a client should wait before trying again."""

    reason: str
    message: str
    retry_after: int


FAULTS = {
    UNREACHABLE: StoreFault(UNREACHABLE, UNAVAILABLE_MESSAGE, 2),
    READ_ONLY: StoreFault(
        READ_ONLY,
        "the game store is read-only, so nothing can be saved until the server's operator makes "
        "it writable again; this request changed nothing",
        30,
    ),
    DISK_FULL: StoreFault(
        DISK_FULL,
        "the game store's disk is full, so nothing can be saved until the server's operator "
        "frees space; this request changed nothing",
        30,
    ),
    DISK_ERROR: StoreFault(
        DISK_ERROR,
        "the game store's disk failed to write, so nothing can be saved until the server's "
        "operator repairs it; this request changed nothing",
        30,
    ),
}

#: PostgreSQL SQLSTATEs (and classes) of a store that cannot write
_SQLSTATES = {"25006": READ_ONLY, "53100": DISK_FULL, "58030": DISK_ERROR}
_ERRNOS = {
    errno.ENOSPC: DISK_FULL,
    errno.EDQUOT: DISK_FULL,
    errno.EROFS: READ_ONLY,
    errno.EIO: DISK_ERROR,
}


class StoreFaults:
    """Names the fault behind a store error.  ``sqlite_file``: the SQLite store's file (None for
    PostgreSQL), whose file system is asked when SQLite only says "disk I/O error"."""

    #: seconds a PostgreSQL write that failed for a fault of the store's (not unreachable) keeps
    #: ``/healthz`` down, unless a write succeeds first: a full disk there shows only when a
    #: write fails (SQLite's file system is asked directly instead)
    REMEMBER = 30.0

    def __init__(self, sqlite_file: Path | None) -> None:
        self.sqlite_file = sqlite_file
        self._failed: tuple[float, StoreFault] | None = None  # a real write's fault, and when

    def noted(self, fault: StoreFault) -> None:
        """A write failed for ``fault`` (the API's error handler says so)."""
        # the probe sees the others by itself: unreachable, read-only, and SQLite's disk
        if fault.reason in (DISK_FULL, DISK_ERROR) and self.sqlite_file is None:
            self._failed = (time.monotonic(), fault)

    def written(self) -> None:
        """A write succeeded: whatever failed before has passed."""
        self._failed = None

    def recent(self) -> StoreFault | None:
        """The fault a write met within :attr:`REMEMBER` seconds, if any."""
        failed = self._failed
        if failed is None or time.monotonic() - failed[0] > self.REMEMBER:
            return None
        return failed[1]

    @classmethod
    def of_config(cls, config: Config) -> StoreFaults:
        return cls(config.sqlite_file if config.store == "sqlite" else None)

    def of(self, exc: BaseException) -> StoreFault | None:
        """The fault ``exc`` shows, or None when it is no fault of the store's (a bug: a 500)."""
        for each in _chain(exc):
            reason = self._reason(each)
            if reason is not None:
                return FAULTS[reason]
        if isinstance(exc, (StoreUnavailable, OperationalError, InterfaceError)):
            return FAULTS[UNREACHABLE]
        return None

    def _reason(self, exc: BaseException) -> str | None:
        name = getattr(exc, "sqlite_errorname", None)
        if isinstance(name, str):
            if name == "SQLITE_FULL":
                return DISK_FULL
            if name.startswith("SQLITE_READONLY"):
                return READ_ONLY
            if name.startswith("SQLITE_IOERR"):
                return self.disk() or self.sqlite_write() or DISK_ERROR
            return None
        sqlstate = getattr(exc, "sqlstate", None)
        if isinstance(sqlstate, str):
            return _SQLSTATES.get(sqlstate)
        if isinstance(exc, OSError) and exc.errno in _ERRNOS:
            return _ERRNOS[exc.errno]
        return None

    def disk(self) -> str | None:
        """What the SQLite file's file system says: read-only, full, or nothing wrong (None; also
        for PostgreSQL, whose disk is the server's)."""
        if self.sqlite_file is None:
            return None
        try:
            stat = os.statvfs(self.sqlite_file.parent)
        except OSError as exc:
            return _ERRNOS.get(exc.errno or 0, UNREACHABLE)
        if stat.f_flag & os.ST_RDONLY:
            return READ_ONLY
        if stat.f_bavail * stat.f_frsize < FREE_FLOOR:
            return DISK_FULL
        return None

    def sqlite_write(self, table: str = "stored_events") -> str | None:
        """What a write on a new connection to the SQLite file meets, never kept (``UPDATE ...
        WHERE 1 = 0``, rolled back): None when it would be written.  A file system gone read-only
        under open connections fails their writes as "disk I/O error"; a new connection opens
        the file read-only and says so.  Waits at most :data:`BUSY_WAIT` for the write lock: a
        lock held by a command means the store is writing (None)."""
        if self.sqlite_file is None:
            return None
        uri = self.sqlite_file.resolve().as_uri() + "?mode=rw"  # never creates the file
        try:
            connection = sqlite3.connect(uri, uri=True, timeout=BUSY_WAIT, isolation_level=None)
            try:
                connection.execute("BEGIN")
                connection.execute(
                    f"UPDATE {table} SET originator_version = originator_version WHERE 1 = 0"  # noqa: S608 - the recorder's own table name
                )
            finally:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                connection.close()
        except sqlite3.Error as exc:
            if exc.sqlite_errorname == "SQLITE_BUSY":
                return None
            return self._reason(exc) or UNREACHABLE
        return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the errors it was raised from (eventsourcing wraps the driver's)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
