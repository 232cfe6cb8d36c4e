"""The campaigns' view (``service.application.projections.campaigns``) in SQLite and PostgreSQL:
table ``campaigns`` (tracking ``campaigns_tracking``), a club's campaigns read by its index."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.campaigns import CampaignsView


class CampaignsTables(SqlView, CampaignsView):
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
