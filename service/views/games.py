"""The games' view: one row per game (who plays it, its club, whether it is public, its status) and one
per player of it, kept by :class:`GamesProjection` from the game's life-cycle events.

It answers the game lists a page at a time, newest first, by the keyset ``(created, id)``: the games
a reader may read (public ones, their own, their clubs', and for a site arbiter those of no club),
a player's own, the invitations waiting for a user, by status, system, club.  Each source of a list
is read through its own index, so a page costs the same whatever the history (below).

In SQLite and PostgreSQL (:mod:`.base`): tables ``games`` and ``game_players`` (tracking
``games_tracking``) in the store's own database.

A list is the union of its sources -- public games, the reader's own, their clubs', for a site
arbiter those of no club; or one player's games -- each read newest first through its own index and
cut at the page's size before the union, so a page reads at most a page per source whatever the
history.  ``game_players`` repeats the columns a list filters on (status, system, club, public),
so that a player's games are filtered without a join."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.game import Game
from service.views.base import SqlView, Statement, Table

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: a page's key: (created, in microseconds since the epoch; the game's id)
Key = tuple[int, str]
#: a page of games holds at most this many (``GET /api/games?limit=``)
PAGE_MAX = 100


@dataclass(frozen=True)
class Reader:
    """Who reads a list: a visitor (``user`` None) reads public games only; a user also their own,
    their clubs' and, as a site arbiter, those of no club."""

    user: str | None = None
    clubs: tuple[str, ...] = ()
    site_arbiter: bool = False


@dataclass(frozen=True)
class GameQuery:
    """Which games a list holds: those ``reader`` may read, narrowed to the games ``player`` plays
    (``pending``: whose invitation waits for them), and by ``status``, ``system``, ``club``,
    ``public`` and ``timed``."""

    reader: Reader = field(default_factory=Reader)
    player: str | None = None
    pending: bool = False
    status: str | None = None
    system: str | None = None
    club: str | None = None
    public: bool | None = None
    #: every game, whoever reads (the operator's listing, the worker), and with a clock or not
    everything: bool = False
    timed: bool | None = None


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


class GamesView(SqlView):
    """The ``games`` and ``game_players`` tables; each write records its tracking in the same
    transaction."""

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

    @staticmethod
    def row_of(record: dict[str, Any]) -> dict[str, Any]:
        """A stored row as the game index presents it."""
        return {
            "id": record["id"],
            "system": record["system"],
            "scenario": record["scenario"],
            "title": record["title"],
            "sides": json.loads(record["sides"]),
            "created_at": record["created_at"],
            "status": record["status"],
            "result": json.loads(record["result"]) if record["result"] else None,
            "ended_at": record["ended_at"],
            "club": record["club"],
            "ladder": record["ladder"],
            "public": bool(record["public"]),
            "timed": bool(record["timed"]),
            "created_by": record["created_by"],
            "pending": json.loads(record["pending"]),
            "created": int(record["created"]),
        }

    # -- writes ---------------------------------------------------------------------------------------
    def add_game(self, row: dict[str, Any], players: dict[str, bool], tracking: Tracking) -> None:
        """Add a created game (nothing if it is there); ``players``: user id -> invitation
        pending."""
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
        """Update the game's row (``changes``, column -> value; ``status`` copied to its players'
        rows); ``pending``: the users whose invitation now waits; ``answered``: the user whose
        invitation no longer does (``"*"``: nobody's does)."""
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
        """How many games ``creator`` made are ``status`` (``solo``: only those whose every side
        is theirs, hot-seat games), by the index on ``(created_by, status)``."""
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
        """How many of ``creator``'s invitations wait for ``invitee``'s answer."""
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {game_players} p JOIN {games} g ON g.id = p.game "
            "WHERE p.user_id = %s AND p.pending = 1 AND g.created_by = %s AND g.status = %s",
            [invitee, creator, "invited"],
        )
        return int(found["n"]) if found else 0

    def select(self, query: GameQuery, limit: int, after: Key | None) -> list[dict[str, Any]]:
        """Up to ``limit`` rows of ``query`` after the key ``after``, newest first."""
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


TOPICS = tuple(
    get_topic(cls)
    for cls in (
        Game.Created,
        Game.Ended,
        Game.Invited,
        Game.InvitationAccepted,
        Game.InvitationDeclined,
    )
)


class GamesProjection(Projection[GamesView]):
    name = "games"
    topics = TOPICS

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Game.Created, tracking: Tracking) -> None:
        stamp = event.timestamp
        labels = event.labels
        self.view.add_game(
            {
                "id": str(event.originator_id),
                "system": event.system,
                "scenario": event.scenario,
                "title": labels.get("title", event.scenario),
                "sides": json.dumps(dict(event.sides)),
                "created_at": stamp.isoformat(),
                "status": "active",
                "result": None,
                "ended_at": None,
                "club": labels.get("club"),
                "ladder": labels.get("ladder"),
                "public": int(bool(labels.get("public", False))),
                "timed": int(bool(labels.get("clock"))),
                "created_by": event.created_by,
                "pending": "[]",
                "created": (stamp - EPOCH) // timedelta(microseconds=1),
            },
            {uid: False for uid in event.sides.values()},
            tracking,
        )

    @process_event.register
    def _(self, event: Game.Ended, tracking: Tracking) -> None:
        self.view.change(
            str(event.originator_id),
            {
                "status": "ended",
                "result": json.dumps(event.result),
                "ended_at": event.timestamp.isoformat(),
            },
            tracking,
        )

    @process_event.register
    def _(self, event: Game.Invited, tracking: Tracking) -> None:
        self.view.change(
            str(event.originator_id),
            {"status": "invited", "pending": json.dumps(list(event.pending))},
            tracking,
            pending=list(event.pending),
        )

    @process_event.register
    def _(self, event: Game.InvitationAccepted, tracking: Tracking) -> None:
        game_id = str(event.originator_id)
        row = self.view.row(game_id)
        if row is None:
            self.view.insert_tracking(tracking)
            return
        pending = [u for u in row["pending"] if u != event.user]
        changes: dict[str, Any] = {"pending": json.dumps(pending)}
        if not pending:
            changes["status"] = "active"
        self.view.change(game_id, changes, tracking, answered=event.user)

    @process_event.register
    def _(self, event: Game.InvitationDeclined, tracking: Tracking) -> None:
        self.view.change(
            str(event.originator_id),
            {"status": "declined", "pending": "[]"},
            tracking,
            answered="*",
        )
