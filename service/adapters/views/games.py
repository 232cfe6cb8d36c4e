"""The games' view (``service.application.projections.games``) in SQLite and PostgreSQL: tables
``games`` and ``game_players`` (tracking ``games_tracking``) in the store's own database (:mod:`.sql`).

A list is the union of its sources -- public games, the reader's own, their clubs', for a site
arbiter those of no club; or one player's games -- each read newest first through its own index and
cut at the page's size before the union, so a page reads at most a page per source whatever the
history.  ``game_players`` repeats the columns a list filters on (status, system, club, public),
so that a player's games are filtered without a join."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Statement, Table
from service.application.projections.games import GameQuery, GamesView, Key

GAME_COLUMNS = (
    "id",
    "system",
    "scenario",
    "title",
    "sides",
    "created_at",
    "status",
    "result",
    "ended_at",
    "club",
    "ladder",
    "public",
    "timed",
    "created_by",
    "pending",
    "created",
)
#: what a list filters on, in both tables
FILTERS = ("status", "system", "club", "public")


class GamesTables(SqlView, GamesView):
    TABLES = (
        Table(
            "games",
            "id TEXT PRIMARY KEY, system TEXT NOT NULL, scenario TEXT NOT NULL, "
            "title TEXT NOT NULL, sides TEXT NOT NULL, created_at TEXT NOT NULL, "
            "status TEXT NOT NULL, result TEXT, ended_at TEXT, club TEXT, ladder TEXT, "
            "public INTEGER NOT NULL, timed INTEGER NOT NULL, created_by TEXT NOT NULL, "
            "pending TEXT NOT NULL, created BIGINT NOT NULL",
            indexes=(
                ("listing", "created, id"),
                ("by_status", "status, created, id"),
                ("by_public", "public, created, id"),
                ("by_public_status", "public, status, created, id"),
                ("by_club", "club, created, id"),
                ("by_club_status", "club, status, created, id"),
                ("by_timed", "timed, status, created, id"),
                ("by_creator", "created_by, status"),
            ),
        ),
        Table(
            "game_players",
            "game TEXT NOT NULL, user_id TEXT NOT NULL, created BIGINT NOT NULL, "
            "status TEXT NOT NULL, system TEXT NOT NULL, club TEXT, public INTEGER NOT NULL, "
            "pending INTEGER NOT NULL, PRIMARY KEY (game, user_id)",
            indexes=(
                ("mine", "user_id, created, game"),
                ("mine_status", "user_id, status, created, game"),
                ("mine_pending", "user_id, pending, created, game"),
            ),
        ),
    )

    # -- writes ---------------------------------------------------------------------------------------
    def add_game(self, row: dict[str, Any], players: dict[str, bool], tracking: Tracking) -> None:
        marks = ", ".join(["%s"] * len(GAME_COLUMNS))
        statements: list[Statement] = [
            (
                f"INSERT INTO {{games}} ({', '.join(GAME_COLUMNS)}) VALUES ({marks}) "
                "ON CONFLICT (id) DO NOTHING",
                [row[name] for name in GAME_COLUMNS],
            )
        ]
        for user, pending in players.items():
            statements.append(
                (
                    "INSERT INTO {game_players} (game, user_id, created, status, system, club, "
                    "public, pending) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (game, user_id) DO NOTHING",
                    [
                        row["id"],
                        user,
                        row["created"],
                        row["status"],
                        row["system"],
                        row["club"],
                        row["public"],
                        int(pending),
                    ],
                )
            )
        self.write(tracking, *statements)

    def change(
        self,
        game_id: str,
        changes: dict[str, Any],
        tracking: Tracking,
        *,
        pending: list[str] | None = None,
        answered: str | None = None,
    ) -> None:
        assert set(changes) <= set(GAME_COLUMNS) - {"id"}
        sets = ", ".join(f"{name} = %s" for name in changes)
        statements: list[Statement] = [
            (f"UPDATE {{games}} SET {sets} WHERE id = %s", [*changes.values(), game_id])
        ]
        if "status" in changes:
            statements.append(
                (
                    "UPDATE {game_players} SET status = %s WHERE game = %s",
                    [changes["status"], game_id],
                )
            )
        if pending:
            marks = ", ".join(["%s"] * len(pending))
            statements.append(
                (
                    f"UPDATE {{game_players}} SET pending = 1 WHERE game = %s "
                    f"AND user_id IN ({marks})",
                    [game_id, *pending],
                )
            )
        if answered == "*":
            statements.append(("UPDATE {game_players} SET pending = 0 WHERE game = %s", [game_id]))
        elif answered is not None:
            statements.append(
                (
                    "UPDATE {game_players} SET pending = 0 WHERE game = %s AND user_id = %s",
                    [game_id, answered],
                )
            )
        self.write(tracking, *statements)

    # -- reads ----------------------------------------------------------------------------------------
    def row(self, game_id: str) -> dict[str, Any] | None:
        found = self.query("SELECT * FROM {games} WHERE id = %s", [game_id])
        return self.row_of(found[0]) if found else None

    def created_count(self, creator: str, status: str, *, solo: bool = False) -> int:
        alone = (
            " AND NOT EXISTS (SELECT 1 FROM {game_players} p WHERE p.game = g.id "
            "AND p.user_id <> g.created_by)"
            if solo
            else ""
        )
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {games} g WHERE g.created_by = %s AND g.status = %s" + alone,
            [creator, status],
        )
        return int(found["n"]) if found else 0

    def pending_from(self, creator: str, invitee: str) -> int:
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {game_players} p JOIN {games} g ON g.id = p.game "
            "WHERE p.user_id = %s AND p.pending = 1 AND g.created_by = %s AND g.status = %s",
            [invitee, creator, "invited"],
        )
        return int(found["n"]) if found else 0

    def select(self, query: GameQuery, limit: int, after: Key | None) -> list[dict[str, Any]]:
        sources: list[Statement] = []
        for table, condition, params in self._sources(query):
            where, args = self._filters(query, table)
            where = [condition, *where]
            args = [*params, *args]
            if query.player is not None and query.reader.user != query.player:
                readable, more = self._readable(query, "game")  # another's games
                where.append(readable)
                args += more
            key = "id" if table == "games" else "game"
            if after is not None:
                where.append(f"(created < %s OR (created = %s AND {key} < %s))")
                args += [after[0], after[0], after[1]]
            sources.append(
                (
                    f"SELECT {key} AS id FROM {{{table}}} WHERE {' AND '.join(where)} "
                    f"ORDER BY created DESC, {key} DESC LIMIT %s",
                    [*args, limit],
                )
            )
        if not sources:
            return []
        union = " UNION ".join(
            f"SELECT id FROM ({text}) AS s{n}" for n, (text, _) in enumerate(sources)
        )
        found = self.query(
            f"SELECT * FROM {{games}} WHERE id IN ({union}) ORDER BY created DESC, id DESC LIMIT %s",
            [*(p for _, params in sources for p in params), limit],
        )
        return [self.row_of(r) for r in found]

    @staticmethod
    def _sources(query: GameQuery) -> list[tuple[str, str, list[Any]]]:
        """Each source of the list: (table, condition, its parameters)."""
        if query.everything:
            return [("games", "1 = 1", [])]
        if query.player is not None:
            condition = "user_id = %s" + (" AND pending = 1" if query.pending else "")
            return [("game_players", condition, [query.player])]
        reader = query.reader
        sources: list[tuple[str, str, list[Any]]] = []
        if query.public is not False:
            sources.append(("games", "public = 1", []))
        if query.public is True or reader.user is None:
            return sources
        sources.append(("game_players", "user_id = %s", [reader.user]))
        clubs = [c for c in reader.clubs if query.club is None or c == query.club]
        if clubs:
            marks = ", ".join(["%s"] * len(clubs))
            sources.append(("games", f"club IN ({marks})", list(clubs)))
        if reader.site_arbiter and query.club is None:
            sources.append(("games", "club IS NULL", []))
        return sources

    @staticmethod
    def _filters(query: GameQuery, table: str) -> tuple[list[str], list[Any]]:
        where, args = [], []
        for name in FILTERS + (("timed",) if table == "games" else ()):
            value = getattr(query, name)
            if value is not None:
                where.append(f"{name} = %s")
                args.append(int(value) if name in ("public", "timed") else value)
        return where, args

    def _readable(self, query: GameQuery, key: str) -> tuple[str, list[Any]]:
        """Whether ``query.reader`` may read the row (of a player's games read by another)."""
        reader = query.reader
        if reader.user is None:
            return "public = 1", []
        terms = ["public = 1", f"{key} IN (SELECT game FROM {{game_players}} WHERE user_id = %s)"]
        args: list[Any] = [reader.user]
        if reader.clubs:
            terms.append(f"club IN ({', '.join(['%s'] * len(reader.clubs))})")
            args += list(reader.clubs)
        if reader.site_arbiter:
            terms.append("club IS NULL")
        return f"({' OR '.join(terms)})", args
