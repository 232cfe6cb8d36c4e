"""The games' view: one row per game (who plays it, its club, whether it is public, its status) and one
per player of it, kept by :class:`GamesProjection` from the game's life-cycle events.

It answers the game lists a page at a time, newest first, by the keyset ``(created, id)``: the games
a reader may read (public ones, their own, their clubs', and for a site arbiter those of no club),
a player's own, the invitations waiting for a user, by status, system, club.  Each source of a list
is read through its own index, so a page costs the same whatever the history (see
``service.adapters.views.games``)."""

from __future__ import annotations

import json
from abc import abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.game import Game

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


class GamesView(View):
    """The ``games`` and ``game_players`` tables; each write records its tracking in the same
    transaction."""

    @abstractmethod
    def add_game(self, row: dict[str, Any], players: dict[str, bool], tracking: Tracking) -> None:
        """Add a created game (nothing if it is there); ``players``: user id -> invitation
        pending."""

    @abstractmethod
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

    @abstractmethod
    def select(self, query: GameQuery, limit: int, after: Key | None) -> list[dict[str, Any]]:
        """Up to ``limit`` rows of ``query`` after the key ``after``, newest first."""

    @abstractmethod
    def row(self, game_id: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def created_count(self, creator: str, status: str, *, solo: bool = False) -> int:
        """How many games ``creator`` made are ``status`` (``solo``: only those whose every side
        is theirs, hot-seat games), by the index on ``(created_by, status)``."""

    @abstractmethod
    def pending_from(self, creator: str, invitee: str) -> int:
        """How many of ``creator``'s invitations wait for ``invitee``'s answer."""

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
