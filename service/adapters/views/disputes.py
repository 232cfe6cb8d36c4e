"""The disputes' view (``service.application.projections.disputes``) in SQLite and PostgreSQL:
tables ``disputes`` and ``dispute_games`` (tracking ``disputes_tracking``), an arbiter's open
disputes read a page at a time by ``(status, club, position)``."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.disputes import OPEN, DisputesView, Key


class DisputesTables(SqlView, DisputesView):
    TABLES = (
        Table(
            "disputes",
            "game TEXT NOT NULL, dispute TEXT NOT NULL, seq INTEGER NOT NULL, "
            "side TEXT NOT NULL, claim TEXT NOT NULL, citations TEXT NOT NULL, "
            "opened_at TEXT NOT NULL, status TEXT NOT NULL, club TEXT NOT NULL, "
            "position BIGINT NOT NULL, PRIMARY KEY (game, dispute)",
            indexes=(("queue", "status, club, position"), ("listing", "status, position")),
        ),
        Table("dispute_games", "game TEXT PRIMARY KEY, club TEXT NOT NULL"),
    )

    def add_game(self, game: str, club: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {dispute_games} (game, club) VALUES (%s, %s) "
                "ON CONFLICT (game) DO NOTHING",
                [game, club],
            ),
        )

    def open_dispute(self, row: dict[str, Any], tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {disputes} (game, dispute, seq, side, claim, citations, opened_at, "
                "status, club, position) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                "COALESCE((SELECT club FROM {dispute_games} WHERE game = %s), ''), %s) "
                "ON CONFLICT (game, dispute) DO NOTHING",
                [
                    row["game"],
                    row["dispute"],
                    row["seq"],
                    row["side"],
                    row["claim"],
                    row["citations"],
                    row["opened_at"],
                    OPEN,
                    row["game"],
                    tracking.notification_id,
                ],
            ),
        )

    def resolve_dispute(self, game: str, dispute: str, verdict: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {disputes} SET status = %s WHERE game = %s AND dispute = %s",
                [verdict, game, dispute],
            ),
        )

    def select_open(
        self, clubs: tuple[str, ...] | None, limit: int, after: Key | None
    ) -> list[dict[str, Any]]:
        where, params = "status = %s", [OPEN]
        if clubs is not None:
            if not clubs:
                return []
            where += f" AND club IN ({', '.join(['%s'] * len(clubs))})"
            params += list(clubs)
        if after is not None:
            where += " AND position > %s"
            params.append(after[0])  # type: ignore[arg-type]
        found = self.query(
            f"SELECT * FROM {{disputes}} WHERE {where} ORDER BY position LIMIT %s",
            [*params, limit],
        )
        return [self.item_of(r) for r in found]
