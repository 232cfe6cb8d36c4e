"""The reviews' view (``service.application.projections.reviews``) in SQLite and PostgreSQL: tables
``review_games`` (a game's system, sides, current turn, end), ``review_rolls`` (each die with what
it was worth), ``review_turns`` (each side's standing as each turn ended) and ``review_sides``
(each side's luck figure), tracking ``review_games_tracking``.  Everything is read by its game."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.reviews import ReviewsView
from service.rules.luck import RollValue


class ReviewsTables(SqlView, ReviewsView):
    TABLES = (
        Table(
            "review_games",
            "game TEXT PRIMARY KEY, system TEXT NOT NULL, sides TEXT NOT NULL, "
            "turn INTEGER NOT NULL, status TEXT NOT NULL, result TEXT, ended_seq INTEGER",
        ),
        Table(
            "review_rolls",
            "game TEXT NOT NULL, idx INTEGER NOT NULL, seq INTEGER NOT NULL, "
            "turn INTEGER NOT NULL, roller TEXT NOT NULL, purpose TEXT NOT NULL, "
            "die INTEGER NOT NULL, sides INTEGER NOT NULL, value TEXT, value_seq INTEGER, "
            "PRIMARY KEY (game, idx)",
        ),
        Table(
            "review_turns",
            "game TEXT NOT NULL, turn INTEGER NOT NULL, seq INTEGER NOT NULL, "
            "tally TEXT NOT NULL, PRIMARY KEY (game, turn)",
        ),
        Table(
            "review_sides",
            "game TEXT NOT NULL, side TEXT NOT NULL, figure TEXT NOT NULL, unit TEXT NOT NULL, "
            "p_at_least TEXT NOT NULL, measured INTEGER NOT NULL, PRIMARY KEY (game, side)",
        ),
    )

    def add_game(self, row: dict[str, Any], tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {review_games} (game, system, sides, turn, status) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game) DO NOTHING",
                [row["game"], row["system"], json.dumps(row["sides"]), row["turn"], "active"],
            ),
        )

    def add_rolls(self, game: str, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        statements = [
            (
                "INSERT INTO {review_rolls} (game, idx, seq, turn, roller, purpose, die, sides) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game, idx) DO NOTHING",
                [
                    game,
                    r["idx"],
                    r["seq"],
                    r["turn"],
                    r["roller"],
                    r["purpose"],
                    r["die"],
                    r["sides"],
                ],
            )
            for r in rows
        ]
        self.write(tracking, *statements)

    def measured(
        self,
        game: str,
        seq: int,
        values: list[RollValue],
        turn: dict[str, Any] | None,
        tracking: Tracking,
    ) -> None:
        with self.batch(), self._in_batch_or(commit=True) as cursor:
            for value in values:
                self._run(
                    cursor,
                    "UPDATE {review_rolls} SET value = %s, value_seq = %s "
                    "WHERE game = %s AND idx = %s",
                    [json.dumps(value.as_dict()), seq, game, value.index],
                )
            if turn is not None:
                self._run(
                    cursor,
                    "INSERT INTO {review_turns} (game, turn, seq, tally) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (game, turn) DO UPDATE SET seq = excluded.seq, "
                    "tally = excluded.tally",
                    [game, turn["turn"], seq, json.dumps(turn["tally"], sort_keys=True)],
                )
                self._run(
                    cursor,
                    "UPDATE {review_games} SET turn = %s WHERE game = %s",
                    [turn["now"], game],
                )
            if values:
                self._figures(cursor, game)
            self._track(cursor, tracking)

    def retracted(self, game: str, seqs: list[int], turn: int, tracking: Tracking) -> None:
        if not seqs:
            self.insert_tracking(tracking)
            return
        marks = ", ".join(["%s"] * len(seqs))
        with self.batch(), self._in_batch_or(commit=True) as cursor:
            self._run(
                cursor,
                "UPDATE {review_rolls} SET value = NULL, value_seq = NULL "
                f"WHERE game = %s AND value_seq IN ({marks})",
                [game, *seqs],
            )
            self._run(cursor, "UPDATE {review_games} SET turn = %s WHERE game = %s", [turn, game])
            self._figures(cursor, game)
            self._track(cursor, tracking)

    def ended(
        self, game: str, seq: int, result: dict[str, Any], turn: dict[str, Any], tracking: Tracking
    ) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {review_turns} (game, turn, seq, tally) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (game, turn) DO UPDATE SET seq = excluded.seq, tally = excluded.tally",
                [game, turn["turn"], seq, json.dumps(turn["tally"], sort_keys=True)],
            ),
            (
                "UPDATE {review_games} SET status = %s, result = %s, ended_seq = %s "
                "WHERE game = %s",
                ["ended", json.dumps(result, sort_keys=True), seq, game],
            ),
        )

    def _run(self, cursor: Any, text: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        cursor.execute(self.sql(text), list(params))
        return []

    def _figures(self, cursor: Any, game: str) -> None:
        """Each side's figure summed again from the game's measured rolls (in this transaction)."""
        cursor.execute(self.sql("SELECT sides FROM {review_games} WHERE game = %s"), [game])
        found = cursor.fetchall()
        if not found:
            return
        sides = list(json.loads(dict(found[0])["sides"]))
        cursor.execute(
            self.sql("SELECT value FROM {review_rolls} WHERE game = %s AND value IS NOT NULL"),
            [game],
        )
        rows = [dict(r) for r in cursor.fetchall()]
        for side, figure in self.figures_of(rows, sides).items():
            cursor.execute(
                self.sql(
                    "INSERT INTO {review_sides} (game, side, figure, unit, p_at_least, measured) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (game, side) DO UPDATE SET "
                    "figure = excluded.figure, unit = excluded.unit, "
                    "p_at_least = excluded.p_at_least, measured = excluded.measured"
                ),
                [
                    game,
                    side,
                    repr(float(figure["figure"])),
                    figure["unit"],
                    repr(float(figure["p_at_least"])),
                    figure["measured"],
                ],
            )

    # -- reads ---------------------------------------------------------------------------------
    def game(self, game: str) -> dict[str, Any] | None:
        row = self.query_one("SELECT * FROM {review_games} WHERE game = %s", [game])
        if row is None:
            return None
        row["sides"] = json.loads(row["sides"])
        row["result"] = json.loads(row["result"]) if row.get("result") else None
        return row

    def rolls(self, game: str) -> list[dict[str, Any]]:
        found = self.query("SELECT * FROM {review_rolls} WHERE game = %s ORDER BY idx", [game])
        for row in found:
            row["value"] = RollValue.from_dict(json.loads(row["value"])) if row["value"] else None
        return found

    def turns(self, game: str) -> list[dict[str, Any]]:
        found = self.query("SELECT * FROM {review_turns} WHERE game = %s ORDER BY turn", [game])
        for row in found:
            row["tally"] = json.loads(row["tally"])
        return found

    def figures(self, games: list[str]) -> list[dict[str, Any]]:
        if not games:
            return []
        marks = ", ".join(["%s"] * len(games))
        found = self.query(
            "SELECT s.*, g.status FROM {review_sides} s JOIN {review_games} g ON g.game = s.game "
            f"WHERE s.game IN ({marks}) ORDER BY s.game, s.side",
            list(games),
        )
        return [
            {
                "game": r["game"],
                "side": r["side"],
                "figure": float(r["figure"]),
                "unit": r["unit"],
                "p_at_least": float(r["p_at_least"]),
                "measured": int(r["measured"]),
                "ended": r["status"] == "ended",
            }
            for r in found
        ]
