"""The campaigns' view: each campaign's id, club and name, kept by :class:`CampaignsProjection` from
the campaigns' creation.  It answers a club's campaigns by its index, in the order they were
created, a keyset page at a time, without loading any campaign."""

from __future__ import annotations

from abc import abstractmethod
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.campaigns import Campaign


class CampaignsView(View):
    @abstractmethod
    def add_campaign(self, campaign: str, club: str, name: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def of_club(self, club: str, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s campaigns (``id``, ``club``, ``name`` and the page
        ``key``), oldest first (by ``position``), after the key ``after``."""


class CampaignsProjection(Projection[CampaignsView]):
    name = "campaigns"
    topics = (get_topic(Campaign.Created),)

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Campaign.Created, tracking: Tracking) -> None:
        self.view.add_campaign(str(event.originator_id), event.club_id, event.name, tracking)
