"""Clubs: found, list, members and roles.  ``has_role`` answers other features (e.g. disputes ask
whether a user is an arbiter of the club a game belongs to)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from service.application.quotas import QuotaService
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.domain.clubs import ROLES, Club, club_id
from service.domain.errors import Conflict, LimitReached, NotFound
from service.domain.users import User
from service.views.base import PAGE_MAX, cut_page, every_page, page_limit
from service.views.clubs import ClubKey, ClubsView, MemberKey, PendingKey
from service.views.runner import ProjectionRunner

#: the members a club's resource names inline, the first in the order they joined (the others:
#: :meth:`ClubService.members_page`); ``member_count`` says how many there are
MEMBERS_SHOWN = 50
#: invitations one user may have waiting for their answer, from every club together; and join
#: requests one user may have waiting for clubs' admins.  One more is refused with 409
#: ``limit_reached`` until one is answered or withdrawn (a club's own limit:
#: ``service.domain.clubs.PENDING_PER_CLUB``)
INVITATIONS_PER_USER = 20
REQUESTS_PER_USER = 10


class ClubService:
    """``runner``: the persisted clubs view's (``projections.clubs``): the clubs' names and who
    is a member of which, read by key (None: a service that only changes clubs)."""

    def __init__(
        self,
        store: ArbiterStore,
        users: UserService,
        runner: ProjectionRunner | None = None,
        quotas: QuotaService | None = None,
    ) -> None:
        self.store = store
        self.users = users
        self.runner = runner
        self.quotas = quotas or QuotaService(store)

    @property
    def _view(self) -> ClubsView:
        view = self.runner.view if self.runner is not None else None
        assert isinstance(view, ClubsView), "this club service was made without the clubs view"
        return view

    # -- commands -------------------------------------------------------------------------------
    def create(self, name: str, founder: User) -> Club:
        club = Club.found(name, str(founder.id))
        holdings = self.quotas.found_club(str(founder.id), str(club.id))
        self.store.commit(
            club,
            *holdings,
            conflict=Conflict(f"club {club.name!r} already exists", {"name": ["taken"]}),
        )
        return club

    def admit(self, ref: str, by: User, username: str, roles: list[str]) -> Club:
        """An admin's "add a member" (the API's and the web's): nobody is put into a club without
        consent, so a user who asked to join becomes a member at once and anyone else is invited
        (:meth:`invite`), a member only once they accept.  The operator's ``arbiter clubs
        add-member`` adds at once (:meth:`add_member`)."""
        club = self._fresh(ref)
        if str(self.users.by_name(username).id) in club.pending_requests():
            return self.add_member(ref, by, username, roles)
        return self.invite(ref, by, username, roles)

    def add_member(self, ref: str, by: User, username: str, roles: list[str]) -> Club:
        """Add ``username`` at once, without asking them (the operator's CLI; and an admin's
        :meth:`admit` of a user who asked to join)."""
        club = self._fresh(ref)
        club.add_member(str(by.id), str(self.users.by_name(username).id), roles)
        return self._save(club)

    def remove_member(self, ref: str, by: User, username: str) -> Club:
        club = self._fresh(ref)
        club.remove_member(str(by.id), str(self.users.by_name(username).id))
        return self._save(club)

    def grant(self, ref: str, by: User, username: str, role: str) -> Club:
        club = self._fresh(ref)
        club.grant(str(by.id), str(self.users.by_name(username).id), role)
        return self._save(club)

    def adopted_reading(self, ref: str, by: str, system: str, reading: dict[str, Any]) -> Club:
        """The club with ``reading`` as its new games' default for ``system`` (not saved: the
        verdict that adopts it commits it with the game)."""
        club = self._fresh(ref)
        club.adopt_reading(by, system, reading)
        return club

    def invite(self, ref: str, by: User, username: str, roles: list[str]) -> Club:
        """Invite ``username`` with ``roles`` (admins); they are told, and accept or decline."""
        club = self._fresh(ref)
        invited = str(self.users.by_name(username).id)
        club.require_role(str(by.id), "admin")
        if (
            invited not in club.pending_invitations()
            and invited not in club.members
            and self._view.pending_count(invited, "invitation") >= INVITATIONS_PER_USER
        ):
            raise LimitReached(
                f"{username} has {INVITATIONS_PER_USER} invitations waiting",
                {"username": [f"has {INVITATIONS_PER_USER} club invitations waiting already"]},
            )
        club.invite(str(by.id), invited, roles)
        return self._save(club)

    def answer_invitation(self, ref: str, user: User, accept: bool) -> Club:
        club = self._fresh(ref)
        club.answer_invitation(str(user.id), accept)
        return self._save(club)

    def withdraw_invitation(self, ref: str, by: User, username: str) -> Club:
        club = self._fresh(ref)
        club.withdraw_invitation(str(by.id), str(self.users.by_name(username).id))
        return self._save(club)

    def request_to_join(self, ref: str, user: User) -> Club:
        """Ask to join (any signed-in user); the club's admins are told, and approve or refuse."""
        club = self._fresh(ref)
        uid = str(user.id)
        if (
            uid not in club.members
            and uid not in club.pending_requests()
            and self._view.pending_count(uid, "request") >= REQUESTS_PER_USER
        ):
            raise LimitReached(
                f"you have {REQUESTS_PER_USER} join requests waiting",
                {"club": [f"at most {REQUESTS_PER_USER} join requests wait at once"]},
            )
        club.request_to_join(uid)
        return self._save(club)

    def answer_request(self, ref: str, by: User, username: str, accept: bool) -> Club:
        club = self._fresh(ref)
        club.answer_request(str(by.id), str(self.users.by_name(username).id), accept)
        return self._save(club)

    def withdraw_request(self, ref: str, user: User) -> Club:
        club = self._fresh(ref)
        club.withdraw_request(str(user.id))
        return self._save(club)

    def set_policies(self, ref: str, by: User, changes: dict[str, Any]) -> Club:
        club = self._fresh(ref)
        club.set_policies(str(by.id), changes)
        return self._save(club)

    def revoke(self, ref: str, by: User, username: str, role: str) -> Club:
        club = self._fresh(ref)
        club.revoke(str(by.id), str(self.users.by_name(username).id), role)
        return self._save(club)

    # -- queries --------------------------------------------------------------------------------
    def get(self, ref: str | UUID) -> Club:
        """A club by id or by name (to read, not to change)."""
        return self._load(ref, copy=False)

    def has_role(self, club: str | UUID, user: str | UUID, role: str) -> bool:
        """Whether ``user`` (an id) holds ``role`` (admin, arbiter or player) in ``club``."""
        try:
            return self.get(club).has_role(str(user), role)
        except NotFound:
            return False

    def require_role(self, club: str | UUID, user: User, role: str) -> Club:
        found = self.get(club)
        found.require_role(str(user.id), role)
        return found

    def view(self, club: Club, viewer: User | None = None) -> dict[str, Any]:
        """The club, its first ``MEMBERS_SHOWN`` members (in the order they joined) and how many
        it has, and the roles ``viewer`` holds in it (none: ``[]``)."""
        members, _ = self.members_page(club, limit=MEMBERS_SHOWN)
        uid = str(viewer.id) if viewer else ""
        invitation = club.pending_invitations().get(uid)
        admin = club.has_role(uid, "admin")
        return {
            "id": str(club.id),
            "name": club.name,
            "founder": self.users.username(club.founder),
            "members": members,
            "member_count": len(club.members),
            "viewer_roles": sorted(club.members.get(str(viewer.id), [])) if viewer else [],
            "roles": list(ROLES),
            "policies": club.game_policies(),
            # how the viewer joins: invited (with these roles), asked already, or neither
            "viewer_invitation": (
                {"roles": list(invitation["roles"]), "by": self.users.username(invitation["by"])}
                if invitation
                else None
            ),
            "viewer_requested": uid in club.pending_requests(),
            # for its admins: how many invitations and join requests wait (others: None)
            "invitations_waiting": len(club.pending_invitations()) if admin else None,
            "requests_waiting": len(club.pending_requests()) if admin else None,
        }

    def pending_page(
        self,
        club: Club,
        viewer: User,
        kind: str,
        *,
        limit: int = 50,
        after: PendingKey | None = None,
    ) -> tuple[list[dict[str, Any]], PendingKey | None]:
        """A page of ``club``'s invitations waiting for an answer (``kind`` ``invitation``) or
        join requests waiting for an admin (``request``), oldest first; admins only."""
        club.require_role(str(viewer.id), "admin")
        limit = page_limit(limit)
        rows, key = cut_page(
            self._view.pending_page(kind, limit + 1, after, club=str(club.id)),
            limit,
            lambda r: r["key"],
        )
        waiting = club.pending_invitations() if kind == "invitation" else club.pending_requests()
        out = []
        for row in rows:
            if row["user"] not in waiting:  # a view behind the club
                continue
            item: dict[str, Any] = {"username": self.users.username(row["user"])}
            if kind == "invitation":
                item["roles"] = list(waiting[row["user"]]["roles"])
                item["by"] = self.users.username(waiting[row["user"]]["by"])
            out.append(item)
        return out, key

    def mine_page(
        self, user: User, kind: str, *, limit: int = 50, after: PendingKey | None = None
    ) -> tuple[list[dict[str, Any]], PendingKey | None]:
        """A page of the club invitations waiting for ``user``'s answer (``invitation``) or of
        their join requests waiting for clubs' admins (``request``), oldest first."""
        limit = page_limit(limit)
        uid = str(user.id)
        rows, key = cut_page(
            self._view.pending_page(kind, limit + 1, after, user=uid), limit, lambda r: r["key"]
        )
        out = []
        for row in rows:
            try:
                club = self.get(row["club"])
            except NotFound:
                continue
            waiting = (
                club.pending_invitations() if kind == "invitation" else club.pending_requests()
            )
            if uid not in waiting:
                continue
            item: dict[str, Any] = {"club": str(club.id), "club_name": club.name}
            if kind == "invitation":
                item["roles"] = list(waiting[uid]["roles"])
                item["by"] = self.users.username(waiting[uid]["by"])
            out.append(item)
        return out, key

    def members_page(
        self,
        club: Club,
        *,
        limit: int = 50,
        after: MemberKey | None = None,
        role: str | None = None,
    ) -> tuple[list[dict[str, Any]], MemberKey | None]:
        """A page of ``club``'s members in the order they joined (the founder first), after the
        key ``after``, each with their roles (``role``: only those who hold it); and the key to
        the next page (None: the last).  Read from the view by ``(club, position)``; the roles
        are the loaded club's."""
        limit = page_limit(limit)
        if role is not None:
            return self._members_with(club, role, limit, after)
        rows, key = cut_page(
            self._view.member_page(str(club.id), limit + 1, after), limit, lambda r: r["key"]
        )
        members = [
            {
                "user": row["user"],
                "username": self.users.username(row["user"]),
                "roles": sorted(club.members[row["user"]]),
            }
            for row in rows
            if row["user"] in club.members  # a view behind the club (another process's write)
        ]
        return members, key

    def _members_with(
        self, club: Club, role: str, limit: int, after: MemberKey | None
    ) -> tuple[list[dict[str, Any]], MemberKey | None]:
        """A page of the members holding ``role``: the view's pages read on until ``limit`` of
        them are found or the members end."""
        chosen: list[dict[str, Any]] = []
        while True:
            rows = self._view.member_page(str(club.id), PAGE_MAX + 1, after)
            for row in rows[:PAGE_MAX]:
                if role in club.members.get(row["user"], ()):
                    chosen.append(row)
                    if len(chosen) > limit:
                        break
            if len(chosen) > limit or len(rows) <= PAGE_MAX:
                break
            after = rows[PAGE_MAX - 1]["key"]
        key = chosen[limit - 1]["key"] if len(chosen) > limit else None
        members = [
            {
                "user": row["user"],
                "username": self.users.username(row["user"]),
                "roles": sorted(club.members[row["user"]]),
            }
            for row in chosen[:limit]
        ]
        return members, key

    def page(
        self, *, limit: int = 50, after: ClubKey | None = None, member: User | None = None
    ) -> tuple[list[dict[str, str]], ClubKey | None]:
        """A page of the clubs (``member``: those ``member`` is in) by name, after the key
        ``after``; and the key to the next page (None: this was the last)."""
        limit = page_limit(limit)
        uid = str(member.id) if member is not None else None
        rows, key = cut_page(self._view.club_page(limit + 1, after, uid), limit, lambda r: r["key"])
        return [{"id": row["id"], "name": row["name"]} for row in rows], key

    def list(self) -> list[dict[str, str]]:
        """Every club's id and name, by name (the operator's list: read a page at a time)."""
        return every_page(lambda after: self.page(limit=PAGE_MAX, after=after))

    def names_of(self, clubs: Iterable[str]) -> dict[str, str]:
        """The names of ``clubs`` (ids), read by key in one query."""
        return self._view.names_of(sorted(set(clubs)))

    def clubs_of(self, user_id: str) -> tuple[str, ...]:
        """The ids of the clubs ``user_id`` is a member of (by the view's index)."""
        return tuple(self._view.clubs_of(user_id))

    # -- helpers --------------------------------------------------------------------------------
    def _load(self, ref: str | UUID, *, copy: bool) -> Club:
        try:
            cid = ref if isinstance(ref, UUID) else UUID(str(ref))
        except ValueError:
            cid = club_id(str(ref))
        try:
            club: Any = self.store.repository.get(cid, deepcopy_from_cache=copy)
        except AggregateNotFoundError:
            raise NotFound(f"no club {ref}", {"club": ["unknown club"]}) from None
        if not isinstance(club, Club):
            raise NotFound(f"no club {ref}", {"club": ["unknown club"]})
        return club

    def _fresh(self, ref: str) -> Club:
        return self._load(ref, copy=True)

    def _save(self, club: Club) -> Club:
        self.store.commit(club, conflict=Conflict("the club changed meanwhile; try again"))
        return club
