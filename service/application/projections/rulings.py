"""The club rulings' view: every ruling made from a dispute (withdrawn or in force), kept by
:class:`RulingsProjection` from the rulings' events, and the event types each ruling in force was
made for.  It answers the rulings in force (the knowledge base's index is rebuilt from them) and the
rulings of a system made for an event type (by key), without loading any ruling."""

from __future__ import annotations

import json
from abc import abstractmethod
from dataclasses import dataclass
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.rulings import ClubRuling


@dataclass(frozen=True)
class Ruling:
    """A club ruling in force as the view holds it (what the knowledge base indexes of it)."""

    id: str
    club: str
    system: str
    heading: str
    text: str
    rule_refs: list[str]
    event_types: list[str]
    game: str
    dispute: str
    arbiter: str
    citations: list[dict[str, Any]]
    made_on: str

    JSON = ("rule_refs", "event_types", "citations")

    @classmethod
    def of_row(cls, record: dict[str, Any]) -> Ruling:
        return cls(
            **{
                name: json.loads(record[name]) if name in cls.JSON else record[name]
                for name in cls.__dataclass_fields__
            }
        )


class RulingsView(View):
    @abstractmethod
    def add_ruling(self, ruling: Ruling, tracking: Tracking) -> None: ...

    @abstractmethod
    def withdraw(self, ruling: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def in_force(self) -> list[Ruling]:
        """Every ruling in force, in the order they were made."""

    @abstractmethod
    def for_event(self, system: str, event_type: str) -> list[Ruling]:
        """The rulings in force of ``system`` made for ``event_type`` events, oldest first."""


class RulingsProjection(Projection[RulingsView]):
    name = "rulings"
    topics = tuple(get_topic(cls) for cls in (ClubRuling.Made, ClubRuling.Withdrawn))

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: ClubRuling.Made, tracking: Tracking) -> None:
        ruling = Ruling(
            id=str(event.originator_id),
            club=event.club,
            system=event.system,
            heading=event.heading,
            text=event.text,
            rule_refs=list(event.rule_refs),
            event_types=list(event.event_types),
            game=event.game,
            dispute=event.dispute,
            arbiter=event.arbiter,
            citations=list(event.citations),
            made_on=event.timestamp.date().isoformat(),
        )
        self.view.add_ruling(ruling, tracking)

    @process_event.register
    def _(self, event: ClubRuling.Withdrawn, tracking: Tracking) -> None:
        self.view.withdraw(str(event.originator_id), tracking)
