"""The e-mail addresses' view (``service.application.projections.emails``) in SQLite and
PostgreSQL: table ``emails`` (tracking ``emails_tracking``), one row per user with an address, the
users of an address read by its index."""

from __future__ import annotations

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.emails import EmailsView


class EmailsTables(SqlView, EmailsView):
    TABLES = (
        Table(
            "emails",
            "user_id TEXT PRIMARY KEY, address TEXT NOT NULL",
            indexes=(("by_address", "address, user_id"),),
        ),
    )

    def set_address(self, user: str, address: str | None, tracking: Tracking) -> None:
        if address is None:
            self.write(tracking, ("DELETE FROM {emails} WHERE user_id = %s", [user]))
            return
        self.write(
            tracking,
            (
                "INSERT INTO {emails} (user_id, address) VALUES (%s, %s) "
                "ON CONFLICT (user_id) DO UPDATE SET address = excluded.address",
                [user, address],
            ),
        )

    def select_users(self, key: str) -> list[str]:
        found = self.query(
            "SELECT user_id FROM {emails} WHERE address = %s ORDER BY user_id", [key]
        )
        return [row["user_id"] for row in found]
