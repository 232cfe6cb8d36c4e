"""The open games' view (``service.application.projections.seeks``) in SQLite and PostgreSQL: tables
``seeks`` and ``seeks_tracking`` in the store's own database, written through the store's own
datastore (its connection pool), each write in one transaction with its tracking row.

Built on eventsourcing's ``SQLiteTrackingRecorder`` and ``PostgresTrackingRecorder``.  SQLite's
names its tracking table ``tracking`` whatever the view; here each view has its own
(``<table>_tracking``), so that views are rebuilt and swapped one at a time."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL, Composed, Identifier

from service.application.projections.seeks import Key, SeeksView
from service.application.projections.view import View

COLUMNS_DDL = (
    "id TEXT PRIMARY KEY, by_user TEXT NOT NULL, system TEXT NOT NULL, scenario TEXT NOT NULL, "
    "side TEXT NOT NULL, club TEXT, clock TEXT, options TEXT NOT NULL, status TEXT NOT NULL, "
    "game TEXT, opened_at TEXT NOT NULL, created BIGINT NOT NULL"
)
INSERT_COLUMNS = ", ".join(SeeksView.COLUMNS)


class SQLiteSeeksView(SQLiteTrackingRecorder, SeeksView):
    def __init__(self, datastore: SQLiteDatastore, *, table: str = "seeks", indexed: bool = True):
        self.table = table
        self.tracking_table = f"{table}_tracking"
        self.indexed = indexed
        super().__init__(datastore)
        assert datastore.single_row_tracking
        self.insert_tracking_statement = (
            f"INSERT INTO {self.tracking_table} VALUES (:application_name, :notification_id) "
            "ON CONFLICT (application_name) DO UPDATE SET notification_id = :notification_id "
            f"WHERE {self.tracking_table}.notification_id < :notification_id "
            "RETURNING notification_id"
        )
        self.select_max_tracking_id_statement = (
            f"SELECT MAX(notification_id) FROM {self.tracking_table} WHERE application_name=?"
        )

    def construct_create_table_statements(self) -> list[str]:
        statements = [
            f"CREATE TABLE IF NOT EXISTS {self.table} ({COLUMNS_DDL})",
            f"CREATE TABLE IF NOT EXISTS {self.tracking_table} (application_name TEXT, "
            "notification_id INTEGER, PRIMARY KEY (application_name)) WITHOUT ROWID",
        ]
        return statements + (self.index_statements(self.table) if self.indexed else [])

    def index_statements(self, table: str) -> list[str]:
        return [
            f"CREATE INDEX IF NOT EXISTS {table}_listing ON {table} (status, created, id)",
        ]

    def insert_seek(self, row: dict[str, Any], tracking: Tracking) -> None:
        marks = ", ".join("?" * len(self.COLUMNS))
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                f"INSERT INTO {self.table} ({INSERT_COLUMNS}) VALUES ({marks}) "
                "ON CONFLICT (id) DO NOTHING",
                [row[name] for name in self.COLUMNS],
            )
            self._insert_tracking(c, tracking)

    def update_seek(self, seek_id: str, status: str, game: str | None, tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                f"UPDATE {self.table} SET status = ?, game = COALESCE(?, game) WHERE id = ?",
                (status, game, seek_id),
            )
            self._insert_tracking(c, tracking)

    def select_page(self, status: str, limit: int, after: Key | None) -> list[dict[str, Any]]:
        where, params = "status = ?", [status]
        if after is not None:
            where += " AND (created < ? OR (created = ? AND id < ?))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT * FROM {self.table} WHERE {where} ORDER BY created DESC, id DESC LIMIT ?",
                [*params, limit],
            )
            return [self.row_of(dict(r)) for r in c.fetchall()]

    def rows(self) -> int:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT COUNT(*) FROM {self.table}")
            return int(c.fetchone()[0])

    def drop(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DROP TABLE IF EXISTS {self.table}")
            c.execute(f"DROP TABLE IF EXISTS {self.tracking_table}")

    def replace(self, live: View) -> None:
        assert isinstance(live, SQLiteSeeksView)
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DROP TABLE IF EXISTS {live.table}")
            c.execute(f"DROP TABLE IF EXISTS {live.tracking_table}")
            c.execute(f"ALTER TABLE {self.table} RENAME TO {live.table}")
            c.execute(f"ALTER TABLE {self.tracking_table} RENAME TO {live.tracking_table}")
            for statement in self.index_statements(live.table):
                c.execute(statement)


class PostgresSeeksView(PostgresTrackingRecorder, SeeksView):
    def __init__(self, datastore: PostgresDatastore, *, table: str = "seeks", indexed: bool = True):
        self.table = table
        self.indexed = indexed
        super().__init__(datastore, tracking_table_name=f"{table}_tracking")
        assert datastore.single_row_tracking
        self.sql_create_statements.append(
            SQL("CREATE TABLE IF NOT EXISTS {} ({})").format(self._name(table), SQL(COLUMNS_DDL))
        )
        if indexed:
            self.sql_create_statements += self.index_statements(table)

    def _name(self, table: str) -> Composed:
        return SQL("{}.{}").format(Identifier(self.datastore.schema), Identifier(table))

    def index_statements(self, table: str) -> list[Composed]:
        return [
            SQL("CREATE INDEX IF NOT EXISTS {} ON {} (status, created, id)").format(
                Identifier(f"{table}_listing"), self._name(table)
            )
        ]

    def insert_seek(self, row: dict[str, Any], tracking: Tracking) -> None:
        marks = SQL(", ").join([SQL("%s")] * len(self.COLUMNS))
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(
                SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (id) DO NOTHING").format(
                    self._name(self.table), SQL(INSERT_COLUMNS), marks
                ),
                [row[name] for name in self.COLUMNS],
            )
            self._insert_tracking(curs, tracking)

    def update_seek(self, seek_id: str, status: str, game: str | None, tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(
                SQL("UPDATE {} SET status = %s, game = COALESCE(%s, game) WHERE id = %s").format(
                    self._name(self.table)
                ),
                (status, game, seek_id),
            )
            self._insert_tracking(curs, tracking)

    def select_page(self, status: str, limit: int, after: Key | None) -> list[dict[str, Any]]:
        where: SQL | Composed = SQL("status = %s")
        params: list[Any] = [status]
        if after is not None:
            where += SQL(" AND (created, id) < (%s, %s)")
            params += [after[0], after[1]]
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(
                SQL("SELECT * FROM {} WHERE {} ORDER BY created DESC, id DESC LIMIT %s").format(
                    self._name(self.table), where
                ),
                [*params, limit],
            )
            return [self.row_of(dict(r)) for r in curs.fetchall()]

    def rows(self) -> int:
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT COUNT(*) AS n FROM {}").format(self._name(self.table)))
            row = curs.fetchone()
            assert row is not None
            return int(row["n"])

    def drop(self) -> None:
        with self.datastore.transaction(commit=True) as curs:
            for table in (self.table, self.tracking_table_name):
                curs.execute(SQL("DROP TABLE IF EXISTS {}").format(self._name(table)))

    def replace(self, live: View) -> None:
        assert isinstance(live, PostgresSeeksView)
        with self.datastore.transaction(commit=True) as curs:
            for table in (live.table, live.tracking_table_name):
                curs.execute(SQL("DROP TABLE IF EXISTS {}").format(self._name(table)))
            for mine, theirs in (
                (self.table, live.table),
                (self.tracking_table_name, live.tracking_table_name),
            ):
                curs.execute(
                    SQL("ALTER TABLE {} RENAME TO {}").format(self._name(mine), Identifier(theirs))
                )
            for statement in self.index_statements(live.table):
                curs.execute(statement)
