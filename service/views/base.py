"""What every persisted view is, and its tables in SQLite and PostgreSQL, written once for both.

Every view is a tracking recorder (eventsourcing's, :class:`View`) that can also say how many rows
it holds, be built under another name and be swapped in for its live tables, and park an event it
cannot take (recorded with the error, in the store's own database, with the position past it); a
list of one is read a keyset page at a time (:func:`cut_page`, :func:`page_limit`).

A view declares its tables (:class:`Table`: columns and indexes) and writes its statements once,
naming its tables as ``{name}`` and its parameters as ``%s`` (and ``{bytewise}`` where text is to
be ordered by code point, as Python orders it, whatever the database's collation: a column's type
or an expression); :class:`SQLiteViewStore` and
:class:`PostgresViewStore` put in the dialect's table names (PostgreSQL's qualified by the store's
schema) and parameter marks, run a projection's writes and its tracking row in one transaction of
the store's own eventsourcing datastore (:meth:`SqlView.write`), create, count, drop, and swap in
a rebuilt copy.

Each view records its position in its own tracking table (``<first table>_tracking``, one row per
log followed, moved only forward), so that views are rebuilt and swapped one at a time.  The view
implements eventsourcing's ``TrackingRecorder`` interface itself: the library's SQLite tracking
recorder names its table ``tracking`` whatever the recorder (9.5), so it cannot hold one per view,
and the views use none of the library's recorders' statements or attributes -- only the
datastores' ``transaction``.

The events a view could not take are parked in one table of the database, :data:`PARKED`, shared
by every view (and every process and host on the store), each row keyed by the view's first table
as its copy names it and the event's position: the row and the view's position past the event are
written in one transaction (:meth:`SqlView.park`)."""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache, cached_property
from typing import Any, TypeVar

from eventsourcing.persistence import IntegrityError, Tracking, TrackingRecorder
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore

K = TypeVar("K")
T = TypeVar("T")
#: the most rows a keyset page holds (``limit`` of a list's query is at most this)
PAGE_MAX = 100
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime) -> int:
    """``moment`` in microseconds since the epoch (how the views store times)."""
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(value: int) -> datetime:
    """A time the views store (microseconds since the epoch) as a datetime."""
    return EPOCH + timedelta(microseconds=int(value))


class View(TrackingRecorder, ABC):
    #: the view's first table (its tracking table is ``<table>_tracking``)
    table: str
    #: each of the view's tables by its own name, as this copy names it (a rebuild's differ)
    names: dict[str, str]

    def batch(self, *, tracked: bool = True) -> AbstractContextManager[None]:
        """One transaction for the events processed inside (a view that cannot: one each);
        ``tracked=False``: their positions are not recorded (a parked event applied again)."""
        return nullcontext()

    @abstractmethod
    def park(self, tracking: Tracking, event: dict[str, Any], error: str, at: str) -> None:
        """Park the event at ``tracking`` (``event``: its ``topic``, ``originator_id`` and
        ``originator_version``) with ``error`` at ``at``, and record the position past it, in
        one transaction."""

    @abstractmethod
    def parked(
        self,
        views: Sequence[str] | None = None,
        *,
        dropped: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The events parked by ``views`` (views' :attr:`table`; default: every view of the
        database), by view and position (``dropped``: those dropped), each with ``view_name``
        and ``notification_id``."""

    @abstractmethod
    def unpark(self, position: int) -> None:
        """Remove this view's park record of the event at ``position``."""

    @abstractmethod
    def still_parked(self, position: int, error: str, at: str) -> None:
        """The parked event at ``position`` was tried again and failed with ``error``."""

    @abstractmethod
    def drop_parked(self, position: int, by: str, reason: str, at: str) -> int:
        """Drop the parked event at ``position``, recording who and why; how many (0 or 1)."""

    @abstractmethod
    def create_table(self) -> None:
        """Create the view's tables (and, unless it is being rebuilt, its indexes), if missing."""

    @abstractmethod
    def rows(self) -> int:
        """How many rows the view holds."""

    @abstractmethod
    def drop(self) -> None:
        """Drop the view's tables, if they exist."""

    @abstractmethod
    def replace(self, live: View) -> None:
        """In one transaction: drop ``live``'s tables, rename this view's to ``live``'s and make
        ``live``'s indexes (this view was built without them)."""


def page_limit(limit: int) -> int:
    """``limit`` within 1..``PAGE_MAX``."""
    return max(1, min(limit, PAGE_MAX))


def cut_page(
    rows: list[dict[str, Any]], limit: int, key: Callable[[dict[str, Any]], K]
) -> tuple[list[dict[str, Any]], K | None]:
    """A keyset page from ``rows`` read with ``limit + 1``: the first ``limit`` rows, and the key
    of the last of them when there was one more (the next page starts after it), else None."""
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (key(rows[-1]) if more and rows else None)


def every_page(read: Callable[[K | None], tuple[list[T], K | None]]) -> list[T]:
    """Every row of a keyset list, reading it a page at a time (``read(after)``: a page and the
    key to the next, None after the last) -- for the operator's lists and their tests; a request
    reads one page."""
    found: list[T] = []
    key: K | None = None
    while True:
        rows, key = read(key)
        found += rows
        if key is None:
            return found


NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: one statement and its parameters
Statement = tuple[str, Sequence[Any]]


@dataclass(frozen=True)
class Table:
    """One of a view's tables: ``columns`` as in ``CREATE TABLE`` (types both dialects take:
    TEXT, INTEGER, BIGINT), and its secondary indexes, each ``(suffix, "col, col")``."""

    name: str
    columns: str
    indexes: tuple[tuple[str, str], ...] = ()
    #: a table added to a view after its others: the statement that derives its rows from them,
    #: run when the tables are made and this one is empty (a store of an earlier release)
    fill: str | None = None


#: the events the views could not take (``ProjectionRunner``): the view (its first table, as its
#: copy names it: a rebuild's carry ``_rebuild`` until swapped in) and the event's position, what
#: the event was, the error, when and how often it was tried; an operator's drop keeps the row,
#: saying who dropped it, when and why
PARKED = Table(
    "parked_events",
    "view_name TEXT NOT NULL, notification_id BIGINT NOT NULL, topic TEXT NOT NULL, "
    "originator_id TEXT NOT NULL, originator_version BIGINT NOT NULL, error TEXT NOT NULL, "
    "parked_at TEXT NOT NULL, tries INTEGER NOT NULL, dropped_at TEXT, dropped_by TEXT, "
    "reason TEXT, PRIMARY KEY (view_name, notification_id)",
)
_PARKED_COLUMNS = (
    "view_name, notification_id, topic, originator_id, originator_version, error, parked_at, "
    "tries, dropped_at, dropped_by, reason"
)


class SqlView(View):
    """A view over :attr:`TABLES`; the dialect classes below supply the connection and names."""

    TABLES: tuple[Table, ...] = ()
    #: the dialect's collation of text by code point (``{bytewise}``): SQLite's BINARY compares
    #: UTF-8 bytes, PostgreSQL's "C" too -- the order of Python's ``str``, in both
    BYTEWISE = "COLLATE BINARY"

    def _setup(self, suffix: str, indexed: bool) -> None:
        for table in self.TABLES:
            assert NAME.match(table.name), table.name
        #: each table's name as this view has it (a rebuild's carry ``_rebuild``)
        self.names = {t.name: f"{t.name}{suffix}" for t in self.TABLES}
        self.table = self.names[self.TABLES[0].name]
        self.indexed = indexed

    # -- the dialect ----------------------------------------------------------------------------------
    @abstractmethod
    def _qualified(self, physical: str) -> str:
        """A table's name as a statement names it."""

    @abstractmethod
    def _mark(self, sql: str) -> str:
        """``sql`` with the dialect's parameter marks for ``%s``."""

    #: the store's eventsourcing datastore (SQLite's or PostgreSQL's): its transactions only
    datastore: Any

    @contextmanager
    def _cursor(self, commit: bool) -> Iterator[Any]:
        """A transaction of the store's own datastore (both dialects' have one)."""
        with self.datastore.transaction(commit=commit) as cursor:
            yield cursor

    def _track(self, cursor: Any, tracking: Tracking) -> None:
        """Record ``tracking`` (a single row per application, moved only forward): a position not
        beyond the recorded one is an ``IntegrityError`` (another runner recorded it first), as
        eventsourcing's tracking recorders have it.  Nothing in a batch that is not tracked (a
        parked event applied again)."""
        if getattr(self._local(), "untracked", False):
            return
        cursor.execute(self._tracking_insert, [tracking.application_name, tracking.notification_id])
        if cursor.fetchone() is None:
            raise IntegrityError(
                f"view {self.table}: position {tracking.notification_id} is already recorded"
            )

    def max_tracking_id(self, application_name: str) -> int | None:
        """The position recorded for ``application_name`` (the store's log), or None."""
        with self._in_batch_or(commit=False) as cursor:
            cursor.execute(self._tracking_select, [application_name])
            row = cursor.fetchone()
        return None if row is None or row["last_id"] is None else int(row["last_id"])

    @cached_property
    def _tracking_insert(self) -> str:
        """The statement that moves this view's position forward (made once per view)."""
        table = self._qualified(self._tracking_table())
        return self._mark(
            f"INSERT INTO {table} (application_name, notification_id) VALUES (%s, %s) "
            "ON CONFLICT (application_name) DO UPDATE "
            "SET notification_id = excluded.notification_id "
            f"WHERE {table}.notification_id < excluded.notification_id "
            "RETURNING notification_id"
        )

    @cached_property
    def _tracking_select(self) -> str:
        """The statement that reads this view's position (made once per view)."""
        table = self._qualified(self._tracking_table())
        return self._mark(
            f"SELECT MAX(notification_id) AS last_id FROM {table} WHERE application_name = %s"
        )

    #: how the dialect makes a view's tracking table (``{table}``: its qualified name)
    TRACKING_CREATE = (
        "CREATE TABLE IF NOT EXISTS {table} (application_name TEXT, notification_id BIGINT, "
        "PRIMARY KEY (application_name))"
    )

    def create_table(self) -> None:
        """Make the view's tables, its tracking table and the parked events' (and, unless it is
        being rebuilt, its indexes) if missing, in one transaction; then fill a table added
        since the others were made."""
        with self._cursor(commit=True) as cursor:
            for statement in self._table_statements():
                cursor.execute(statement)
            cursor.execute(
                self.TRACKING_CREATE.format(table=self._qualified(self._tracking_table()))
            )
        self.fill_new_tables()

    def _tracking_table(self) -> str:
        """This view's tracking table (unqualified): ``<first table>_tracking``."""
        return f"{self.table}_tracking"

    # -- what a view does with its tables -------------------------------------------------------------
    def sql(self, text: str) -> str:
        """``text`` with the view's table names put in and the dialect's parameter marks."""
        names = {k: self._qualified(v) for k, v in self.names.items()}
        return self._mark(text.format(bytewise=self.BYTEWISE, **names))

    @contextmanager
    def batch(self, *, tracked: bool = True) -> Iterator[None]:
        """One transaction for the writes (and this thread's reads) made inside, instead of one
        per event: a runner processes a run of events in it, their rows and the last position
        committed together, or none of them.  ``tracked=False``: the events' positions are not
        recorded (a parked event applied again, behind the view's position)."""
        local = self._local()
        if getattr(local, "cursor", None) is not None:
            yield  # already in one
            return
        with self._cursor(commit=True) as cursor:
            local.cursor, local.untracked = cursor, not tracked
            try:
                yield
            finally:
                local.cursor, local.untracked = None, False

    def _local(self) -> threading.local:
        local: threading.local | None = self.__dict__.get("_batching")
        if local is None:
            local = self.__dict__.setdefault("_batching", threading.local())
        return local

    @contextmanager
    def _in_batch_or(self, commit: bool) -> Iterator[Any]:
        cursor = getattr(self._local(), "cursor", None)
        if cursor is not None:
            yield cursor
            return
        with self._cursor(commit=commit) as fresh:
            yield fresh

    def write(self, tracking: Tracking, *statements: Statement) -> None:
        """Run ``statements`` and record ``tracking``, in one transaction (the batch's, in one)."""
        with self._in_batch_or(commit=True) as cursor:
            for text, params in statements:
                cursor.execute(self.sql(text), list(params))
            self._track(cursor, tracking)

    def write_then(self, tracking: Tracking, first: Statement, *then: Statement) -> int:
        """Run ``first``, then ``then`` only if ``first`` changed a row, and record ``tracking``,
        in one transaction; returns the rows ``first`` changed."""
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(self.sql(first[0]), list(first[1]))
            changed = int(getattr(cursor, "sqlite_cursor", cursor).rowcount)
            if changed:
                for text, params in then:
                    cursor.execute(self.sql(text), list(params))
            self._track(cursor, tracking)
            return changed

    def insert_tracking(self, tracking: Tracking) -> None:
        """Record only a position (an event not of this view's topics), in the batch if one."""
        with self._in_batch_or(commit=True) as cursor:
            self._track(cursor, tracking)

    # -- parked events ------------------------------------------------------------------------------
    def _parked_sql(self, text: str) -> str:
        return self._mark(text.replace("{parked}", self._qualified(PARKED.name)))

    def park(self, tracking: Tracking, event: dict[str, Any], error: str, at: str) -> None:
        """Park the event at ``tracking`` (``event``: its topic, originator_id and
        originator_version) with ``error``, and record the position, in one transaction."""
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self._parked_sql(
                    "INSERT INTO {parked} (view_name, notification_id, topic, originator_id, "
                    "originator_version, error, parked_at, tries) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, 1) "
                    "ON CONFLICT (view_name, notification_id) DO NOTHING"
                ),
                [
                    self.table,
                    tracking.notification_id,
                    event["topic"],
                    event["originator_id"],
                    event["originator_version"],
                    error,
                    at,
                ],
            )
            self._track(cursor, tracking)

    def parked(
        self,
        views: Sequence[str] | None = None,
        *,
        dropped: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The events parked by ``views`` (their first tables; default: every view of this
        database), by view and position; ``dropped``: those dropped instead."""
        where = ["dropped_at IS NOT NULL" if dropped else "dropped_at IS NULL"]
        if views is not None:
            where.append(f"view_name IN ({', '.join(['%s'] * len(views))})" if views else "0 = 1")
        text = (
            f"SELECT {_PARKED_COLUMNS} FROM {{parked}} WHERE {' AND '.join(where)} "
            "ORDER BY view_name, notification_id"
        ) + (f" LIMIT {int(limit)}" if limit is not None else "")
        with self._in_batch_or(commit=False) as cursor:
            cursor.execute(self._parked_sql(text), list(views or ()))
            return [dict(row) for row in cursor.fetchall()]

    def unpark(self, position: int) -> None:
        """Remove this view's park record of the event at ``position`` (in the batch if one)."""
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self._parked_sql(
                    "DELETE FROM {parked} WHERE view_name = %s AND notification_id = %s"
                ),
                [self.table, position],
            )

    def still_parked(self, position: int, error: str, at: str) -> None:
        """The parked event at ``position`` was tried again and failed with ``error``."""
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self._parked_sql(
                    "UPDATE {parked} SET error = %s, parked_at = %s, tries = tries + 1 "
                    "WHERE view_name = %s AND notification_id = %s"
                ),
                [error, at, self.table, position],
            )

    def drop_parked(self, position: int, by: str, reason: str, at: str) -> int:
        """Drop the parked event at ``position`` (the view does without it): the record stays,
        saying who dropped it, when and why; how many were dropped (0 or 1)."""
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self._parked_sql(
                    "UPDATE {parked} SET dropped_at = %s, dropped_by = %s, reason = %s "
                    "WHERE view_name = %s AND notification_id = %s AND dropped_at IS NULL"
                ),
                [at, by, reason, self.table, position],
            )
            return int(getattr(cursor, "sqlite_cursor", cursor).rowcount)

    def _parked_create(self) -> str:
        return f"CREATE TABLE IF NOT EXISTS {self._qualified(PARKED.name)} ({PARKED.columns})"

    def execute(self, text: str, params: Sequence[Any] = ()) -> int:
        """Run one statement in its own transaction with no tracking row (a write that is not the
        projection's: the clock checks'); how many rows it changed."""
        with self._cursor(commit=True) as cursor:
            cursor.execute(self.sql(text), list(params))
            return int(getattr(cursor, "sqlite_cursor", cursor).rowcount)

    def query(self, text: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._in_batch_or(commit=False) as cursor:
            cursor.execute(self.sql(text), list(params))
            return [dict(row) for row in cursor.fetchall()]

    def query_one(self, text: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """The first row ``text`` selects, or None."""
        found = self.query(text, params)
        return found[0] if found else None

    def rows(self) -> int:
        found = self.query(f"SELECT COUNT(*) AS n FROM {{{self.TABLES[0].name}}}")
        return int(found[0]["n"])

    def _table_statements(self) -> list[str]:
        made = [
            f"CREATE TABLE IF NOT EXISTS {self._qualified(self.names[t.name])} "
            f"({t.columns.replace('{bytewise}', self.BYTEWISE)})"
            for t in self.TABLES
        ]
        return [*made, self._parked_create()] + (self._index_statements() if self.indexed else [])

    def fill_new_tables(self) -> None:
        """Run the :attr:`Table.fill` of each table that is empty (after the tables are made)."""
        for t in self.TABLES:
            if t.fill is not None and not self.query(f"SELECT 1 AS one FROM {{{t.name}}} LIMIT 1"):
                self.execute(t.fill)

    def _index_statements(self, names: dict[str, str] | None = None) -> list[str]:
        names = names or self.names
        return [
            f"CREATE INDEX IF NOT EXISTS {names[t.name]}_{suffix} "
            f"ON {self._qualified(names[t.name])} ({columns})"
            for t in self.TABLES
            for suffix, columns in t.indexes
        ]

    def _physical(self) -> list[str]:
        return [*self.names.values(), self._tracking_table()]

    def drop(self) -> None:
        """Drop the view's tables, and the records of the events it parked."""
        with self._cursor(commit=True) as cursor:
            for physical in self._physical():
                cursor.execute(f"DROP TABLE IF EXISTS {self._qualified(physical)}")
            cursor.execute(self._parked_create())
            cursor.execute(
                self._parked_sql("DELETE FROM {parked} WHERE view_name = %s"), [self.table]
            )

    def replace(self, live: View) -> None:
        assert isinstance(live, SqlView) and type(live) is type(self)
        with self._cursor(commit=True) as cursor:
            for physical in live._physical():
                cursor.execute(f"DROP TABLE IF EXISTS {self._qualified(physical)}")
            for mine, theirs in zip(self._physical(), live._physical(), strict=True):
                cursor.execute(f"ALTER TABLE {self._qualified(mine)} RENAME TO {theirs}")
            for statement in live._index_statements():
                cursor.execute(statement)
            # the events parked: the rebuild's, under the live view's name (an event an operator
            # dropped from the live view, parked again, stays dropped); the live view's others go
            # (the worker carries the swapped-in view on from where the rebuild stopped, parking
            # again what it cannot take)
            fresh, gone = [self.table], [live.table]
            for text, params in (
                (
                    "DELETE FROM {parked} WHERE view_name = %s AND NOT (dropped_at IS NOT NULL "
                    "AND notification_id IN "
                    "(SELECT notification_id FROM {parked} WHERE view_name = %s))",
                    gone + fresh,
                ),
                (
                    "DELETE FROM {parked} WHERE view_name = %s AND notification_id IN "
                    "(SELECT notification_id FROM {parked} WHERE view_name = %s)",
                    fresh + gone,
                ),
                ("UPDATE {parked} SET view_name = %s WHERE view_name = %s", gone + fresh),
            ):
                cursor.execute(self._parked_sql(text), params)


class SQLiteViewStore(SqlView):
    """A view in the store's SQLite file (through its datastore's transactions)."""

    TRACKING_CREATE = SqlView.TRACKING_CREATE + " WITHOUT ROWID"

    def __init__(self, datastore: SQLiteDatastore, *, suffix: str = "", indexed: bool = True):
        self._setup(suffix, indexed)
        self.datastore = datastore

    def _qualified(self, physical: str) -> str:
        return physical

    def _mark(self, sql: str) -> str:
        return sql.replace("%s", "?")


class PostgresViewStore(SqlView):
    """A view in the store's PostgreSQL database and schema (made by ``arbiter db migrate``)."""

    BYTEWISE = 'COLLATE "C"'
    #: as eventsourcing's own tracking tables are made: rows updated in place, rarely vacuumed
    TRACKING_CREATE = SqlView.TRACKING_CREATE + (
        " WITH (autovacuum_enabled = true, autovacuum_vacuum_threshold = 100000000, "
        "autovacuum_vacuum_scale_factor = 0.5, autovacuum_analyze_threshold = 1000, "
        "autovacuum_analyze_scale_factor = 0.01)"
    )

    def __init__(self, datastore: PostgresDatastore, *, suffix: str = "", indexed: bool = True):
        self._setup(suffix, indexed)
        self.datastore = datastore

    def _qualified(self, physical: str) -> str:
        schema = str(self.datastore.schema)
        assert NAME.match(physical) and '"' not in schema
        return f'"{schema}"."{physical}"'

    def _mark(self, sql: str) -> str:
        return sql


def on_datastore(view: type[SqlView], datastore: Any) -> Callable[..., SqlView]:
    """The class of ``view`` (its tables and queries) over ``datastore``'s dialect."""
    return _dialect(view, isinstance(datastore, PostgresDatastore))


@cache
def _dialect(view: type[SqlView], postgres: bool) -> Callable[..., SqlView]:
    base = PostgresViewStore if postgres else SQLiteViewStore
    return type(f"{base.__name__[: -len('ViewStore')]}{view.__name__}", (base, view), {})
