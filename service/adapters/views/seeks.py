"""The open games' view (``service.application.projections.seeks``) in SQLite and PostgreSQL: table
``seeks`` (tracking ``seeks_tracking``) in the store's own database (:mod:`.sql`)."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.seeks import Key, SeeksView

COLUMNS = ", ".join(SeeksView.COLUMNS)


class SeeksTables(SqlView, SeeksView):
    TABLES = (
        Table(
            "seeks",
            "id TEXT PRIMARY KEY, by_user TEXT NOT NULL, system TEXT NOT NULL, "
            "scenario TEXT NOT NULL, side TEXT NOT NULL, club TEXT, clock TEXT, "
            "options TEXT NOT NULL, status TEXT NOT NULL, game TEXT, opened_at TEXT NOT NULL, "
            "created BIGINT NOT NULL",
            indexes=(("listing", "status, created, id"), ("by_user", "by_user, status")),
        ),
    )

    def insert_seek(self, row: dict[str, Any], tracking: Tracking) -> None:
        marks = ", ".join(["%s"] * len(self.COLUMNS))
        self.write(
            tracking,
            (
                f"INSERT INTO {{seeks}} ({COLUMNS}) VALUES ({marks}) ON CONFLICT (id) DO NOTHING",
                [row[name] for name in self.COLUMNS],
            ),
        )

    def update_seek(self, seek_id: str, status: str, game: str | None, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {seeks} SET status = %s, game = COALESCE(%s, game) WHERE id = %s",
                (status, game, seek_id),
            ),
        )

    def open_count(self, user: str) -> int:
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {seeks} WHERE by_user = %s AND status = %s", [user, "open"]
        )
        return int(found["n"]) if found else 0

    def select_page(self, status: str, limit: int, after: Key | None) -> list[dict[str, Any]]:
        where, params = "status = %s", [status]
        if after is not None:
            where += " AND (created < %s OR (created = %s AND id < %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        found = self.query(
            f"SELECT * FROM {{seeks}} WHERE {where} ORDER BY created DESC, id DESC LIMIT %s",
            [*params, limit],
        )
        return [self.row_of(r) for r in found]
