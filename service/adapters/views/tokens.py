"""The tokens' view (``service.application.projections.tokens``) in SQLite and PostgreSQL: table
``tokens`` (tracking ``tokens_tracking``), a user's tokens read by its index, newest first."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.tokens import TokensView


class TokensTables(SqlView, TokensView):
    TABLES = (
        Table(
            "tokens",
            "id TEXT PRIMARY KEY, user_id TEXT NOT NULL, label TEXT NOT NULL, "
            "created BIGINT NOT NULL, last_used BIGINT, expires BIGINT NOT NULL, "
            "generation INTEGER NOT NULL",
            indexes=(("by_user", "user_id, created, id"),),
        ),
    )

    def issued(self, row: dict[str, Any], tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "DELETE FROM {tokens} WHERE user_id = %s AND expires <= %s",
                [row["user_id"], row["created"]],
            ),
            (
                "INSERT INTO {tokens} (id, user_id, label, created, expires, generation) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                [
                    row["id"],
                    row["user_id"],
                    row["label"],
                    row["created"],
                    row["expires"],
                    row["generation"],
                ],
            ),
        )

    def used(self, token: str, at: int, tracking: Tracking) -> None:
        self.write(tracking, ("UPDATE {tokens} SET last_used = %s WHERE id = %s", [at, token]))

    def revoked(self, token: str, tracking: Tracking) -> None:
        self.write(tracking, ("DELETE FROM {tokens} WHERE id = %s", [token]))

    def password_changed(self, user: str, generation: int, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("DELETE FROM {tokens} WHERE user_id = %s AND generation < %s", [user, generation]),
        )

    def select_live(self, user: str, now: int, generation: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT id, label, created, last_used, expires FROM {tokens} "
            "WHERE user_id = %s AND expires > %s AND generation >= %s "
            "ORDER BY created DESC, id DESC",
            [user, now, generation],
        )
