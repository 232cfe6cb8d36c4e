"""The club events' view (``service.application.projections.tournaments``) in SQLite and
PostgreSQL: tables ``tournaments`` (tracking ``tournaments_tracking``), ``tournament_players``,
``tournament_rounds``, ``tournament_games`` and ``tournament_standings``.  A change that moves the
standings writes them again from the tables' own rows, in its transaction (:meth:`_restand`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Statement, Table
from service.application.projections.tournaments import TournamentsView, standing_rows


class TournamentsTables(SqlView, TournamentsView):
    TABLES = (
        Table(
            "tournaments",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, name TEXT NOT NULL, format TEXT NOT NULL, "
            "status TEXT NOT NULL, rounds INTEGER, detail TEXT NOT NULL, "
            "position BIGINT NOT NULL",
            indexes=(("by_club", "club, position"),),
        ),
        Table(
            "tournament_players",
            "event TEXT NOT NULL, user_id TEXT NOT NULL, seed BIGINT NOT NULL, "
            "PRIMARY KEY (event, user_id)",
            indexes=(("by_seed", "event, seed"),),
        ),
        Table(
            "tournament_rounds",
            "event TEXT NOT NULL, number INTEGER NOT NULL, deadline TEXT NOT NULL, bye TEXT, "
            "open_games INTEGER NOT NULL, warned INTEGER NOT NULL, PRIMARY KEY (event, number)",
            indexes=(("due", "warned, deadline"),),
        ),
        Table(
            "tournament_games",
            "game TEXT PRIMARY KEY, event TEXT NOT NULL, number INTEGER NOT NULL, "
            "board INTEGER NOT NULL, first_id TEXT NOT NULL, second_id TEXT NOT NULL, winner INTEGER, "
            "source TEXT",
            indexes=(("by_round", "event, number, board"),),
        ),
        Table(
            "tournament_standings",
            "event TEXT NOT NULL, rank INTEGER NOT NULL, player TEXT NOT NULL, data TEXT NOT NULL, "
            "PRIMARY KEY (event, rank)",
        ),
    )

    # -- writes -----------------------------------------------------------------------------------------
    def _change(self, tracking: Tracking, event: str, *statements: Statement) -> None:
        """Run ``statements``, write the event's standings again and record ``tracking``, in one
        transaction (the batch's, in one)."""
        with self._in_batch_or(commit=True) as cursor:
            for text, params in statements:
                cursor.execute(self.sql(text), list(params))
            self._restand(cursor, event)
            self._track(cursor, tracking)

    def _rows(self, cursor: Any, text: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        cursor.execute(self.sql(text), list(params))
        return [dict(row) for row in cursor.fetchall()]

    def _restand(self, cursor: Any, event: str) -> None:
        found = self._rows(cursor, "SELECT detail FROM {tournaments} WHERE id = %s", [event])
        if not found:
            return
        detail = json.loads(found[0]["detail"])
        players = [
            r["user_id"]
            for r in self._rows(
                cursor,
                "SELECT user_id FROM {tournament_players} WHERE event = %s ORDER BY seed",
                [event],
            )
        ]
        games = [
            g | {"scored": g["source"] is not None}
            for g in self._rows(
                cursor,
                "SELECT first_id AS first, second_id AS second, winner, source "
                "FROM {tournament_games} WHERE event = %s",
                [event],
            )
        ]
        byes = [
            r["bye"]
            for r in self._rows(
                cursor,
                "SELECT bye FROM {tournament_rounds} WHERE event = %s AND bye IS NOT NULL",
                [event],
            )
        ]
        rows = standing_rows(detail, players, games, byes)
        cursor.execute(self.sql("DELETE FROM {tournament_standings} WHERE event = %s"), [event])
        for row in rows:
            cursor.execute(
                self.sql(
                    "INSERT INTO {tournament_standings} (event, rank, player, data) "
                    "VALUES (%s, %s, %s, %s)"
                ),
                [event, row["rank"], row["player"], json.dumps(row, sort_keys=True)],
            )

    def add_event(self, row: dict[str, Any], tracking: Tracking) -> None:
        columns = ("id", "club", "name", "format", "status", "rounds", "detail", "position")
        self.write(
            tracking,
            (
                f"INSERT INTO {{tournaments}} ({', '.join(columns)}) "
                f"VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT (id) DO NOTHING",
                [row[k] for k in columns],
            ),
        )

    def set_status(self, event: str, status: str, rounds: int | None, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {tournaments} SET status = %s, rounds = COALESCE(%s, rounds) WHERE id = %s",
                [status, rounds, event],
            ),
        )

    def add_player(self, event: str, user: str, tracking: Tracking) -> None:
        self._change(
            tracking,
            event,
            (
                "INSERT INTO {tournament_players} (event, user_id, seed) VALUES (%s, %s, %s) "
                "ON CONFLICT (event, user_id) DO NOTHING",
                [event, user, tracking.notification_id],
            ),
        )

    def remove_player(self, event: str, user: str, tracking: Tracking) -> None:
        self._change(
            tracking,
            event,
            (
                "DELETE FROM {tournament_players} WHERE event = %s AND user_id = %s",
                [event, user],
            ),
        )

    def add_round(
        self,
        event: str,
        number: int,
        deadline: str,
        bye: str | None,
        games: Sequence[dict[str, Any]],
        tracking: Tracking,
    ) -> None:
        self._change(
            tracking,
            event,
            (
                "INSERT INTO {tournament_rounds} (event, number, deadline, bye, open_games, "
                "warned) VALUES (%s, %s, %s, %s, %s, 0) ON CONFLICT (event, number) DO NOTHING",
                [event, number, deadline, bye, len(games)],
            ),
            *(
                (
                    "INSERT INTO {tournament_games} (game, event, number, board, first_id, second_id) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (game) DO NOTHING",
                    [g["game"], event, number, board, g["first"], g["second"]],
                )
                for board, g in enumerate(games, start=1)
            ),
        )

    def game_scored(
        self,
        event: str,
        number: int,
        game: str,
        winner: int | None,
        source: str,
        tracking: Tracking,
    ) -> None:
        self._change(
            tracking,
            event,
            (
                "UPDATE {tournament_rounds} SET open_games = open_games - 1 "
                "WHERE event = %s AND number = %s AND open_games > 0 AND EXISTS (SELECT 1 FROM "
                "{tournament_games} WHERE game = %s AND source IS NULL)",
                [event, number, game],
            ),
            (
                "UPDATE {tournament_games} SET winner = %s, source = %s WHERE game = %s",
                [winner, source, game],
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

    # -- reads ------------------------------------------------------------------------------------------
    def event_row(self, event: str) -> dict[str, Any] | None:
        found = self.query_one("SELECT * FROM {tournaments} WHERE id = %s", [event])
        if found is None:
            return None
        return found | {"detail": json.loads(found["detail"])}

    def players(self, event: str) -> list[str]:
        rows = self.query(
            "SELECT user_id FROM {tournament_players} WHERE event = %s ORDER BY seed", [event]
        )
        return [r["user_id"] for r in rows]

    def rounds(self, event: str) -> list[dict[str, Any]]:
        rounds = self.query(
            "SELECT number, deadline, bye, open_games FROM {tournament_rounds} "
            "WHERE event = %s ORDER BY number",
            [event],
        )
        games = self.query(
            "SELECT game, number, board, first_id AS first, second_id AS second, winner, source "
            "FROM {tournament_games} "
            "WHERE event = %s ORDER BY number, board",
            [event],
        )
        by_round: dict[int, list[dict[str, Any]]] = {}
        for g in games:
            by_round.setdefault(int(g["number"]), []).append(g)
        return [r | {"games": by_round.get(int(r["number"]), [])} for r in rounds]

    def standings(self, event: str) -> list[dict[str, Any]]:
        rows = self.query(
            "SELECT data FROM {tournament_standings} WHERE event = %s ORDER BY rank", [event]
        )
        return [json.loads(r["data"]) for r in rows]

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
