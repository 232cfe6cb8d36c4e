"""eventsourcing's PostgreSQL application recorder, each append done in one statement.

Every append takes an EXCLUSIVE lock on the events table, so that notification ids are committed in
their order and a log follower never skips one (``service.application.store.LogFollower``); the
lock is held until COMMIT.  eventsourcing sends the lock, NOTIFY and INSERT, waits for their
results, and only then sends COMMIT: the table stays locked while the worker that holds it waits
for its interpreter lock among its other threads, and every other worker's append queues behind
it (under load PostgreSQL showed most backends waiting on the relation lock while its holder sat
"idle in transaction").  Here one statement calls a function (created by ``arbiter db migrate``)
that takes the same lock, notifies and inserts, in the statement's own transaction: the lock is
held only while the server inserts and syncs its WAL.  Same lock, same atomicity, same durability;
a lost race (the unique version) still raises ``IntegrityError`` and writes nothing.

An event is stored only right after its stream's last stored version (``FOLLOWS_FUNCTION``, a
trigger): a write past a gap -- a database put back under a host whose cache is ahead -- is refused
in the inserting transaction, as a lost race is.

A database migrated before the function existed still works, the eventsourcing way, with a warning
to run ``arbiter db migrate``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Composable, Identifier
from psycopg.types.numeric import Int8

log = logging.getLogger(__name__)

#: appends of up to this many events send a parameter per value; larger ones an array per column
SCALAR_APPEND = 16


#: the check behind the trigger ``<table>_follows`` (``arbiter db migrate`` creates both): an event
#: is inserted only if its stream holds the version before it (or it is a stream's first, version
#: 1), checked in the inserting transaction -- whatever a host's cache believes, a database put
#: back to an earlier dump is never continued past its end (a gap).  A row-level BEFORE trigger
#: sees the rows inserted before it by the same statement, so an append of several events checks
#: each against the one before.  Refused: SQLSTATE 23000, eventsourcing's ``IntegrityError``, the
#: same as a lost race.
FOLLOWS_FUNCTION = (
    "CREATE OR REPLACE FUNCTION {schema}.{check}() RETURNS trigger LANGUAGE plpgsql AS $BODY$ "
    "BEGIN "
    "IF NEW.originator_version <> 1 AND NOT EXISTS (SELECT 1 FROM {schema}.{table} "
    "WHERE originator_id = NEW.originator_id "
    "AND originator_version = NEW.originator_version - 1) THEN "
    "RAISE EXCEPTION 'event % of % does not follow the last stored version of its stream', "
    "NEW.originator_version, NEW.originator_id USING ERRCODE = 'integrity_constraint_violation'; "
    "END IF; "
    "RETURN NEW; "
    "END; $BODY$"
)
FOLLOWS_TRIGGER = (
    "CREATE OR REPLACE TRIGGER {check} BEFORE INSERT ON {schema}.{table} "
    "FOR EACH ROW EXECUTE FUNCTION {schema}.{check}()"
)


class OneTripRecorder(PostgresApplicationRecorder):
    """Appends through ``<events table>_append_rows(ids, versions, topics, states)`` (see the
    module)."""

    def __init__(self, datastore: PostgresDatastore, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        self.one_trip = True
        names = {
            "schema": Identifier(self.datastore.schema),
            "table": Identifier(self.events_table_name),
            "function": Identifier(f"{self.events_table_name}_append_rows"),
            "event": Identifier(self.stored_event_type_name),
            "channel": Identifier(self.channel_name),
        }
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}("
                "ids uuid[], versions bigint[], topics text[], states bytea[]) "
                "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ BEGIN "
                "SET LOCAL lock_timeout = '{timeout}s'; "
                "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "RETURN QUERY INSERT INTO {schema}.{table} "
                "(originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) "
                "RETURNING notification_id; "
                "END; $BODY$"
            ).format(timeout=self.datastore.lock_timeout, **names)
        )
        # ``select_notifications(topics=...)`` filters by topic: the log's followers and the
        # projections' runners read a topic's events by this index, not by scanning the log
        self.sql_create_statements.append(
            SQL(
                "CREATE INDEX IF NOT EXISTS {index} ON {schema}.{table} (topic, notification_id)"
            ).format(index=Identifier(f"{self.events_table_name}_topic_idx"), **names)
        )
        # an event is stored only right after its stream's last stored version (issue 53): see
        # ``FOLLOWS``; on every insert path (the append function, eventsourcing's own, a restore)
        names_follow = {**names, "check": Identifier(f"{self.events_table_name}_follows")}
        self.sql_create_statements.append(SQL(FOLLOWS_FUNCTION).format(**names_follow))
        self.sql_create_statements.append(SQL(FOLLOWS_TRIGGER).format(**names_follow))
        self._names = names
        #: statements rendered to bytes once: psycopg renders a composed statement on every
        #: execute (quoting each identifier), a measurable share of a command (``make bench``)
        self._rendered: dict[Any, bytes] = {}

    def _append_statement(self, count: int | None) -> Composable:
        """The append of ``count`` events, a parameter per value (or, for ``None``, an array per
        column): ``<table>_append_rows(ids, versions, topics, states)``."""
        arrays = [
            SQL("ARRAY[{}]::{}[]").format(SQL(", ").join([SQL("%b")] * count), SQL(kind))
            if count is not None
            else SQL("%b::{}[]").format(SQL(kind))
            for kind in ("uuid", "bigint", "text", "bytea")
        ]
        return SQL(
            "SELECT notification_id FROM {schema}.{function}({arrays}) AS notification_id"
        ).format(arrays=SQL(", ").join(arrays), **self._names)

    def _render(
        self, key: Any, build: Callable[[], Composable], conn: psycopg.Connection[Any]
    ) -> bytes:
        """The statement ``build`` makes, composed and rendered the first time ``key`` is asked."""
        rendered = self._rendered.get(key)
        if rendered is None:
            rendered = self._rendered[key] = build().as_bytes(conn)
        return rendered

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """eventsourcing's own query (the same statement and parameters), rendered once."""
        params = [originator_id, *(p for p in (gt, lte, limit) if p is not None)]

        def build() -> Composable:
            statement = self.select_events_statement
            if gt is not None:
                statement += SQL(" AND originator_version > %s")
            if lte is not None:
                statement += SQL(" AND originator_version <= %s")
            statement += SQL(f" ORDER BY originator_version {'DESC' if desc else 'ASC'}")
            return statement + SQL(" LIMIT %s") if limit is not None else statement

        key = ("select", gt is not None, lte is not None, desc, limit is not None)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._render(key, build, conn), params, prepare=True)
            return [
                StoredEvent(
                    originator_id=row["originator_id"],
                    originator_version=row["originator_version"],
                    topic=row["topic"],
                    state=bytes(row["state"]),
                )
                for row in curs.fetchall()
            ]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events or not self.one_trip:
            return super().insert_events(stored_events, **kwargs)
        # each value its own binary parameter, an array per column built by the server: psycopg
        # dumps a scalar in C but an array (or a composite row) in Python, at several times the
        # cost (about 0.1 ms of CPU per command with arrays, 0.3 ms with rows; ``make bench``)
        columns = (
            [e.originator_id for e in stored_events],
            [Int8(e.originator_version) for e in stored_events],
            [e.topic for e in stored_events],
            [e.state for e in stored_events],
        )
        # more events: one statement whatever the count (within PostgreSQL's 65,535 parameters)
        count = len(stored_events) if len(stored_events) <= SCALAR_APPEND else None
        params = [v for column in columns for v in column] if count else list(columns)
        # rows as tuples: the connection's dict rows build a row maker per execute, for one column
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            statement = self._render(("append", count), lambda: self._append_statement(count), conn)
            try:
                curs.execute(statement, params, prepare=True)
            except psycopg.errors.UndefinedFunction:
                log.warning("the append function is missing: run `arbiter db migrate`")
                self.one_trip = False
            else:
                return [row[0] for row in curs.fetchall()]
        return super().insert_events(stored_events, **kwargs)
