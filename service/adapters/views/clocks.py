"""The clocks' view (``service.application.projections.clocks``) in SQLite and PostgreSQL: table
``clocks`` (tracking ``clocks_tracking``), read by its index on ``(due, game)`` -- the rows due -- and
on ``(claim, game)`` -- the claims waiting for an arbiter.  ``due`` is in microseconds since the
epoch, NULL when no deadline is known to come (no clock running)."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.clocks import ClocksView

COLUMNS = "game, version, due, claim, club"


class ClocksTables(SqlView, ClocksView):
    TABLES = (
        Table(
            "clocks",
            "game TEXT PRIMARY KEY, version BIGINT NOT NULL, due BIGINT, "
            "claim INTEGER NOT NULL, club TEXT",
            indexes=(("by_due", "due, game"), ("by_claim", "claim, game")),
        ),
    )

    # -- the projection's writes ----------------------------------------------------------------------
    def add_game(self, game: str, version: int, due: int, club: str | None, t: Tracking) -> None:
        self.write(
            t,
            (
                f"INSERT INTO {{clocks}} ({COLUMNS}) VALUES (%s, %s, %s, 0, %s) "
                "ON CONFLICT (game) DO NOTHING",
                [game, version, due, club],
            ),
        )

    def touch(
        self, game: str, version: int, due: int, tracking: Tracking, *, claim: bool | None = None
    ) -> None:
        statements: list[tuple[str, list[Any]]] = [
            (
                "UPDATE {clocks} SET due = %s, version = %s WHERE game = %s AND version < %s",
                [due, version, game, version],
            )
        ]
        if claim is not None:  # whatever the version: the clock checks never write it
            statements.append(
                ("UPDATE {clocks} SET claim = %s WHERE game = %s", [int(claim), game])
            )
        self.write(tracking, *statements)

    def remove(self, game: str, tracking: Tracking) -> None:
        self.write(tracking, ("DELETE FROM {clocks} WHERE game = %s", [game]))

    # -- the clock checks' write ----------------------------------------------------------------------
    def set_due(self, game: str, version: int, due: int | None) -> bool:
        changed = self.execute(
            "UPDATE {clocks} SET due = %s, version = %s WHERE game = %s AND version <= %s",
            [due, version, game, version],
        )
        return changed > 0

    # -- reads ----------------------------------------------------------------------------------------
    def due(self, now: int, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        where, args = "due <= %s", list[Any]([now])
        if after is not None:
            where += " AND (due > %s OR (due = %s AND game > %s))"
            args += [after[0], after[0], after[1]]
        return self.query(
            f"SELECT {COLUMNS} FROM {{clocks}} WHERE {where} ORDER BY due, game LIMIT %s",
            [*args, limit],
        )

    def claimed(self) -> list[dict[str, Any]]:
        return self.query(f"SELECT {COLUMNS} FROM {{clocks}} WHERE claim = 1 ORDER BY game")

    def row(self, game: str) -> dict[str, Any] | None:
        found = self.query(f"SELECT {COLUMNS} FROM {{clocks}} WHERE game = %s", [game])
        return found[0] if found else None

    def every(self) -> list[dict[str, Any]]:
        return self.query(f"SELECT {COLUMNS} FROM {{clocks}} ORDER BY game")
