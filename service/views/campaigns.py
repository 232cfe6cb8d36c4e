"""The campaigns' view: each campaign's id, club and name, kept by :class:`CampaignsProjection` from
the campaigns' creation.  It answers a club's campaigns by its index, in the order they were
created, a keyset page at a time, without loading any campaign.

In SQLite and PostgreSQL (:mod:`.base`): table ``campaigns`` (tracking ``campaigns_tracking``), a
club's campaigns read by its index."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.campaigns import Campaign
from service.views.base import SqlView, Table


class CampaignsView(SqlView):
    TABLES = (
        Table(
            "campaigns",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, name TEXT NOT NULL, position BIGINT NOT NULL",
            indexes=(("by_club", "club, position"),),
        ),
    )

    def add_campaign(self, campaign: str, club: str, name: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {campaigns} (id, club, name, position) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [campaign, club, name, tracking.notification_id],
            ),
        )

    def of_club(self, club: str, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s campaigns (``id``, ``club``, ``name`` and the page
        ``key``), oldest first (by ``position``), after the key ``after``."""
        where, params = "club = %s", [club]
        if after is not None:
            where += " AND position > %s"  # one campaign per creation event: unique
            params.append(after[0])  # type: ignore[arg-type]
        found = self.query(
            f"SELECT id, club, name, position FROM {{campaigns}} WHERE {where} "
            "ORDER BY position LIMIT %s",
            [*params, limit],
        )
        return [
            {
                "id": r["id"],
                "club": r["club"],
                "name": r["name"],
                "key": (int(r["position"]), r["id"]),
            }
            for r in found
        ]


class CampaignsProjection(Projection[CampaignsView]):
    name = "campaigns"
    topics = (get_topic(Campaign.Created),)

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Campaign.Created, tracking: Tracking) -> None:
        self.view.add_campaign(str(event.originator_id), event.club_id, event.name, tracking)
