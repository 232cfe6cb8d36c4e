"""The disputes' view: every dispute opened in any game (open, or its verdict once resolved) with
its game's club, kept by :class:`DisputesProjection` from the games' creation (which club a game is
of) and their disputes' events.  An arbiter's queue is a page of the open disputes of the clubs
they arbitrate (``''``: the games of no club, a site arbiter's), oldest first, read by the index
``(status, club, position)`` -- not a projection of the whole log held in memory.

In SQLite and PostgreSQL (:mod:`.base`): tables ``disputes`` and ``dispute_games`` (tracking
``disputes_tracking``), an arbiter's open disputes read a page at a time by ``(status, club,
position)``."""

from __future__ import annotations

import json
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.game import Game
from service.views.base import SqlView, Table

OPEN = "open"
#: a page's key: (the opening's notification id; the game's id)
Key = tuple[int, str]


class DisputesView(SqlView):
    TABLES = (
        Table(
            "disputes",
            "game TEXT NOT NULL, dispute TEXT NOT NULL, seq INTEGER NOT NULL, "
            "side TEXT NOT NULL, claim TEXT NOT NULL, citations TEXT NOT NULL, "
            "opened_at TEXT NOT NULL, status TEXT NOT NULL, club TEXT NOT NULL, "
            "position BIGINT NOT NULL, PRIMARY KEY (game, dispute)",
            indexes=(("queue", "status, club, position"), ("listing", "status, position")),
        ),
        Table("dispute_games", "game TEXT PRIMARY KEY, club TEXT NOT NULL"),
    )

    @staticmethod
    def item_of(record: dict[str, Any]) -> dict[str, Any]:
        """A stored row as the queue presents it, with its page ``key``."""
        return {
            "game": record["game"],
            "dispute": record["dispute"],
            "seq": int(record["seq"]),
            "side": record["side"],
            "claim": record["claim"],
            "citations": json.loads(record["citations"]),
            "opened_at": record["opened_at"],
            "key": (int(record["position"]), record["game"]),
        }

    def add_game(self, game: str, club: str, tracking: Tracking) -> None:
        """Which club ``game`` is of (``''``: none)."""
        self.write(
            tracking,
            (
                "INSERT INTO {dispute_games} (game, club) VALUES (%s, %s) "
                "ON CONFLICT (game) DO NOTHING",
                [game, club],
            ),
        )

    def open_dispute(self, row: dict[str, Any], tracking: Tracking) -> None:
        """A dispute opened (``row``: game, dispute, seq, side, claim, citations, opened_at),
        filed under its game's club."""
        self.write(
            tracking,
            (
                "INSERT INTO {disputes} (game, dispute, seq, side, claim, citations, opened_at, "
                "status, club, position) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                "COALESCE((SELECT club FROM {dispute_games} WHERE game = %s), ''), %s) "
                "ON CONFLICT (game, dispute) DO NOTHING",
                [
                    row["game"],
                    row["dispute"],
                    row["seq"],
                    row["side"],
                    row["claim"],
                    row["citations"],
                    row["opened_at"],
                    OPEN,
                    row["game"],
                    tracking.notification_id,
                ],
            ),
        )

    def resolve_dispute(self, game: str, dispute: str, verdict: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "UPDATE {disputes} SET status = %s WHERE game = %s AND dispute = %s",
                [verdict, game, dispute],
            ),
        )

    def select_open(
        self, clubs: tuple[str, ...] | None, limit: int, after: Key | None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` open disputes of games of ``clubs`` (``None``: of any club), oldest
        first, after the key ``after``; each with its ``key``."""
        where, params = "status = %s", [OPEN]
        if clubs is not None:
            if not clubs:
                return []
            where += f" AND club IN ({', '.join(['%s'] * len(clubs))})"
            params += list(clubs)
        if after is not None:
            where += " AND position > %s"
            params.append(after[0])  # type: ignore[arg-type]
        found = self.query(
            f"SELECT * FROM {{disputes}} WHERE {where} ORDER BY position LIMIT %s",
            [*params, limit],
        )
        return [self.item_of(r) for r in found]


class DisputesProjection(Projection[DisputesView]):
    name = "disputes"
    topics = tuple(
        get_topic(cls)
        for cls in (Game.Created, Game.DisputeOpened, Game.DisputeResolved, Game.VerdictAgreed)
    )
    #: a request that opened or resolved a dispute reads its write; one that created a game need
    #: not wait for its club to be filed here (the worker does it, or the next dispute's catch-up)
    seen_topics = tuple(
        get_topic(cls) for cls in (Game.DisputeOpened, Game.DisputeResolved, Game.VerdictAgreed)
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Game.Created, tracking: Tracking) -> None:
        club = (event.labels or {}).get("club")
        self.view.add_game(str(event.originator_id), str(club) if club else "", tracking)

    @process_event.register
    def _(self, event: Game.DisputeOpened, tracking: Tracking) -> None:
        row = {
            "game": str(event.originator_id),
            "dispute": event.dispute,
            "seq": event.seq,
            "side": event.side,
            "claim": event.claim,
            "citations": json.dumps(event.citations),
            "opened_at": event.timestamp.isoformat(),
        }
        self.view.open_dispute(row, tracking)

    @process_event.register
    def _(self, event: Game.DisputeResolved, tracking: Tracking) -> None:
        self.view.resolve_dispute(str(event.originator_id), event.dispute, event.verdict, tracking)

    @process_event.register
    def _(self, event: Game.VerdictAgreed, tracking: Tracking) -> None:
        # settled by both players' agreement: off every arbiter's queue
        self.view.resolve_dispute(str(event.originator_id), event.dispute, event.verdict, tracking)
