"""The clubs' view: each club's name, and who is a member of which club since when, kept by
:class:`ClubsProjection` from the clubs' founding and membership events.  It answers "which clubs is
this user in" by key, and the clubs (by name) and a club's members (in the order they joined) a
keyset page at a time, without loading any club."""

from __future__ import annotations

from abc import abstractmethod
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.clubs import Club

#: a page's key of the clubs: (the name in lower case, the club's id)
ClubKey = tuple[str, str]
#: a page's key of a club's members: (the notification id of their joining, the user's id)
MemberKey = tuple[int, str]
#: a page's key of invitations or join requests: (the notification id of the invitation or
#: request, the other party's id: the user's in a club's list, the club's in a user's)
PendingKey = tuple[int, str]
#: what waits: an admin's invitation for the user, or the user's request for the admins
PENDING_KINDS = ("invitation", "request")


class ClubsView(View):
    @abstractmethod
    def add_club(self, club: str, name: str, founder: str, tracking: Tracking) -> None: ...

    @abstractmethod
    def set_member(self, club: str, user: str, member: bool, tracking: Tracking) -> None: ...

    @abstractmethod
    def set_pending(
        self, club: str, user: str, kind: str, pending: bool, tracking: Tracking, joined: bool
    ) -> None:
        """An invitation or a join request (``kind``) made (``pending``) or answered, withdrawn;
        ``joined``: answered by ``user`` becoming a member."""

    @abstractmethod
    def pending_count(self, user: str, kind: str) -> int:
        """How many invitations for ``user``, or join requests by them, wait."""

    @abstractmethod
    def pending_page(
        self, kind: str, limit: int, after: PendingKey | None, *, club: str = "", user: str = ""
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` waiting invitations or requests (``kind``) of ``club`` or of ``user``,
        oldest first after the key ``after``, each its ``club``, ``user`` and page ``key``."""

    @abstractmethod
    def clubs_of(self, user: str) -> list[str]:
        """The ids of the clubs ``user`` is a member of."""

    @abstractmethod
    def club_page(
        self, limit: int, after: ClubKey | None, member: str | None = None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` clubs (``member``: only those of that user) by name after the key
        ``after``, each its ``id``, ``name`` and page ``key``."""

    @abstractmethod
    def names_of(self, clubs: list[str]) -> dict[str, str]:
        """The names of the clubs ``clubs`` (ids), by id (one unknown: left out)."""

    @abstractmethod
    def member_page(self, club: str, limit: int, after: MemberKey | None) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``club``'s members in the order they joined after the key
        ``after``, each its ``user`` (id) and page ``key``."""


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
