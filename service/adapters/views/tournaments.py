"""The club events' view (``service.application.projections.tournaments``) in SQLite and
PostgreSQL: tables ``tournaments`` (tracking ``tournaments_tracking``) and ``tournament_rounds``."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.tournaments import TournamentsView


class TournamentsTables(SqlView, TournamentsView):
    TABLES = (
        Table(
            "tournaments",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, name TEXT NOT NULL, format TEXT NOT NULL, "
            "status TEXT NOT NULL, position BIGINT NOT NULL",
            indexes=(("by_club", "club, position"),),
        ),
        Table(
            "tournament_rounds",
            "event TEXT NOT NULL, number INTEGER NOT NULL, deadline TEXT NOT NULL, "
            "open_games INTEGER NOT NULL, warned INTEGER NOT NULL, PRIMARY KEY (event, number)",
            indexes=(("due", "warned, deadline"),),
        ),
    )

    def add_event(self, row: dict[str, Any], tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {tournaments} (id, club, name, format, status, position) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                [row[k] for k in ("id", "club", "name", "format", "status", "position")],
            ),
        )

    def set_status(self, event: str, status: str, tracking: Tracking) -> None:
        self.write(
            tracking, ("UPDATE {tournaments} SET status = %s WHERE id = %s", [status, event])
        )

    def add_round(
        self, event: str, number: int, deadline: str, games: int, tracking: Tracking
    ) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {tournament_rounds} (event, number, deadline, open_games, warned) "
                "VALUES (%s, %s, %s, %s, 0) ON CONFLICT (event, number) DO NOTHING",
                [event, number, deadline, games],
            ),
        )

    def game_scored(self, event: str, number: int, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {tournament_rounds} SET open_games = open_games - 1 "
                "WHERE event = %s AND number = %s AND open_games > 0",
                [event, number],
            ),
        )

    def warned(self, event: str, number: int, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {tournament_rounds} SET warned = 1 WHERE event = %s AND number = %s",
                [event, number],
            ),
        )

    def of_club(self, club: str, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        where, params = "club = %s", [club]
        if after is not None:
            where += " AND position > %s"  # one event per creation: unique
            params.append(after[0])  # type: ignore[arg-type]
        found = self.query(
            "SELECT id, club, name, format, status, position FROM {tournaments} "
            f"WHERE {where} ORDER BY position LIMIT %s",
            [*params, limit],
        )
        return [
            {k: r[k] for k in ("id", "club", "name", "format", "status")}
            | {"key": (int(r["position"]), r["id"])}
            for r in found
        ]

    def due(self, before: str, limit: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT event, number, deadline FROM {tournament_rounds} WHERE warned = 0 "
            "AND deadline < %s AND open_games > 0 ORDER BY deadline LIMIT %s",
            [before, limit],
        )
