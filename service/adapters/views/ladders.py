"""The ladders' view (``service.application.projections.ladders``) in SQLite and PostgreSQL: tables
``ladders`` (with each ladder's rating table, JSON), ``ladder_standings``, ``ladder_history``,
``ladder_challenges``, ``ladder_reports``, ``ladder_results`` and ``ladder_games`` (tracking
``ladders_tracking``) in the store's own database (:mod:`.sql`).

A page of standings is read through the index ``(ladder, shown, score, user_id)`` best first (an
offset into it, at most ``STANDINGS_PAGE_MAX`` rows); a player's rank is a count over that index;
the results newest first by the keyset ``(ladder, seq)``; the pending games by ``(state,
position)``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.ladders import ROW, LadderState, LaddersView

STANDING_COLUMNS = (
    *ROW,
    "provisional",
    "shown",
    "member",
    "score",
)
UPSERT_STANDING = (
    "INSERT INTO {ladder_standings} (ladder, user_id, rating, rd, volatility, games, wins, draws, "
    "losses, provisional, shown, member, score, position) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (ladder, user_id) DO UPDATE SET rating = excluded.rating, rd = excluded.rd, "
    "volatility = excluded.volatility, games = excluded.games, wins = excluded.wins, "
    "draws = excluded.draws, losses = excluded.losses, provisional = excluded.provisional, "
    "shown = excluded.shown, member = excluded.member, score = excluded.score, "
    "position = excluded.position"
)
INSERT_RESULT = (
    "INSERT INTO {ladder_results} (ladder, seq, id, scenario, sides, winner, level, source, "
    "source_id, at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (ladder, seq) DO NOTHING"
)
INSERT_POINT = (
    "INSERT INTO {ladder_history} (ladder, user_id, period, rating, rd, volatility) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (ladder, user_id, period) DO NOTHING"
)
#: a ladder's row without its rating table's state
LADDER_COLUMNS = (
    "id, club, name, system, scenario, settings, created_by, created_at, created, results, "
    "period, players, sides, position, changed_at, replaced_at"
)
BOARD = 'ladder, user_id AS "user", rating, rd, volatility, games, wins, draws, losses, score'
#: the names of a board row's columns
BOARD_NAMES = (
    "ladder",
    "user",
    "rating",
    "rd",
    "volatility",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
)


class LaddersTables(SqlView, LaddersView):
    TABLES = (
        Table(
            "ladders",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, name TEXT NOT NULL, system TEXT NOT NULL, "
            "scenario TEXT, settings TEXT NOT NULL, created_by TEXT NOT NULL, "
            "created_at TEXT NOT NULL, created BIGINT NOT NULL, results INTEGER NOT NULL, "
            "period INTEGER NOT NULL, players INTEGER NOT NULL, state TEXT NOT NULL, "
            "sides TEXT NOT NULL, position BIGINT NOT NULL, changed_at BIGINT NOT NULL, "
            "replaced_at BIGINT NOT NULL",
            indexes=(("by_club", "club, created"), ("by_change", "changed_at")),
        ),
        Table(
            "ladder_standings",
            "ladder TEXT NOT NULL, user_id TEXT NOT NULL, rating DOUBLE PRECISION NOT NULL, "
            "rd DOUBLE PRECISION NOT NULL, volatility DOUBLE PRECISION NOT NULL, "
            "games INTEGER NOT NULL, wins INTEGER NOT NULL, draws INTEGER NOT NULL, "
            "losses INTEGER NOT NULL, provisional INTEGER NOT NULL, shown INTEGER NOT NULL, "
            "member INTEGER NOT NULL, score BIGINT NOT NULL, position BIGINT NOT NULL, "
            "PRIMARY KEY (ladder, user_id)",
            indexes=(
                ("board", "ladder, shown, score, user_id"),
                ("by_member", "user_id, member"),
                ("changed", "ladder, position"),
            ),
        ),
        Table(
            "ladder_history",
            "ladder TEXT NOT NULL, user_id TEXT NOT NULL, period INTEGER NOT NULL, "
            "rating DOUBLE PRECISION NOT NULL, rd DOUBLE PRECISION NOT NULL, "
            "volatility DOUBLE PRECISION NOT NULL, PRIMARY KEY (ladder, user_id, period)",
        ),
        Table(
            "ladder_challenges",
            "id TEXT PRIMARY KEY, ladder TEXT NOT NULL, challenger TEXT NOT NULL, "
            "opponent TEXT NOT NULL, scenario TEXT NOT NULL, challenger_side TEXT, "
            "options TEXT NOT NULL, deadline TEXT NOT NULL, status TEXT NOT NULL, game TEXT, "
            "sides TEXT NOT NULL, issued_at TEXT NOT NULL, position BIGINT NOT NULL",
            indexes=(
                ("listing", "ladder, issued_at, position"),
                ("by_status", "ladder, status, issued_at, position"),
            ),
        ),
        Table(
            "ladder_reports",
            "id TEXT PRIMARY KEY, ladder TEXT NOT NULL, reporter TEXT NOT NULL, "
            "opponent TEXT NOT NULL, scenario TEXT NOT NULL, sides TEXT NOT NULL, winner TEXT, "
            "level TEXT, status TEXT NOT NULL, reported_at TEXT NOT NULL, "
            "position BIGINT NOT NULL",
            indexes=(
                ("listing", "ladder, reported_at, position"),
                ("by_status", "ladder, status, reported_at, position"),
            ),
        ),
        Table(
            "ladder_results",
            "ladder TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, "
            "scenario TEXT NOT NULL, sides TEXT NOT NULL, winner TEXT, level TEXT, "
            "source TEXT NOT NULL, source_id TEXT NOT NULL, at TEXT NOT NULL, "
            "PRIMARY KEY (ladder, seq)",
        ),
        Table(
            "ladder_games",
            "game TEXT PRIMARY KEY, kind TEXT NOT NULL, owner TEXT NOT NULL, step INTEGER, "
            "detail TEXT NOT NULL, state TEXT NOT NULL, result TEXT, ended_at TEXT, "
            "position BIGINT NOT NULL",
            indexes=(("pending", "state, position"), ("by_step", "owner, step")),
        ),
    )

    #: events per transaction of a rebuild (each writes the ladders it changed once)
    REBUILD_PER_TRANSACTION = 2000

    # -- a run of events: the ladders it changed are written before it commits -------------------------
    @contextmanager
    def batch(self, *, tracked: bool = True) -> Iterator[None]:
        local = self._local()
        if getattr(local, "cursor", None) is not None:
            yield  # already in one: the outer run writes them
            return
        local.first, local.last = None, None
        try:
            with super().batch(tracked=tracked):
                yield
                self.flush()
                if local.last is not None:
                    super()._track(local.cursor, local.last)
        finally:
            local.first = local.last = None
            self.forget_run()

    def _track(self, cursor: Any, tracking: Tracking) -> None:
        """In a run of events, the position is recorded for its first event (another runner that
        went first is refused at once) and its last (before the run commits), not for each."""
        local = self._local()
        if getattr(local, "cursor", None) is None:
            super()._track(cursor, tracking)
        elif local.first is None:
            super()._track(cursor, tracking)
            local.first = tracking
        else:
            local.last = tracking

    def sql(self, text: str) -> str:
        """:meth:`SqlView.sql`, each statement's text made once (the view has a few)."""
        made: dict[str, str] | None = self.__dict__.get("_made")
        if made is None:
            made = self.__dict__.setdefault("_made", {})
        found = made.get(text)
        if found is None:
            found = made[text] = super().sql(text)
        return found

    def _many(self, text: str, rows: list[list[Any]]) -> None:
        if not rows:
            return
        with self._in_batch_or(commit=True) as cursor:
            cursor.executemany(self.sql(text), rows)

    # -- writes -----------------------------------------------------------------------------------------
    def insert_ladder(self, state: LadderState, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {ladders} (id, club, name, system, scenario, settings, created_by, "
                "created_at, created, results, period, players, state, sides, position, "
                "changed_at, replaced_at) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [
                    state.id,
                    state.club_id,
                    state.name,
                    state.system,
                    state.scenario,
                    json.dumps(state.settings),
                    state.created_by,
                    state.created_at,
                    state.created,
                    0,
                    0,
                    0,
                    state.blob(),
                    "{}",
                    state.position,
                    state.changed_at,
                    state.replaced_at,
                ],
            ),
        )

    def save_ladder(
        self,
        state: LadderState,
        rows: list[dict[str, Any]],
        points: list[tuple[str, dict[str, Any]]],
    ) -> None:
        table = state.table
        sides = {name: s.as_dict() for name, s in table.sides.scenarios.items()}
        with self._in_batch_or(commit=True) as cursor:
            cursor.execute(
                self.sql(
                    "UPDATE {ladders} SET settings = %s, results = %s, period = %s, players = %s, "
                    "state = %s, sides = %s, position = %s, changed_at = %s, replaced_at = %s "
                    "WHERE id = %s"
                ),
                [
                    json.dumps(state.settings),
                    table.results,
                    table.period,
                    len(state.members),
                    state.blob(),
                    json.dumps(sides),
                    state.position,
                    state.changed_at,
                    state.replaced_at,
                    state.id,
                ],
            )
        self._many(
            UPSERT_STANDING,
            [[state.id, *(row[c] for c in STANDING_COLUMNS), row["position"]] for row in rows],
        )
        self._many(INSERT_RESULT, state.results)
        self._many(
            INSERT_POINT,
            [
                [state.id, uid, p["period"], p["rating"], p["rd"], p["volatility"]]
                for uid, p in points
            ],
        )

    def drop_pending(self, game_id: str) -> None:
        self.execute(
            "UPDATE {ladder_games} SET state = 'dropped' WHERE game = %s AND state = 'pending'",
            [game_id],
        )

    # -- reads ------------------------------------------------------------------------------------------
    def ladder_row(self, ladder_id: str, *, state: bool = False) -> dict[str, Any] | None:
        columns = LADDER_COLUMNS + (", state" if state else "")
        return self.query_one(f"SELECT {columns} FROM {{ladders}} WHERE id = %s", [ladder_id])

    def ladders_of_club(
        self, club: str, limit: int, after: tuple[int, str] | None
    ) -> list[dict[str, Any]]:
        where, params = "club = %s", [club]
        if after is not None:
            where += " AND (created > %s OR (created = %s AND id > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        return self.query(
            f"SELECT {LADDER_COLUMNS} FROM {{ladders}} WHERE {where} ORDER BY created, id LIMIT %s",
            [*params, limit],
        )

    def ladders_of_member(
        self, user: str, limit: int, after: tuple[str, str] | None
    ) -> list[dict[str, Any]]:
        columns = ", ".join(f"l.{c.strip()}" for c in LADDER_COLUMNS.split(","))
        board = ", ".join(f"s.{c.strip()}" for c in BOARD.split(",")[1:])  # not the ladder
        # the rank: how many are above on the board (the board's index), for a row on it
        rank = (
            "CASE WHEN s.shown = 1 THEN 1 + (SELECT COUNT(*) FROM {ladder_standings} o "
            "WHERE o.ladder = s.ladder AND o.shown = 1 AND (o.score > s.score OR "
            "(o.score = s.score AND o.user_id > s.user_id))) END AS rank"
        )
        where, params = "s.user_id = %s AND s.member = 1", [user]
        if after is not None:
            where += (
                " AND (LOWER(l.name) {bytewise} > %s OR "
                "(LOWER(l.name) {bytewise} = %s AND l.id > %s))"
            )
            params += [after[0], after[0], after[1]]
        found = self.query(
            f"SELECT {columns}, LOWER(l.name) {{bytewise}} AS name_key, s.shown, {board}, {rank} "
            "FROM {ladder_standings} s JOIN {ladders} l ON l.id = s.ladder "
            f"WHERE {where} ORDER BY name_key, l.id LIMIT %s",
            [*params, limit],
        )
        out = []
        for row in found:
            mine = {k: row.pop(k) for k in [*BOARD_NAMES, "rank", "shown"] if k != "ladder"}
            shown = int(mine.pop("shown"))
            out.append(row | {"mine": mine | {"ladder": row["id"]} if shown else None})
        return out

    def standings(self, ladder_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        return self.query(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND shown = 1 "
            "ORDER BY score DESC, user_id DESC LIMIT %s OFFSET %s",
            [ladder_id, limit, offset],
        )

    def standing_of(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        row = self.query_one(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND user_id = %s "
            "AND shown = 1",
            [ladder_id, user],
        )
        if row is None:
            return None
        above = self.query_one(
            "SELECT COUNT(*) AS n FROM {ladder_standings} WHERE ladder = %s AND shown = 1 "
            "AND (score > %s OR (score = %s AND user_id > %s))",
            [ladder_id, row["score"], row["score"], user],
        )
        return row | {"rank": int(above["n"] if above else 0) + 1}

    def player_row(self, ladder_id: str, user: str) -> dict[str, Any] | None:
        return self.query_one(
            "SELECT rating, rd, volatility, provisional FROM {ladder_standings} "
            "WHERE ladder = %s AND user_id = %s",
            [ladder_id, user],
        )

    def board_size(self, ladder_id: str) -> int:
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {ladder_standings} WHERE ladder = %s AND shown = 1",
            [ladder_id],
        )
        return int(found["n"]) if found else 0

    def changed_rows(self, ladder_id: str, since: int) -> list[dict[str, Any]]:
        return self.query(
            f"SELECT {BOARD} FROM {{ladder_standings}} WHERE ladder = %s AND position > %s "
            "AND shown = 1",
            [ladder_id, since],
        )

    def changed_ladders(self, since: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT id, changed_at, replaced_at, results FROM {ladders} WHERE changed_at > %s "
            "ORDER BY changed_at",
            [since],
        )

    def last_change(self) -> int:
        found = self.query_one("SELECT MAX(changed_at) AS n FROM {ladders}", [])
        return int(found["n"] or 0) if found else 0

    def history(self, ladder_id: str, user: str) -> list[dict[str, Any]]:
        return self.query(
            "SELECT period, rating, rd, volatility FROM {ladder_history} WHERE ladder = %s "
            "AND user_id = %s ORDER BY period",
            [ladder_id, user],
        )

    def challenges(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        return self._newest("ladder_challenges", "issued_at", ladder_id, status, limit, after)

    def _newest(
        self,
        table: str,
        at: str,
        ladder_id: str,
        status: str | None,
        limit: int,
        after: tuple[str, int] | None,
    ) -> list[dict[str, Any]]:
        """A page of ``table``'s rows of a ladder newest first by ``(at DESC, position)`` (the
        table's ``listing`` and ``by_status`` indexes), after the key ``after``."""
        where, params = "ladder = %s", [ladder_id]
        if status is not None:
            where, params = where + " AND status = %s", [*params, status]
        if after is not None:
            where += f" AND ({at} < %s OR ({at} = %s AND position > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        return self.query(
            f"SELECT * FROM {{{table}}} WHERE {where} ORDER BY {at} DESC, position ASC LIMIT %s",
            [*params, limit],
        )

    def open_challenge_between(self, ladder_id: str, one: str, other: str) -> str | None:
        found = self.query_one(
            "SELECT id FROM {ladder_challenges} WHERE ladder = %s AND status = 'open' AND "
            "((challenger = %s AND opponent = %s) OR (challenger = %s AND opponent = %s)) "
            "ORDER BY issued_at, position",
            [ladder_id, one, other, other, one],
        )
        return str(found["id"]) if found else None

    def reports(
        self, ladder_id: str, status: str | None, limit: int, after: tuple[str, int] | None
    ) -> list[dict[str, Any]]:
        return self._newest("ladder_reports", "reported_at", ladder_id, status, limit, after)

    def recent_results(self, ladder_id: str, limit: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT * FROM {ladder_results} WHERE ladder = %s ORDER BY seq DESC LIMIT %s",
            [ladder_id, limit],
        )

    def pending_games(self, limit: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT * FROM {ladder_games} WHERE state = 'pending' ORDER BY position LIMIT %s",
            [limit],
        )

    def ladder_of_game(self, game_id: str) -> dict[str, Any] | None:
        columns = ", ".join(f"l.{c.strip()}" for c in LADDER_COLUMNS.split(","))
        return self.query_one(
            f"SELECT {columns} FROM {{ladder_games}} g JOIN {{ladders}} l ON l.id = g.owner "
            "WHERE g.game = %s AND g.kind = 'ladder'",
            [game_id],
        )

    def totals(self) -> dict[str, int]:
        found = self.query_one(
            "SELECT COUNT(*) AS ladders, COALESCE(SUM(results), 0) AS results FROM {ladders}", []
        )
        return {k: int(v) for k, v in (found or {"ladders": 0, "results": 0}).items()}
