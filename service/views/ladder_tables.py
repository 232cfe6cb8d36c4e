"""The ladders' tables (:mod:`.ladders`) in SQLite and PostgreSQL (:mod:`.base`), and the statements
and column lists that write and read their rows: ``ladders`` (with each ladder's rating table,
JSON), ``ladder_standings``, ``ladder_history``, ``ladder_challenges``, ``ladder_reports``,
``ladder_results`` and ``ladder_games`` (tracking ``ladders_tracking``) in the store's own
database."""

from __future__ import annotations

from service.views.base import Table
from service.views.ladder_state import ROW

#: the view's tables (``LaddersView.TABLES``)
LADDER_TABLES = (
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
