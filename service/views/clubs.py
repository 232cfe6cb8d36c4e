"""The clubs' view: each club's name, and who is a member of which club since when, kept by
:class:`ClubsProjection` from the clubs' founding and membership events.  It answers "which clubs is
this user in" by key, and the clubs (by name) and a club's members (in the order they joined) a
keyset page at a time, without loading any club.

In SQLite and PostgreSQL (:mod:`.base`): tables ``clubs``, ``club_members`` and ``club_roster``
(tracking ``clubs_tracking``): a user's clubs read by ``club_members``'s index, the clubs a page at
a time by name (``(name_key, id)``), a club's members a page at a time in the order they joined
(``club_roster``: ``(club, position, user_id)``), and the invitations and join requests waiting
(``club_pending``), a club's or a user's a page at a time, oldest first."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.clubs import Club
from service.views.base import SqlView, Table

ClubKey = tuple[str, str]
#: a page's key of a club's members: (the notification id of their joining, the user's id)
MemberKey = tuple[int, str]
#: a page's key of invitations or join requests: (the notification id of the invitation or
#: request, the other party's id: the user's in a club's list, the club's in a user's)
PendingKey = tuple[int, str]
#: what waits: an admin's invitation for the user, or the user's request for the admins
PENDING_KINDS = ("invitation", "request")


MEMBER = (
    "INSERT INTO {club_members} (club, user_id) VALUES (%s, %s) "
    "ON CONFLICT (club, user_id) DO NOTHING"
)
ROSTER = (
    "INSERT INTO {club_roster} (club, user_id, position) VALUES (%s, %s, %s) "
    "ON CONFLICT (club, user_id) DO NOTHING"
)


class ClubsView(SqlView):
    TABLES = (
        Table(
            "clubs",
            "id TEXT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT {bytewise} NOT NULL",
            indexes=(("by_name", "name_key, id"),),
        ),
        Table(
            "club_members",
            "club TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY (club, user_id)",
            indexes=(("by_user", "user_id, club"),),
        ),
        Table(
            "club_roster",
            "club TEXT NOT NULL, user_id TEXT NOT NULL, position BIGINT NOT NULL, "
            "PRIMARY KEY (club, user_id)",
            indexes=(("joined", "club, position, user_id"),),
            # a store of an earlier release: its members, in no known order until the view is
            # rebuilt (``arbiter projections rebuild clubs`` puts them in the order they joined)
            fill="INSERT INTO {club_roster} (club, user_id, position) "
            "SELECT club, user_id, 0 FROM {club_members}",
        ),
        Table(
            "club_pending",
            "club TEXT NOT NULL, user_id TEXT NOT NULL, kind TEXT NOT NULL, "
            "position BIGINT NOT NULL, PRIMARY KEY (club, user_id, kind)",
            indexes=(
                ("of_club", "club, kind, position, user_id"),
                ("of_user", "user_id, kind, position, club"),
            ),
        ),
    )

    def set_pending(
        self, club: str, user: str, kind: str, pending: bool, tracking: Tracking, joined: bool
    ) -> None:
        """An invitation or a join request (``kind``) made (``pending``) or answered, withdrawn;
        ``joined``: answered by ``user`` becoming a member."""
        if pending:
            self.write(
                tracking,
                (
                    "INSERT INTO {club_pending} (club, user_id, kind, position) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (club, user_id, kind) DO NOTHING",
                    [club, user, kind, tracking.notification_id],
                ),
            )
            return
        gone = (
            "DELETE FROM {club_pending} WHERE club = %s AND user_id = %s AND kind = %s",
            [club, user, kind],
        )
        if joined:
            self.write(
                tracking,
                gone,
                (MEMBER, [club, user]),
                (ROSTER, [club, user, tracking.notification_id]),
            )
        else:
            self.write(tracking, gone)

    def pending_count(self, user: str, kind: str) -> int:
        """How many invitations for ``user``, or join requests by them, wait."""
        found = self.query(
            "SELECT COUNT(*) AS n FROM {club_pending} WHERE user_id = %s AND kind = %s",
            [user, kind],
        )
        return int(found[0]["n"]) if found else 0

    def pending_page(
        self, kind: str, limit: int, after: PendingKey | None, *, club: str = "", user: str = ""
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` waiting invitations or requests (``kind``) of ``club`` or of ``user``,
        oldest first after the key ``after``, each its ``club``, ``user`` and page ``key``."""
        mine, other = ("club", "user_id") if club else ("user_id", "club")
        where, params = f"{mine} = %s AND kind = %s", [club or user, kind]
        if after is not None:
            where += f" AND (position > %s OR (position = %s AND {other} > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        found = self.query(
            f"SELECT club, user_id, position FROM {{club_pending}} WHERE {where} "
            f"ORDER BY position, {other} LIMIT %s",
            [*params, limit],
        )
        return [
            {
                "club": r["club"],
                "user": r["user_id"],
                "key": (int(r["position"]), r["user_id"] if club else r["club"]),
            }
            for r in found
        ]

    def add_club(self, club: str, name: str, founder: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {clubs} (id, name, name_key) VALUES (%s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [club, name, name.lower()],
            ),
            (MEMBER, [club, founder]),
            (ROSTER, [club, founder, tracking.notification_id]),
        )

    def set_member(self, club: str, user: str, member: bool, tracking: Tracking) -> None:
        if member:
            self.write(
                tracking,
                (MEMBER, [club, user]),
                (ROSTER, [club, user, tracking.notification_id]),
            )
        else:
            self.write(
                tracking,
                ("DELETE FROM {club_members} WHERE club = %s AND user_id = %s", [club, user]),
                ("DELETE FROM {club_roster} WHERE club = %s AND user_id = %s", [club, user]),
            )

    def clubs_of(self, user: str) -> list[str]:
        """The ids of the clubs ``user`` is a member of."""
        found = self.query(
            "SELECT club FROM {club_members} WHERE user_id = %s ORDER BY club", [user]
        )
        return [row["club"] for row in found]

    def club_page(
        self, limit: int, after: ClubKey | None, member: str | None = None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` clubs (``member``: only those of that user) by name after the key
        ``after``, each its ``id``, ``name`` and page ``key``."""
        where, params = [], []
        if member is not None:
            where.append("id IN (SELECT club FROM {club_members} WHERE user_id = %s)")
            params.append(member)
        if after is not None:
            where.append("(name_key > %s OR (name_key = %s AND id > %s))")
            params += [after[0], after[0], after[1]]
        found = self.query(
            "SELECT id, name, name_key FROM {clubs}"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY name_key, id LIMIT %s",
            [*params, limit],
        )
        return [{"id": r["id"], "name": r["name"], "key": (r["name_key"], r["id"])} for r in found]

    def names_of(self, clubs: list[str]) -> dict[str, str]:
        """The names of the clubs ``clubs`` (ids), by id (one unknown: left out)."""
        if not clubs:
            return {}
        found = self.query(
            f"SELECT id, name FROM {{clubs}} WHERE id IN ({', '.join(['%s'] * len(clubs))})",
            list(clubs),
        )
        return {row["id"]: row["name"] for row in found}

    def member_page(self, club: str, limit: int, after: MemberKey | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s members in the order they joined after the key
        ``after``, each its ``user`` (id) and page ``key``."""
        where, params = "club = %s", [club]
        if after is not None:
            where += " AND (position > %s OR (position = %s AND user_id > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        found = self.query(
            f"SELECT user_id, position FROM {{club_roster}} WHERE {where} "
            "ORDER BY position, user_id LIMIT %s",
            [*params, limit],
        )
        return [{"user": r["user_id"], "key": (int(r["position"]), r["user_id"])} for r in found]


class ClubsProjection(Projection[ClubsView]):
    name = "clubs"
    topics = tuple(
        get_topic(cls)
        for cls in (
            Club.Founded,
            Club.MemberAdded,
            Club.MemberRemoved,
            Club.Invited,
            Club.InvitationAnswered,
            Club.InvitationWithdrawn,
            Club.JoinRequested,
            Club.JoinAnswered,
            Club.JoinWithdrawn,
        )
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Club.Founded, tracking: Tracking) -> None:
        self.view.add_club(str(event.originator_id), event.name, event.founder, tracking)

    @process_event.register
    def _(self, event: Club.MemberAdded, tracking: Tracking) -> None:
        self.view.set_member(str(event.originator_id), event.user, True, tracking)

    @process_event.register
    def _(self, event: Club.MemberRemoved, tracking: Tracking) -> None:
        self.view.set_member(str(event.originator_id), event.user, False, tracking)

    @process_event.register
    def _(self, event: Club.Invited, tracking: Tracking) -> None:
        self.view.set_pending(
            str(event.originator_id), event.user, "invitation", True, tracking, False
        )

    @process_event.register
    def _(self, event: Club.InvitationAnswered, tracking: Tracking) -> None:
        club = str(event.originator_id)
        self.view.set_pending(club, event.user, "invitation", False, tracking, event.accept)

    @process_event.register
    def _(self, event: Club.InvitationWithdrawn, tracking: Tracking) -> None:
        club = str(event.originator_id)
        self.view.set_pending(club, event.user, "invitation", False, tracking, False)

    @process_event.register
    def _(self, event: Club.JoinRequested, tracking: Tracking) -> None:
        self.view.set_pending(
            str(event.originator_id), event.user, "request", True, tracking, False
        )

    @process_event.register
    def _(self, event: Club.JoinAnswered, tracking: Tracking) -> None:
        club = str(event.originator_id)
        self.view.set_pending(club, event.user, "request", False, tracking, event.accept)

    @process_event.register
    def _(self, event: Club.JoinWithdrawn, tracking: Tracking) -> None:
        self.view.set_pending(
            str(event.originator_id), event.user, "request", False, tracking, False
        )
