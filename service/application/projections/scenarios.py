"""The club scenarios' view: one row per club scenario (its club, system, title, sharing and latest
published version), kept by :class:`ScenariosProjection` from the scenarios' events.  It answers a
club's scenarios (by club, then title) and the library of published scenarios (by system, then
title) a keyset page at a time by its indexes, without loading every scenario of the store."""

from __future__ import annotations

from abc import abstractmethod
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.scenarios import ClubScenario

#: a page's key of a club's scenarios: (the title in lower case, the notification id of its making)
TitleKey = tuple[str, int]
#: a page's key of the library: (the system, the title in lower case, the position)
LibraryKey = tuple[str, str, int]


class ScenariosView(View):
    @abstractmethod
    def add_scenario(
        self, scenario: str, club: str, system: str, title: str, tracking: Tracking
    ) -> None:
        """A created or forked scenario: private, nothing published (nothing if it is there)."""

    @abstractmethod
    def set_latest(self, scenario: str, number: int, tracking: Tracking) -> None: ...

    @abstractmethod
    def set_sharing(self, scenario: str, sharing: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def of_club(
        self,
        club: str,
        sharing: tuple[str, ...] | None,
        limit: int,
        after: TitleKey | None,
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s scenarios (``sharing``: only those shared so) by title,
        after the key ``after``: each its ``id`` and page ``key``."""

    @abstractmethod
    def published(
        self,
        system: str | None,
        clubs: tuple[str, ...],
        sharing: tuple[str, ...],
        limit: int,
        after: LibraryKey | None,
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of the published scenarios of ``clubs`` or shared as one of
        ``sharing`` (``system``: of that system only), by system then title, after the key
        ``after``: each its ``id`` and page ``key``."""


class ScenariosProjection(Projection[ScenariosView]):
    name = "scenarios"
    topics = tuple(
        get_topic(cls)
        for cls in (
            ClubScenario.Created,
            ClubScenario.Forked,
            ClubScenario.Published,
            ClubScenario.SharingSet,
        )
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register(ClubScenario.Created)
    @process_event.register(ClubScenario.Forked)
    def _(self, event: Any, tracking: Tracking) -> None:  # made, or forked from another club's
        self.view.add_scenario(
            str(event.originator_id), event.club, event.system, event.title, tracking
        )

    @process_event.register
    def _(self, event: ClubScenario.Published, tracking: Tracking) -> None:
        self.view.set_latest(str(event.originator_id), event.number, tracking)

    @process_event.register
    def _(self, event: ClubScenario.SharingSet, tracking: Tracking) -> None:
        self.view.set_sharing(str(event.originator_id), event.sharing, tracking)
