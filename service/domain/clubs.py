"""Clubs: a name, members and their roles (admin, arbiter, player).  Admins manage members."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from service.domain.errors import Conflict, Forbidden, Invalid, LimitReached, NotFound
from service.domain.game import check_clock

CLUBS_NAMESPACE = UUID("0b6f4c1e-3d2a-4e8f-9c7b-5a1d2e3f4a5b")
ROLES = ("admin", "arbiter", "player")
TAKEBACKS = ("never", "casual", "always")
#: what a club's games follow unless the club says otherwise (service/application/lifecycle.py)
DEFAULT_POLICIES: dict[str, Any] = {
    "takeback": "always",
    "pause_on_dispute": True,
    "clock": None,
    #: the readings of the rules the club's new games start with, by system: ``{"merida":
    #: {"strategic_modifier": -2}}`` (set by an arbiter's verdict, :meth:`Club.adopt_reading`)
    "readings": {},
}
CLUB_NAME = re.compile(r"^[^\s].{1,58}[^\s]$")
#: invitations a club may have waiting for an answer, and join requests waiting for its admins;
#: one more is refused with 409 ``limit_reached`` until one is answered or withdrawn
PENDING_PER_CLUB = 100


def club_id(name: str) -> UUID:
    return uuid5(CLUBS_NAMESPACE, "club:" + " ".join(name.lower().split()))


def check_roles(roles: list[str]) -> None:
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise Invalid(
            f"unknown role {unknown[0]!r}", {"roles": [f"each one of {', '.join(ROLES)}"]}
        )


class Club(Aggregate):
    class Founded(Aggregate.Created):
        name: str
        founder: str

        def apply(self, aggregate: Any) -> None:
            aggregate.name = self.name
            aggregate.founder = self.founder
            aggregate.members = {self.founder: list(ROLES)}
            aggregate.policies = None
            aggregate.invitations = {}
            aggregate.requests = {}

    class MemberAdded(Aggregate.Event):
        user: str
        roles: list[str]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members[self.user] = list(self.roles)

    class MemberRemoved(Aggregate.Event):
        user: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members.pop(self.user, None)

    class RoleGranted(Aggregate.Event):
        user: str
        role: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members[self.user].append(self.role)

    class PoliciesChanged(Aggregate.Event):
        """The club's policies for its games: take backs, whether a dispute pauses, the clock."""

        policies: dict[str, Any]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.policies = dict(self.policies)

    class RoleRevoked(Aggregate.Event):
        user: str
        role: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members[self.user].remove(self.role)

    # -- invitations (an admin invites; the user accepts or declines) and join requests (a user
    # asks; an admin approves or refuses).  Either one waits until answered or withdrawn.
    class Invited(Aggregate.Event):
        user: str
        roles: list[str]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.pending_invitations()[self.user] = {"roles": list(self.roles), "by": self.by}

    class InvitationAnswered(Aggregate.Event):
        """The invited user accepted (a member with the invitation's roles) or declined."""

        user: str
        accept: bool

        def apply(self, aggregate: Any) -> None:
            invitation = aggregate.pending_invitations().pop(self.user)
            if self.accept:
                aggregate.members[self.user] = list(invitation["roles"])

    class InvitationWithdrawn(Aggregate.Event):
        user: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.pending_invitations().pop(self.user, None)

    class JoinRequested(Aggregate.Event):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.pending_requests()[self.user] = {}

    class JoinAnswered(Aggregate.Event):
        """An admin approved the request (a member, a player) or refused it."""

        user: str
        accept: bool
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.pending_requests().pop(self.user, None)
            if self.accept:
                aggregate.members[self.user] = ["player"]

    class JoinWithdrawn(Aggregate.Event):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.pending_requests().pop(self.user, None)

    name: str
    founder: str
    members: dict[str, list[str]]  # user id -> roles
    #: user id -> {"roles", "by"}: invited, not yet answered
    invitations: dict[str, dict[str, Any]]
    #: user id -> {}: asked to join, not yet answered
    requests: dict[str, dict[str, Any]]
    #: set by PoliciesChanged; a club that never set any has the defaults (:meth:`game_policies`)
    policies: dict[str, Any] | None

    def __init__(self) -> None:  # attributes are set by Founded.apply
        pass

    @classmethod
    def found(cls, name: str, founder: str) -> Club:
        name = " ".join((name or "").split())
        if not CLUB_NAME.match(name):
            raise Invalid("invalid club name", {"name": ["3 to 60 characters"]})
        return cls._create(cls.Founded, id=club_id(name), name=name, founder=founder)

    # -- queries ------------------------------------------------------------------------------------
    def has_role(self, user: str, role: str) -> bool:
        return role in self.members.get(user, ())

    def require_role(self, user: str, role: str) -> None:
        if not self.has_role(user, role):
            raise Forbidden(
                f"only a club {role} may do this",
                {"club": [f"you are not a {role} of {self.name}"]},
            )

    def _admins(self) -> list[str]:
        return [u for u, roles in self.members.items() if "admin" in roles]

    def _member(self, user: str) -> list[str]:
        if user not in self.members:
            raise NotFound("not a member of the club", {"user": ["not a member"]})
        return self.members[user]

    def pending_invitations(self) -> dict[str, dict[str, Any]]:
        """The invitations waiting for an answer (a club founded before invitations: none)."""
        if getattr(self, "invitations", None) is None:
            self.invitations = {}
        return self.invitations

    def pending_requests(self) -> dict[str, dict[str, Any]]:
        """The join requests waiting for an admin (a club founded before them: none)."""
        if getattr(self, "requests", None) is None:
            self.requests = {}
        return self.requests

    def game_policies(self) -> dict[str, Any]:
        return {**DEFAULT_POLICIES, **(self.policies or {})}

    # -- commands (every one by an admin) ----------------------------------------------------------
    def add_member(self, by: str, user: str, roles: list[str]) -> None:
        self.require_role(by, "admin")
        roles = list(dict.fromkeys(roles or ["player"]))
        check_roles(roles)
        if user in self.members:
            raise Conflict("already a member", {"user": ["already a member of the club"]})
        self.trigger_event(self.MemberAdded, user=user, roles=roles, by=by)
        if user in self.pending_invitations():  # added directly: nothing is left waiting
            self.trigger_event(self.InvitationWithdrawn, user=user, by=by)
        if user in self.pending_requests():
            self.trigger_event(self.JoinWithdrawn, user=user)

    def remove_member(self, by: str, user: str) -> None:
        if by != user:  # anyone may leave; only an admin removes someone else
            self.require_role(by, "admin")
        roles = self._member(user)
        if "admin" in roles and self._admins() == [user]:
            raise Conflict("the last admin cannot leave", {"user": ["the club's last admin"]})
        self.trigger_event(self.MemberRemoved, user=user, by=by)

    def grant(self, by: str, user: str, role: str) -> None:
        self.require_role(by, "admin")
        check_roles([role])
        if role in self._member(user):
            raise Conflict(f"already {role}", {"role": [f"the member already is {role}"]})
        self.trigger_event(self.RoleGranted, user=user, role=role, by=by)

    def set_policies(self, by: str, changes: dict[str, Any]) -> None:
        """Change the club's game policies (admins): ``takeback`` never/casual/always,
        ``pause_on_dispute`` true/false, ``clock`` a correspondence clock or None."""
        self.require_role(by, "admin")
        merged = self.game_policies()
        problems: dict[str, list[str]] = {}
        for key, value in changes.items():
            if key not in DEFAULT_POLICIES:
                problems[f"policies.{key}"] = [f"unknown; known: {', '.join(DEFAULT_POLICIES)}"]
            elif key == "takeback" and value not in TAKEBACKS:
                problems["policies.takeback"] = [f"one of {', '.join(TAKEBACKS)}"]
            elif key == "pause_on_dispute" and not isinstance(value, bool):
                problems["policies.pause_on_dispute"] = ["true or false"]
            elif key == "readings" and not _readings_shape(value):
                problems["policies.readings"] = ["{system: {option: value}}"]
            elif key == "clock" and value is not None:
                try:
                    merged[key] = check_clock(value, "policies.clock")
                except Invalid as exc:
                    problems.update(exc.details)
                continue
            merged[key] = value
        if problems:
            raise Invalid("invalid club policies", problems)
        self.trigger_event(self.PoliciesChanged, policies=merged, by=by)

    def adopt_reading(self, by: str, system: str, reading: dict[str, Any]) -> None:
        """A reading of ``system``'s rules becomes the default of the club's new games (an
        arbiter's verdict that adopts it, made a club ruling; an admin may too).  The options are
        checked against the game by the application."""
        if not (self.has_role(by, "arbiter") or self.has_role(by, "admin")):
            raise Forbidden(
                "only a club arbiter or admin sets the club's readings",
                {"club_ruling.default_reading": [f"you are not an arbiter of {self.name}"]},
            )
        merged = self.game_policies()
        readings = {k: dict(v) for k, v in (merged.get("readings") or {}).items()}
        readings[system] = {**readings.get(system, {}), **reading}
        merged["readings"] = readings
        self.trigger_event(self.PoliciesChanged, policies=merged, by=by)

    def revoke(self, by: str, user: str, role: str) -> None:
        self.require_role(by, "admin")
        check_roles([role])
        if role not in self._member(user):
            raise Conflict(f"not {role}", {"role": [f"the member is not {role}"]})
        if role == "admin" and self._admins() == [user]:
            raise Conflict("the club needs an admin", {"role": ["the club's last admin"]})
        self.trigger_event(self.RoleRevoked, user=user, role=role, by=by)

    # -- invitations and join requests ------------------------------------------------------------
    def invite(self, by: str, user: str, roles: list[str]) -> None:
        """Invite ``user`` with ``roles`` (admins).  A user who asked to join is invited too: their
        request stays until they accept the invitation (which answers both) or it is answered."""
        self.require_role(by, "admin")
        roles = list(dict.fromkeys(roles or ["player"]))
        check_roles(roles)
        if user in self.members:
            raise Conflict("already a member", {"username": ["already a member of the club"]})
        if user in self.pending_invitations():
            raise Conflict("already invited", {"username": ["already invited: waiting for them"]})
        if len(self.pending_invitations()) >= PENDING_PER_CLUB:
            raise LimitReached(
                f"the club has {PENDING_PER_CLUB} invitations waiting",
                {"username": [f"at most {PENDING_PER_CLUB} invitations wait at once"]},
            )
        self.trigger_event(self.Invited, user=user, roles=roles, by=by)

    def answer_invitation(self, user: str, accept: bool) -> None:
        if user not in self.pending_invitations():
            raise NotFound("no invitation", {"invitation": ["you are not invited to this club"]})
        self.trigger_event(self.InvitationAnswered, user=user, accept=accept)
        if accept and user in self.pending_requests():
            self.trigger_event(self.JoinWithdrawn, user=user)

    def withdraw_invitation(self, by: str, user: str) -> None:
        self.require_role(by, "admin")
        if user not in self.pending_invitations():
            raise NotFound("no invitation", {"username": ["not invited"]})
        self.trigger_event(self.InvitationWithdrawn, user=user, by=by)

    def request_to_join(self, user: str) -> None:
        if user in self.members:
            raise Conflict("already a member", {"club": ["you are already a member"]})
        if user in self.pending_requests():
            raise Conflict("already asked", {"club": ["your request is waiting for an admin"]})
        if user in self.pending_invitations():
            raise Conflict(
                "already invited", {"club": ["you are invited: accept the invitation instead"]}
            )
        if len(self.pending_requests()) >= PENDING_PER_CLUB:
            raise LimitReached(
                f"the club has {PENDING_PER_CLUB} join requests waiting",
                {"club": [f"at most {PENDING_PER_CLUB} requests wait at once; try again later"]},
            )
        self.trigger_event(self.JoinRequested, user=user)

    def answer_request(self, by: str, user: str, accept: bool) -> None:
        self.require_role(by, "admin")
        if user not in self.pending_requests():
            raise NotFound("no join request", {"username": ["has not asked to join"]})
        self.trigger_event(self.JoinAnswered, user=user, accept=accept, by=by)
        if accept and user in self.pending_invitations():
            self.trigger_event(self.InvitationWithdrawn, user=user, by=by)

    def withdraw_request(self, user: str) -> None:
        if user not in self.pending_requests():
            raise NotFound("no join request", {"club": ["you have not asked to join"]})
        self.trigger_event(self.JoinWithdrawn, user=user)


def _readings_shape(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, dict) and all(isinstance(o, str) for o in v)
        for k, v in value.items()
    )
