"""The open games' view: one row per seek, kept by :class:`SeeksProjection` from the Seek events.

The rows hold what ``GET /api/seeks`` lists; they are read newest first, a page at a time, by the
keyset ``(created, id)`` (:class:`SeeksView.page`), indexed by ``(status, created, id)``.

In SQLite and PostgreSQL (:mod:`.base`): table ``seeks`` (tracking ``seeks_tracking``) in the
store's own database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.seeks import CANCELLED, JOINED, OPEN, Seek
from service.views.base import SqlView, Table

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: a page's key: (created, in microseconds since the epoch; the seek's id)
Key = tuple[int, str]


class SeeksView(SqlView):
    """The ``seeks`` table; each write records its tracking in the same transaction."""

    TABLES = (
        Table(
            "seeks",
            "id TEXT PRIMARY KEY, by_user TEXT NOT NULL, system TEXT NOT NULL, "
            "scenario TEXT NOT NULL, side TEXT NOT NULL, club TEXT, clock TEXT, "
            "options TEXT NOT NULL, status TEXT NOT NULL, game TEXT, opened_at TEXT NOT NULL, "
            "created BIGINT NOT NULL",
            indexes=(("listing", "status, created, id"), ("by_user", "by_user, status")),
        ),
    )

    COLUMNS = (
        "id",
        "by_user",
        "system",
        "scenario",
        "side",
        "club",
        "clock",
        "options",
        "status",
        "game",
        "opened_at",
        "created",
    )

    @staticmethod
    def row_of(record: dict[str, Any]) -> dict[str, Any]:
        """A stored row as the service presents it (``opened_at`` and ``created`` both kept)."""
        return {
            "id": record["id"],
            "by": record["by_user"],
            "system": record["system"],
            "scenario": record["scenario"],
            "side": record["side"],
            "club": record["club"],
            "clock": json.loads(record["clock"]) if record["clock"] else None,
            "options": json.loads(record["options"]),
            "status": record["status"],
            "game": record["game"],
            "opened_at": record["opened_at"],
            "created": int(record["created"]),
        }

    def insert_seek(self, row: dict[str, Any], tracking: Tracking) -> None:
        """Add an opened seek (nothing if it is there)."""
        marks = ", ".join(["%s"] * len(self.COLUMNS))
        self.write(
            tracking,
            (
                f"INSERT INTO {{seeks}} ({', '.join(self.COLUMNS)}) VALUES ({marks}) "
                "ON CONFLICT (id) DO NOTHING",
                [row[name] for name in self.COLUMNS],
            ),
        )

    def update_seek(self, seek_id: str, status: str, game: str | None, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {seeks} SET status = %s, game = COALESCE(%s, game) WHERE id = %s",
                (status, game, seek_id),
            ),
        )

    def open_count(self, user: str) -> int:
        """How many of ``user``'s seeks are open (by the index on ``(by_user, status)``)."""
        found = self.query_one(
            "SELECT COUNT(*) AS n FROM {seeks} WHERE by_user = %s AND status = %s", [user, "open"]
        )
        return int(found["n"]) if found else 0

    def select_page(self, status: str, limit: int, after: Key | None) -> list[dict[str, Any]]:
        """Up to ``limit`` rows of ``status`` after the key ``after``, newest first."""
        where, params = "status = %s", [status]
        if after is not None:
            where += " AND (created < %s OR (created = %s AND id < %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        found = self.query(
            f"SELECT * FROM {{seeks}} WHERE {where} ORDER BY created DESC, id DESC LIMIT %s",
            [*params, limit],
        )
        return [self.row_of(r) for r in found]


class SeeksProjection(Projection[SeeksView]):
    name = "seeks"
    topics = tuple(get_topic(cls) for cls in (Seek.Opened, Seek.Joined, Seek.Cancelled))

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, domain_event: Seek.Opened, tracking: Tracking) -> None:
        stamp = domain_event.timestamp
        clock = domain_event.labels.get("clock")
        self.view.insert_seek(
            {
                "id": str(domain_event.originator_id),
                "by_user": domain_event.by,
                "system": domain_event.system,
                "scenario": domain_event.scenario,
                "side": domain_event.side,
                "club": domain_event.club,
                "clock": json.dumps(clock) if clock is not None else None,
                "options": json.dumps(dict(domain_event.options)),
                "status": OPEN,
                "game": None,
                "opened_at": stamp.isoformat(),
                "created": (stamp - EPOCH) // timedelta(microseconds=1),
            },
            tracking,
        )

    @process_event.register
    def _(self, domain_event: Seek.Joined, tracking: Tracking) -> None:
        self.view.update_seek(
            str(domain_event.originator_id), JOINED, domain_event.game_id, tracking
        )

    @process_event.register
    def _(self, domain_event: Seek.Cancelled, tracking: Tracking) -> None:
        self.view.update_seek(str(domain_event.originator_id), CANCELLED, None, tracking)
