"""The mark of a restore in progress: a table ``arbiter_restoring`` in the event store itself.

``arbiter restore`` makes it before it writes anything and drops it only once the heads are
written; a restore that stops half-way (a crash, the disk full, the database gone) leaves it, and
no server starts on such a store (``build_services`` refuses), nor does a second restore.  It is in
the store, not a file, because a PostgreSQL store is shared by hosts that each have their own
``ARBITER_VAR``: every one of them sees it.  (SQLite: a table in ``arbiter.sqlite``.)"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from typing import Any

from eventsourcing.persistence import PersistenceError

from service.application.availability import StoreUnavailable
from service.config import Config, ConfigError, private_dir, private_file

log = logging.getLogger(__name__)

TABLE = "arbiter_restoring"


class RestoreIncomplete(ConfigError):
    """The store holds a restore that did not finish: the operator must drop it and restore again."""


def remedy(config: Config) -> str:
    """What the operator does with a store a restore did not finish."""
    if config.store == "sqlite":
        drop = f"delete {config.sqlite_file} and {config.sqlite_file.with_name('notifications.sqlite')}"
    else:
        drop = f"drop the PostgreSQL database {config.postgres_dbname!r} and create it empty"
    return (
        f"stop every server on it, {drop}, {_empty_heads(config)} (keep the key), and run "
        "`arbiter restore` again"
    )


def refusal(config: Config, started: str) -> str:
    return (
        f"a restore into this store did not finish ({started}): it holds part of a backup, "
        f"with games no head anchors; {remedy(config)}"
    )


def _pg(config: Config) -> Any:
    import psycopg

    from service.application.schema import _connect_args

    return psycopg.connect(**_connect_args(config), autocommit=True)


def _pg_table(config: Config) -> Any:
    from psycopg.sql import Identifier

    if config.postgres_schema:
        return Identifier(config.postgres_schema, TABLE)
    return Identifier(TABLE)


def started(config: Config) -> str | None:
    """What the mark says (when and from which file the restore began), or None: no mark.  Read
    without writing (a SQLite file that does not exist is not made)."""
    if config.store == "sqlite":
        if not config.sqlite_file.exists() or not config.sqlite_file.stat().st_size:
            return None
        uri = f"{config.sqlite_file.resolve().as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=10)
        try:
            return _sqlite_read(conn.cursor())
        finally:
            conn.close()
    from psycopg.sql import SQL

    with _pg(config) as conn:
        if not _pg_exists(conn, config):
            return None
        row = conn.execute(SQL("SELECT note FROM {}").format(_pg_table(config))).fetchone()
        return str(row[0]) if row else "no detail"


def _sqlite_read(curs: Any) -> str | None:
    curs.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,))
    if not curs.fetchone():
        return None
    curs.execute(f"SELECT note FROM {TABLE}")  # noqa: S608 - a constant
    row = curs.fetchone()
    return str(row[0]) if row else "no detail"


def _pg_exists(conn: Any, config: Config) -> bool:
    row = conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
        (config.postgres_schema or "public", TABLE),
    ).fetchone()
    return row is not None


def begin(config: Config, source: str) -> None:
    """Mark the store as being restored (before the restore writes anything else)."""
    note = f"started {datetime.now(UTC).isoformat(timespec='seconds')} from {source}"
    if config.store == "sqlite":
        private_dir(config.sqlite_file.parent, ours=config.sqlite_file.parent == config.var_dir)
        private_file(config.sqlite_file)
        conn = sqlite3.connect(config.sqlite_file, timeout=10)
        try:
            with conn:
                conn.execute(f"CREATE TABLE {TABLE} (note TEXT NOT NULL)")
                conn.execute(f"INSERT INTO {TABLE} (note) VALUES (?)", (note,))  # noqa: S608
        finally:
            conn.close()
        return
    from psycopg.sql import SQL, Identifier

    with _pg(config) as conn, conn.transaction():
        if config.postgres_schema:
            conn.execute(
                SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(config.postgres_schema))
            )
        conn.execute(SQL("CREATE TABLE {} (note TEXT NOT NULL)").format(_pg_table(config)))
        conn.execute(SQL("INSERT INTO {} (note) VALUES (%s)").format(_pg_table(config)), (note,))


def finish(config: Config) -> None:
    """The restore is whole (its heads written): drop the mark."""
    if config.store == "sqlite":
        conn = sqlite3.connect(config.sqlite_file, timeout=10)
        try:
            with conn:
                conn.execute(f"DROP TABLE {TABLE}")
        finally:
            conn.close()
        return
    from psycopg.sql import SQL

    with _pg(config) as conn:
        conn.execute(SQL("DROP TABLE {}").format(_pg_table(config)))


def require_restored(store: Any, config: Config) -> None:
    """Refuse to serve a store a restore did not finish (``build_services``, so every entry point:
    ``arbiter serve``, ``arbiter worker``, gunicorn's workers, the CLI).  Read through the store's
    own connection; a store that cannot be reached now is not a reason to stop (as for its
    tables: requests answer 503 until it is back)."""
    try:
        with store.recorder.datastore.transaction(commit=False) as curs:
            if config.store == "sqlite":
                note = _sqlite_read(curs)
            else:
                curs.execute(
                    "SELECT 1 FROM information_schema.tables "
                    "WHERE table_schema = %s AND table_name = %s",
                    (config.postgres_schema or "public", TABLE),
                )
                note = None
                if curs.fetchone() is not None:
                    from psycopg.sql import SQL

                    curs.execute(SQL("SELECT note FROM {}").format(_pg_table(config)))
                    row = curs.fetchone()
                    note = str(row["note"]) if row else "no detail"
    except (StoreUnavailable, PersistenceError) as exc:
        log.warning("could not check the store for an unfinished restore at start (%s)", exc)
        return
    if note is not None:
        raise RestoreIncomplete(refusal(config, note))


def _empty_heads(config: Config) -> str:
    if config.heads_url:
        return f"empty the table arbiter_heads of {config.heads_place}"
    return f"delete the heads file {config.heads_file}"
