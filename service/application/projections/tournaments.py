"""The club events' view, kept by :class:`TournamentsProjection` from the events' own events, never
loading one: each event (its settings, status and number of rounds; a club's events read by its
index, a keyset page at a time), its players in the order they joined, its rounds (the deadline, who
sits out, how many games wait for a result: the worker's deadline warnings read them by ``(warned,
deadline)``), each round's games with their results, and the standings in rank order -- written
again, from the view's own rows, in the transaction of each event that changes them (a join, a
round, a result).  Requests read the rows by key; nothing is kept in memory between events."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.pairing import Played, standings
from service.domain.tournaments import Tournament

#: the settings an event's row keeps (``detail``), as ``Tournament.Created`` gives them
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


class TournamentsView(View):
    @abstractmethod
    def add_event(self, row: dict[str, Any], tracking: Tracking) -> None: ...

    @abstractmethod
    def set_status(
        self, event: str, status: str, rounds: int | None, tracking: Tracking
    ) -> None: ...

    @abstractmethod
    def add_player(self, event: str, user: str, tracking: Tracking) -> None:
        """``user`` joins (seeded after those before), and the standings are written again."""

    @abstractmethod
    def remove_player(self, event: str, user: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def add_round(
        self,
        event: str,
        number: int,
        deadline: str,
        bye: str | None,
        games: Sequence[dict[str, Any]],
        tracking: Tracking,
    ) -> None: ...

    @abstractmethod
    def game_scored(
        self,
        event: str,
        number: int,
        game: str,
        winner: int | None,
        source: str,
        tracking: Tracking,
    ) -> None: ...

    @abstractmethod
    def warned(self, event: str, number: int, tracking: Tracking) -> None: ...

    # -- reads ----------------------------------------------------------------------------------------
    @abstractmethod
    def event_row(self, event: str) -> dict[str, Any] | None:
        """The event's row (``detail`` parsed), or None."""

    @abstractmethod
    def players(self, event: str) -> list[str]:
        """The event's players' ids in seed order."""

    @abstractmethod
    def rounds(self, event: str) -> list[dict[str, Any]]:
        """The event's rounds in order, each with its ``games`` in board order."""

    @abstractmethod
    def standings(self, event: str) -> list[dict[str, Any]]:
        """The standings rows in rank order."""

    @abstractmethod
    def of_club(self, club: str, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s events, oldest first, after the key ``after``."""

    @abstractmethod
    def due(self, before: str, limit: int) -> list[dict[str, Any]]:
        """Rounds not warned whose deadline is before ``before`` (ISO time) and that still have
        unfinished games, earliest first."""


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
