"""The club events' view, kept by :class:`TournamentsProjection` from the events' own events, never
loading one: each event (its settings, status and number of rounds; a club's events read by its
index, a keyset page at a time), its players in the order they joined, its rounds (the deadline, who
sits out, how many games wait for a result: the worker's deadline warnings read them by ``(warned,
deadline)``), each round's games with their results, and the standings in rank order -- written
again, from the view's own rows, in the transaction of each event that changes them (a join, a
round, a result).  Requests read the rows by key; nothing is kept in memory between events.

In SQLite and PostgreSQL (:mod:`.base`): tables ``tournaments`` (tracking ``tournaments_tracking``),
``tournament_players``, ``tournament_rounds``, ``tournament_games`` and ``tournament_standings``. A
change that moves the standings writes them again from the tables' own rows, in its transaction
(:meth:`_restand`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.pairing import Played, standings
from service.domain.tournaments import Tournament
from service.views.base import SqlView, Statement, Table

DETAIL = (
    "format", "system", "scenario", "sides", "options", "clock", "rounds", "double",
    "round_days", "scoring", "created_by", "ladder",
)  # fmt: skip


def standing_rows(
    detail: dict[str, Any],
    players: Sequence[str],
    games: Sequence[dict[str, Any]],
    byes: Sequence[str],
) -> list[dict[str, Any]]:
    """The standings of an event from the view's rows: its ``detail``, players in seed order, games
    (``first``, ``second``, ``winner`` or None while unscored, ``scored``) and the Swiss byes.
    Each player's side counts are of every game released to them, played or not."""
    played = [Played(g["first"], g["second"], g["winner"]) for g in games if g["scored"]]
    swiss = detail["format"] == "swiss"
    paired = [(g["first"], g["second"]) for g in games]
    scoring = detail["scoring"]
    return standings(players, played, byes if swiss else [], scoring, swiss=swiss, paired=paired)


class TournamentsView(SqlView):
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
        """``user`` joins (seeded after those before), and the standings are written again."""
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
        """The event's row (``detail`` parsed), or None."""
        found = self.query_one("SELECT * FROM {tournaments} WHERE id = %s", [event])
        if found is None:
            return None
        return found | {"detail": json.loads(found["detail"])}

    def players(self, event: str) -> list[str]:
        """The event's players' ids in seed order."""
        rows = self.query(
            "SELECT user_id FROM {tournament_players} WHERE event = %s ORDER BY seed", [event]
        )
        return [r["user_id"] for r in rows]

    def rounds(self, event: str) -> list[dict[str, Any]]:
        """The event's rounds in order, each with its ``games`` in board order."""
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
        """The standings rows in rank order."""
        rows = self.query(
            "SELECT data FROM {tournament_standings} WHERE event = %s ORDER BY rank", [event]
        )
        return [json.loads(r["data"]) for r in rows]

    def of_club(self, club: str, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s events, oldest first, after the key ``after``."""
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

    def running(self, club: str) -> int:
        """How many of ``club``'s events are open or started (not finished)."""
        found = self.query(
            "SELECT COUNT(*) AS n FROM {tournaments} WHERE club = %s AND status != %s",
            [club, "finished"],
        )
        return int(found[0]["n"])

    def due(self, before: str, limit: int) -> list[dict[str, Any]]:
        """Rounds not warned whose deadline is before ``before`` (ISO time) and that still have
        unfinished games, earliest first."""
        return self.query(
            "SELECT event, number, deadline FROM {tournament_rounds} WHERE warned = 0 "
            "AND deadline < %s AND open_games > 0 ORDER BY deadline LIMIT %s",
            [before, limit],
        )


class TournamentsProjection(Projection[TournamentsView]):
    name = "tournaments"
    topics = tuple(
        get_topic(cls)
        for cls in (
            Tournament.Created,
            Tournament.PlayerJoined,
            Tournament.PlayerRemoved,
            Tournament.Started,
            Tournament.RoundReleased,
            Tournament.GameScored,
            Tournament.DeadlineNear,
            Tournament.Finished,
        )
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)

    @process_event.register
    def _(self, e: Tournament.Created, tracking: Tracking) -> None:
        self.view.add_event(
            {
                "id": str(e.originator_id),
                "club": e.club_id,
                "name": e.name,
                "format": e.format,
                "status": "open",
                "rounds": e.rounds,
                "detail": json.dumps({k: getattr(e, k) for k in DETAIL}, sort_keys=True),
                "position": tracking.notification_id,
            },
            tracking,
        )

    @process_event.register
    def _(self, e: Tournament.PlayerJoined, tracking: Tracking) -> None:
        self.view.add_player(str(e.originator_id), e.user, tracking)

    @process_event.register
    def _(self, e: Tournament.PlayerRemoved, tracking: Tracking) -> None:
        self.view.remove_player(str(e.originator_id), e.user, tracking)

    @process_event.register
    def _(self, e: Tournament.Started, tracking: Tracking) -> None:
        self.view.set_status(str(e.originator_id), "started", e.total_rounds, tracking)

    @process_event.register
    def _(self, e: Tournament.Finished, tracking: Tracking) -> None:
        self.view.set_status(str(e.originator_id), "finished", None, tracking)

    @process_event.register
    def _(self, e: Tournament.RoundReleased, tracking: Tracking) -> None:
        self.view.add_round(str(e.originator_id), e.number, e.deadline, e.bye, e.games, tracking)

    @process_event.register
    def _(self, e: Tournament.GameScored, tracking: Tracking) -> None:
        self.view.game_scored(str(e.originator_id), e.round, e.game, e.winner, e.source, tracking)

    @process_event.register
    def _(self, e: Tournament.DeadlineNear, tracking: Tracking) -> None:
        self.view.warned(str(e.originator_id), e.round, tracking)
