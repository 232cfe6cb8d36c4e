"""The club events' view: each event's id, club, name, format and status (a club's events read by
its index, a keyset page at a time), and each released round's deadline with how many of its games
wait for a result (the worker's deadline warnings read them by ``(warned, deadline)``) -- kept by
:class:`TournamentsProjection` from the events' own events, never loading one."""

from __future__ import annotations

from abc import abstractmethod
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.tournaments import Tournament


class TournamentsView(View):
    @abstractmethod
    def add_event(self, row: dict[str, Any], tracking: Tracking) -> None: ...

    @abstractmethod
    def set_status(self, event: str, status: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def add_round(
        self, event: str, number: int, deadline: str, games: int, tracking: Tracking
    ) -> None: ...

    @abstractmethod
    def game_scored(self, event: str, number: int, tracking: Tracking) -> None: ...

    @abstractmethod
    def warned(self, event: str, number: int, tracking: Tracking) -> None: ...

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
                "position": tracking.notification_id,
            },
            tracking,
        )

    @process_event.register
    def _(self, e: Tournament.Started, tracking: Tracking) -> None:
        self.view.set_status(str(e.originator_id), "started", tracking)

    @process_event.register
    def _(self, e: Tournament.Finished, tracking: Tracking) -> None:
        self.view.set_status(str(e.originator_id), "finished", tracking)

    @process_event.register
    def _(self, e: Tournament.RoundReleased, tracking: Tracking) -> None:
        self.view.add_round(str(e.originator_id), e.number, e.deadline, len(e.games), tracking)

    @process_event.register
    def _(self, e: Tournament.GameScored, tracking: Tracking) -> None:
        self.view.game_scored(str(e.originator_id), e.round, tracking)

    @process_event.register
    def _(self, e: Tournament.DeadlineNear, tracking: Tracking) -> None:
        self.view.warned(str(e.originator_id), e.round, tracking)
