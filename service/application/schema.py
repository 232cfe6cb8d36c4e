"""The store's tables: made once by ``arbiter db migrate``, checked by every worker at start.

Workers never create PostgreSQL tables: two gunicorn workers doing so at once on a fresh database
collide in PostgreSQL's catalogue (``pg_type_typname_nsp_index``, ``tuple concurrently updated``)
and gunicorn then stops every worker.  The migration holds a PostgreSQL advisory lock, so even two
migrations run at once take turns."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.persistence import PersistenceError

from service.application.availability import StoreUnavailable
from service.config import Config, ConfigError

log = logging.getLogger(__name__)

#: pg_advisory_lock key of Arbiter's migrations (any fixed 64-bit number)
MIGRATION_LOCK = 0x41524249544552  # "ARBITER"

MIGRATE_HINT = "run `arbiter db migrate` once before starting the workers"


class SchemaMissing(ConfigError):
    """The store has no tables: the operator must run ``arbiter db migrate``."""


@contextlib.contextmanager
def migration_lock(config: Config) -> Iterator[None]:
    """Serialise migrations on one PostgreSQL database (nothing to do for SQLite)."""
    if config.store != "postgres":
        yield
        return
    import psycopg

    with psycopg.connect(**_connect_args(config), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))


def _connect_args(config: Config) -> dict[str, Any]:
    return {
        "dbname": config.postgres_dbname,
        "host": config.postgres_host,
        "port": config.postgres_port,
        "user": config.postgres_user,
        "password": config.postgres_password,
        "connect_timeout": max(config.store_timeout, 5),
    }


def table_names(store: Any) -> list[str]:
    """The tables ``store`` reads and writes: its events and, when it snapshots, its snapshots."""
    recorders = [store.recorder]
    if store.snapshots is not None:
        recorders.append(store.snapshots.recorder)
    return [recorder.events_table_name for recorder in recorders]


def require_tables(store: Any, config: Config, *, views: Sequence[str] = ()) -> None:
    """Stop a worker whose PostgreSQL tables are missing, naming ``arbiter db migrate``.

    A database that cannot be reached now is not a reason to stop: requests answer 503 until it
    is back (and the tables are checked by the first query that needs them)."""
    if config.store != "postgres":
        return
    try:
        missing = _missing_tables(store, config, views)
    except (StoreUnavailable, PersistenceError) as exc:
        log.warning("could not check the store's tables at start (%s)", exc)
        return
    if missing:
        raise SchemaMissing(
            f"the PostgreSQL database {config.postgres_dbname!r} has no Arbiter tables "
            f"(missing: {', '.join(missing)}): {MIGRATE_HINT}"
        )


def _missing_tables(store: Any, config: Config, views: Sequence[str] = ()) -> list[str]:
    schema = config.postgres_schema or "public"
    with store.recorder.datastore.transaction(commit=False) as curs:
        curs.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,),
        )
        present = {row["table_name"] for row in curs.fetchall()}
    return [name for name in [*table_names(store), *views] if name not in present]
