"""The clubs' view (``service.application.projections.clubs``) in SQLite and PostgreSQL: tables
``clubs`` and ``club_members`` (tracking ``clubs_tracking``), a user's clubs read by its index."""

from __future__ import annotations

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.clubs import ClubsView

MEMBER = (
    "INSERT INTO {club_members} (club, user_id) VALUES (%s, %s) "
    "ON CONFLICT (club, user_id) DO NOTHING"
)


class ClubsTables(SqlView, ClubsView):
    TABLES = (
        Table("clubs", "id TEXT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL"),
        Table(
            "club_members",
            "club TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY (club, user_id)",
            indexes=(("by_user", "user_id, club"),),
        ),
    )

    def add_club(self, club: str, name: str, founder: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {clubs} (id, name, name_key) VALUES (%s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [club, name, name.lower()],
            ),
            (MEMBER, [club, founder]),
        )

    def set_member(self, club: str, user: str, member: bool, tracking: Tracking) -> None:
        if member:
            self.write(tracking, (MEMBER, [club, user]))
        else:
            self.write(
                tracking,
                ("DELETE FROM {club_members} WHERE club = %s AND user_id = %s", [club, user]),
            )

    def clubs_of(self, user: str) -> list[str]:
        found = self.query(
            "SELECT club FROM {club_members} WHERE user_id = %s ORDER BY club", [user]
        )
        return [row["club"] for row in found]

    def club_names(self) -> list[dict[str, str]]:
        found = self.query("SELECT id, name FROM {clubs} ORDER BY name_key, id")
        return [{"id": row["id"], "name": row["name"]} for row in found]
