"""Anchored heads: each game's last version and hash, signed, kept apart from the event rows.

The hash chain shows any change inside a log but not a cut tail: delete the last rows and what is
left still chains.  So every commit also records the game's head (version, hash and an HMAC under
the server key, ``service.domain.chain.head_mac``) here -- in a SQLite file in the keys folder
(``ARBITER_HEADS``, default ``$ARBITER_KEYS/heads.sqlite``), not in the event store -- and
``arbiter audit verify`` reports a log that ends below its head.  A head only moves forward: a
commit below it is refused (``ArbiterStore.commit``) until an operator reconciles the game
(``arbiter audit reconcile``, a signed ``HeadReconciled`` event), which resets it.
``arbiter audit heads`` prints every signed head, for an operator to publish or archive.

On several hosts the heads go to a PostgreSQL database they all share, apart from the events'
(``ARBITER_HEADS=postgresql://…``, :class:`PostgresHeads`)."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.domain.chain import head_mac

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS heads (
    game TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    hash TEXT NOT NULL,
    at TEXT NOT NULL,
    mac TEXT NOT NULL
)"""
_UPSERT = """
INSERT INTO heads (game, version, hash, at, mac) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (game) DO UPDATE SET version = excluded.version, hash = excluded.hash,
    at = excluded.at, mac = excluded.mac
WHERE excluded.version > heads.version"""
_OPEN_SECONDS = 10
_COLUMNS = ("game", "version", "hash", "at", "mac")


class SqliteHeads:
    """Signed heads in their own SQLite file (owner-only), shared by the workers of one host."""

    def __init__(self, path: Path, key: bytes) -> None:
        self.path = path
        self._key = key
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            path.touch(mode=0o600)
        path.chmod(0o600)
        self._conn = sqlite3.connect(
            path, timeout=_OPEN_SECONDS, check_same_thread=False, isolation_level=None
        )
        self._prepare()

    def _prepare(self) -> None:
        """WAL and the table.  Several workers open a new file at once when a server starts;
        switching it to WAL takes the file for itself and is answered "database is locked" at
        once, without waiting out the busy timeout, so it is retried here for as long."""
        deadline = time.monotonic() + _OPEN_SECONDS
        while True:
            try:
                if self._conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.execute(_SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def record(self, game: str, version: int, digest: str) -> None:
        """Move ``game``'s head to ``version`` (never back)."""
        mac = head_mac(self._key, game, version, digest)
        at = datetime.now(UTC).isoformat()
        with self._lock:
            self._conn.execute(_UPSERT, (game, version, digest, at, mac))

    def reset(self, game: str, version: int, digest: str) -> None:
        """Anchor ``game``'s head at ``version`` even below the head it had: only after a
        ``HeadReconciled`` event, the operator's record of a log restored below its head."""
        mac = head_mac(self._key, game, version, digest)
        at = datetime.now(UTC).isoformat()
        with self._lock:
            self._conn.execute(
                "INSERT INTO heads (game, version, hash, at, mac) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (game) DO UPDATE SET version = excluded.version, "
                "hash = excluded.hash, at = excluded.at, mac = excluded.mac",
                (game, version, digest, at, mac),
            )

    def restore(self, head: dict[str, Any]) -> None:
        """Put back a head as a backup holds it (signature and time included), for a game that
        has none here: ``arbiter restore`` writes only into an empty heads file."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO heads (game, version, hash, at, mac) VALUES (?, ?, ?, ?, ?)",
                tuple(head[k] for k in _COLUMNS),
            )

    def get(self, game: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT game, version, hash, at, mac FROM heads WHERE game = ?", (game,)
            ).fetchone()
        return dict(zip(_COLUMNS, row, strict=True)) if row else None

    def all(self) -> Iterator[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT game, version, hash, at, mac FROM heads ORDER BY game"
            ).fetchall()
        for row in rows:
            yield dict(zip(_COLUMNS, row, strict=True))

    def anchor(self, game: str, version: int, digest: str) -> None:
        """:meth:`record` that never fails a commit already written: a head left behind is
        reported by the audit as an unanchored tail, never as a cut."""
        try:
            self.record(game, version, digest)
        except sqlite3.Error:
            log.exception("could not anchor the head of game %s at %s", game, version)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


_PG_SCHEMA = """
CREATE TABLE IF NOT EXISTS arbiter_heads (
    game TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    hash TEXT NOT NULL,
    at TEXT NOT NULL,
    mac TEXT NOT NULL
)"""
_PG_UPSERT = """
INSERT INTO arbiter_heads (game, version, hash, at, mac) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (game) DO UPDATE SET version = excluded.version, hash = excluded.hash,
    at = excluded.at, mac = excluded.mac
WHERE excluded.version > arbiter_heads.version"""


class PostgresHeads:
    """Signed heads in a PostgreSQL database every host shares (``ARBITER_HEADS=postgresql://…``),
    apart from the event store's database: with heads on each host's disk, a host that never
    served a game's later commands could not tell that the events were put back below them
    (issue 53).  The same behaviour as :class:`SqliteHeads`, row for row (``arbiter backup``,
    ``restore`` and ``audit heads`` read and write it the same way).  One connection per process,
    opened again once if it was lost."""

    def __init__(self, url: str, key: bytes) -> None:
        self.url = url
        self._key = key
        self._lock = threading.Lock()
        self._conn: Any = None
        with self._lock:
            self._connect()

    def _connect(self) -> Any:
        import psycopg

        if self._conn is not None and not self._conn.closed:
            return self._conn
        self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        # several workers may start at once: the one that loses the race finds the table
        with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
            self._conn.execute(_PG_SCHEMA)
        return self._conn

    def _execute(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with self._lock:
            for attempt in (1, 2):
                try:
                    cursor = self._connect().execute(statement, params)
                    return cursor.fetchall() if cursor.description else []
                except psycopg.OperationalError:
                    if self._conn is not None:
                        self._conn.close()
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    def record(self, game: str, version: int, digest: str) -> None:
        mac = head_mac(self._key, game, version, digest)
        at = datetime.now(UTC).isoformat()
        self._execute(_PG_UPSERT, (game, version, digest, at, mac))

    def reset(self, game: str, version: int, digest: str) -> None:
        mac = head_mac(self._key, game, version, digest)
        at = datetime.now(UTC).isoformat()
        self._execute(
            "INSERT INTO arbiter_heads (game, version, hash, at, mac) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (game) DO UPDATE SET version = excluded.version, "
            "hash = excluded.hash, at = excluded.at, mac = excluded.mac",
            (game, version, digest, at, mac),
        )

    def restore(self, head: dict[str, Any]) -> None:
        self._execute(
            "INSERT INTO arbiter_heads (game, version, hash, at, mac) VALUES (%s, %s, %s, %s, %s)",
            tuple(head[k] for k in _COLUMNS),
        )

    def get(self, game: str) -> dict[str, Any] | None:
        rows = self._execute(
            "SELECT game, version, hash, at, mac FROM arbiter_heads WHERE game = %s", (game,)
        )
        return dict(zip(_COLUMNS, rows[0], strict=True)) if rows else None

    def all(self) -> Iterator[dict[str, Any]]:
        rows = self._execute("SELECT game, version, hash, at, mac FROM arbiter_heads ORDER BY game")
        for row in rows:
            yield dict(zip(_COLUMNS, row, strict=True))

    def count(self) -> int:
        return int(self._execute("SELECT count(*) FROM arbiter_heads")[0][0])

    def anchor(self, game: str, version: int, digest: str) -> None:
        """:meth:`record` that never fails a commit already written (see :class:`SqliteHeads`)."""
        import psycopg

        try:
            self.record(game, version, digest)
        except psycopg.Error:
            log.exception("could not anchor the head of game %s at %s", game, version)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
