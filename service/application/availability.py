"""Fail fast when the game store is unreachable, and say so.

eventsourcing retries a failed read or write ten times, each waiting for a pooled connection: with
PostgreSQL down a request hung for minutes before one 500.  Here a connection that the pool cannot
provide within ``ARBITER_STORE_TIMEOUT`` seconds is :class:`StoreUnavailable` at once (not retried;
the API answers 503), a broken connection is still retried on a fresh one (and the pool's other
idle connections, as dead as it, are dropped at once), and the pool gives up
on a reconnection attempt after a few seconds so the next request tries afresh: service resumes
by itself once the database is back.  :func:`probe` is what ``/healthz`` reports of the store."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from eventsourcing.persistence import PersistenceError
from eventsourcing.postgres import PostgresDatastore, PostgresFactory
from psycopg import Connection
from psycopg.types.composite import CompositeInfo, register_composite
from psycopg_pool import PoolClosed, PoolTimeout, TooManyRequests

from service.domain.errors import StoreUnavailable

log = logging.getLogger(__name__)

__all__ = [
    "RECONNECT_TIMEOUT",
    "UNAVAILABLE_MESSAGE",
    "FailFastDatastore",
    "StoreUnavailable",
    "FACTORY",
    "FailFastFactory",
    "probe",
]

#: seconds the pool keeps retrying a lost connection before giving up (a waiting request then
#: starts a fresh attempt at once, instead of after an ever longer back-off)
RECONNECT_TIMEOUT = 5.0

UNAVAILABLE_MESSAGE = "the game store is not reachable; try again shortly"


class FailFastDatastore(PostgresDatastore):
    """eventsourcing's PostgreSQL datastore, failing fast when no connection can be had, and
    tolerant of a database that is down while the worker starts (its composite types are then
    registered on the first connection that succeeds)."""

    types_deferred = False

    @contextmanager
    def get_connection(self) -> Iterator[Connection[Any]]:
        try:
            with super().get_connection() as conn:
                if self.types_deferred:
                    self._register_types(conn)
                try:
                    yield conn
                except psycopg.OperationalError:
                    if conn.broken:  # the server went away: so did the pool's idle connections
                        self.pool.drain()
                    raise
        except PersistenceError as exc:
            if isinstance(exc.__cause__, (PoolTimeout, TooManyRequests, PoolClosed)):
                raise StoreUnavailable(str(exc)) from exc
            raise

    def register_type_adapters(self) -> None:
        try:
            super().register_type_adapters()
        except (StoreUnavailable, PersistenceError) as exc:
            log.warning("the store is not reachable (%s): serving 503 until it is", exc)
            self.types_deferred = True

    def _register_types(self, conn: Connection[Any]) -> None:
        for name in self.db_type_names - self.psycopg_type_adapters.keys():
            info = CompositeInfo.fetch(conn, f"{self.schema}.{name}")
            if info is None:
                return  # no tables yet: the worker's table check says what to do
            register_composite(info, conn)
            self.psycopg_type_adapters[name] = info
            self.psycopg_python_types[name] = info.python_type
        self.types_deferred = False


class FailFastFactory(PostgresFactory):
    """eventsourcing's PostgreSQL factory, chosen by ``PERSISTENCE_MODULE`` (its topic is
    :data:`FACTORY`: ``service.bootstrap`` sets it for the store and the notification process),
    whose datastore is a :class:`FailFastDatastore`.

    eventsourcing 9.5's factory makes its datastore inline in ``__init__`` from the environment,
    with no hook for its class; this factory replaces its own with one made with the same
    settings (read from the one made) before any recorder is made.  The one replaced has never
    connected: its pool is opened on first use.  (Named in ``tests/unit/
    test_eventsourcing_contract.py``: the one place Arbiter depends on the library's inner
    workings.)"""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        made = self.datastore
        timeout = float(self.env.get(self.POSTGRES_CONNECT_TIMEOUT) or 2)
        self.datastore = _fail_fast(made, timeout)
        made.close()


#: the topic ``PERSISTENCE_MODULE`` names for PostgreSQL (``service.bootstrap``)
FACTORY = f"{__name__}:{FailFastFactory.__name__}"


def _fail_fast(made: PostgresDatastore, timeout: float) -> FailFastDatastore:
    """A :class:`FailFastDatastore` with ``made``'s settings, each connection attempt given at
    most ``timeout`` seconds (libpq's, at least 1)."""
    pool = made.pool
    kwargs = dict((pool.kwargs() if callable(pool.kwargs) else pool.kwargs) or {})
    datastore = FailFastDatastore(
        dbname=kwargs["dbname"],
        host=kwargs["host"],
        port=kwargs["port"],
        user=kwargs["user"],
        password=kwargs.get("password") or "",
        connect_timeout=pool.timeout,
        idle_in_transaction_session_timeout=made.idle_in_transaction_session_timeout,
        pool_size=pool.min_size,
        max_overflow=pool.max_size - pool.min_size,
        max_waiting=pool.max_waiting,
        conn_max_age=pool.max_lifetime,
        pre_ping=made.pre_ping,
        lock_timeout=made.lock_timeout,
        schema=made.schema,
        pool_open_timeout=made.pool_open_timeout,
        get_password_func=pool.get_password_func,
        single_row_tracking=made.single_row_tracking,
        originator_id_type=made.originator_id_type,  # type: ignore[arg-type]
        enable_db_functions=made.enable_db_functions,
    )
    datastore.pool.reconnect_timeout = RECONNECT_TIMEOUT
    if isinstance(datastore.pool.kwargs, dict):
        datastore.pool.kwargs["connect_timeout"] = max(1, int(timeout))  # libpq's, per attempt
    return datastore


def probe(recorder: Any) -> dict[str, Any]:
    """Ask the store for its newest notification id: ``{"ok", "ms"[, "error"]}``."""
    started = time.perf_counter()
    try:
        recorder.max_notification_id()
    except (StoreUnavailable, PersistenceError) as exc:
        log.warning("store probe failed: %s", exc)  # the reason stays in the log, not the answer
        return {"ok": False, "ms": _since(started), "error": UNAVAILABLE_MESSAGE}
    return {"ok": True, "ms": _since(started)}


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
