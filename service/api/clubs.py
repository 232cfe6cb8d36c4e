"""Clubs, their members and roles."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import optional_user, require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import PageFields, Strict, page_cursor
from service.domain.clubs import ROLES
from service.domain.errors import Forbidden

blp = Blueprint("clubs", __name__, url_prefix="/api/clubs", description="Clubs, members, roles")


class ClubCreate(Strict):
    name = fields.String(required=True, validate=validate.Length(min=3, max=60))


class MemberIn(Strict):
    username = fields.String(required=True, validate=validate.Length(min=1, max=32))
    roles = fields.List(
        fields.String(validate=validate.OneOf(ROLES)),
        load_default=lambda: ["player"],
        validate=validate.Length(min=1, max=3),
    )


class MemberOut(Schema):
    user = fields.String()
    username = fields.String()
    roles = fields.List(fields.String())


class ClubOut(Schema):
    id = fields.String()
    name = fields.String()
    founder = fields.String()
    members = fields.List(
        fields.Nested(MemberOut),
        metadata={
            "description": "the first 50 members in the order they joined (all of them, a page "
            "at a time: GET /api/clubs/<club>/members)"
        },
    )
    member_count = fields.Integer(metadata={"description": "how many members the club has"})
    viewer_roles = fields.List(
        fields.String(), metadata={"description": "the caller's roles in the club ([]: none)"}
    )
    roles = fields.List(fields.String())
    policies = fields.Dict(
        metadata={
            "description": "its games' takeback, pause_on_dispute and clock, and the readings "
            "its new games start with by system (set by an arbiter's verdict)"
        }
    )
    viewer_invitation = fields.Dict(
        allow_none=True,
        metadata={"description": "the caller's invitation waiting for an answer: roles, by"},
    )
    viewer_requested = fields.Boolean(
        metadata={"description": "whether the caller's join request waits for an admin"}
    )
    invitations_waiting = fields.Integer(
        allow_none=True, metadata={"description": "invitations waiting (admins; else null)"}
    )
    requests_waiting = fields.Integer(
        allow_none=True, metadata={"description": "join requests waiting (admins; else null)"}
    )


class PoliciesIn(Strict):
    takeback = fields.String(validate=validate.OneOf(["never", "casual", "always"]))
    pause_on_dispute = fields.Boolean()
    clock = fields.Dict(allow_none=True)


class ClubSummary(Schema):
    id = fields.String()
    name = fields.String()


class ClubsArgs(PageFields, Strict):
    after = page_cursor(str, UUID)
    mine = fields.Boolean(
        load_default=False, metadata={"description": "only the clubs the caller is a member of"}
    )


class MembersArgs(PageFields, Strict):
    role = fields.String(
        load_default=None,
        validate=validate.OneOf(ROLES),
        metadata={"description": "only the members holding this role (e.g. the arbiters)"},
    )


@blp.route("")
class Clubs(MethodView):
    @blp.arguments(ClubsArgs, location="query")
    @blp.response(200, ClubSummary(many=True))
    def get(self, args: dict[str, Any]) -> tuple[list[dict[str, str]], int, dict[str, str]]:
        """The clubs by name (``mine=true``: the caller's), a page of ``limit`` (default 50, at
        most 100).  When there are more, the response's ``X-Next-Cursor`` header (and its
        ``Link: <...>; rel="next"``) names the next page: pass it back as ``after``."""
        member = require_user() if args["mine"] else None
        rows, key = services().clubs.page(limit=args["limit"], after=args["after"], member=member)
        return rows, 200, next_page("/api/clubs", args, key) if key is not None else {}

    @blp.arguments(ClubCreate)
    @blp.response(201, ClubOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Found a club: the founder is its first admin, arbiter and player."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.create(body["name"], user), user)


@blp.route("/<club>")
class ClubResource(MethodView):
    @blp.response(200, ClubOut)
    def get(self, club: str) -> dict[str, Any]:
        """A club (by id or name), its first 50 members and how many it has, and the caller's
        roles in it."""
        clubs = services().clubs
        return clubs.view(clubs.get(club), optional_user())


@blp.route("/<club>/policies")
class Policies(MethodView):
    @blp.arguments(PoliciesIn)
    @blp.response(200, ClubOut)
    def patch(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Change the policies the club's games follow (admins only): take backs, whether a dispute
        pauses the game, the default correspondence clock."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.set_policies(club, user, body), user)


@blp.route("/<club>/members")
class Members(MethodView):
    @blp.arguments(MembersArgs, location="query")
    @blp.response(200, MemberOut(many=True))
    def get(
        self, args: dict[str, Any], club: str
    ) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
        """The club's members with their roles (``role``: only those who hold it), in the order
        they joined (the founder first), a page of ``limit`` (default 50, at most 100); ``X-Next-Cursor`` (and ``Link``) names the
        next page, passed back as ``after``."""
        clubs = services().clubs
        found = clubs.get(club)
        rows, key = clubs.members_page(
            found, limit=args["limit"], after=args["after"], role=args["role"]
        )
        path = f"/api/clubs/{found.id}/members"
        return rows, 200, next_page(path, args, key) if key is not None else {}

    @blp.arguments(MemberIn)
    @blp.response(201, ClubOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Add a member with roles (admins only).  Nobody is put into a club without consent: a
        user who asked to join is a member at once, anyone else is invited (as ``POST
        …/invitations``) and is a member only once they accept (``POST …/invitation``); until
        then they are not listed and read nothing of the club's."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.admit(club, user, body["username"], body["roles"]), user)


@blp.route("/<club>/members/<username>")
class Member(MethodView):
    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str) -> dict[str, Any]:
        """Remove a member (admins), or leave the club yourself."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.remove_member(club, user, username), user)


@blp.route(
    "/<club>/members/<username>/roles/<role>",
    # the document says which roles there are, as the server enforces (400 for another)
    parameters=[{"in": "path", "name": "role", "schema": {"type": "string", "enum": list(ROLES)}}],
)
class Role(MethodView):
    @blp.response(200, ClubOut)
    def put(self, club: str, username: str, role: str) -> dict[str, Any]:
        """Grant a role (admin, arbiter or player; admins only)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.grant(club, user, username, role), user)

    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str, role: str) -> dict[str, Any]:
        """Revoke a role (admins only; a club keeps at least one admin)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.revoke(club, user, username, role), user)


# -- invitations and join requests ------------------------------------------------------------------
class InvitationIn(Strict):
    username = fields.String(required=True, validate=validate.Length(min=1, max=32))
    roles = fields.List(
        fields.String(validate=validate.OneOf(ROLES)),
        load_default=lambda: ["player"],
        validate=validate.Length(min=1, max=3),
        metadata={"description": "the roles the member will hold (default: player)"},
    )


class AnswerIn(Strict):
    accept = fields.Boolean(required=True, metadata={"description": "true: yes; false: no"})


class PendingOut(Schema):
    username = fields.String()
    roles = fields.List(fields.String(), metadata={"description": "an invitation's roles"})
    by = fields.String(metadata={"description": "the admin who invited"})


class MinePendingOut(Schema):
    club = fields.String()
    club_name = fields.String()
    roles = fields.List(fields.String(), metadata={"description": "an invitation's roles"})
    by = fields.String(metadata={"description": "the admin who invited"})


class PendingArgs(PageFields, Strict):
    after = page_cursor(int, str)


def _pending(club: str, kind: str, args: dict[str, Any], name: str) -> Any:
    clubs = services().clubs
    found = clubs.get(club)
    rows, key = clubs.pending_page(
        found, require_user(), kind, limit=args["limit"], after=args["after"]
    )
    path = f"/api/clubs/{found.id}/{name}"
    return rows, 200, next_page(path, args, key) if key is not None else {}


@blp.route("/<club>/invitations")
class Invitations(MethodView):
    @blp.arguments(PendingArgs, location="query")
    @blp.response(200, PendingOut(many=True))
    def get(self, args: dict[str, Any], club: str) -> Any:
        """The invitations waiting for an answer, oldest first (admins only), a page of
        ``limit``; ``X-Next-Cursor`` (and ``Link``) names the next page."""
        return _pending(club, "invitation", args, "invitations")

    @blp.arguments(InvitationIn)
    @blp.response(201, ClubOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Invite a user with roles (admins only): they are notified and accept or decline.  A
        club has at most 100 invitations waiting, a user at most 20 (409 ``limit_reached``)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.invite(club, user, body["username"], body["roles"]), user)


@blp.route("/<club>/invitations/<username>")
class Invitation(MethodView):
    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str) -> dict[str, Any]:
        """Withdraw an invitation (admins only)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.withdraw_invitation(club, user, username), user)


@blp.route("/<club>/invitation")
class MyInvitation(MethodView):
    @blp.arguments(AnswerIn)
    @blp.response(200, ClubOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Accept (a member, with the invitation's roles) or decline the caller's invitation."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.answer_invitation(club, user, body["accept"]), user)


@blp.route("/<club>/requests")
class JoinRequests(MethodView):
    @blp.arguments(PendingArgs, location="query")
    @blp.response(200, PendingOut(many=True))
    def get(self, args: dict[str, Any], club: str) -> Any:
        """The join requests waiting for an admin, oldest first (admins only), a page of
        ``limit``; ``X-Next-Cursor`` (and ``Link``) names the next page."""
        return _pending(club, "request", args, "requests")

    @blp.response(201, ClubOut)
    def post(self, club: str) -> dict[str, Any]:
        """Ask to join the club: its admins are notified and approve or refuse.  A club has at most
        100 requests waiting, a user at most 10 (409 ``limit_reached``)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.request_to_join(club, user), user)


@blp.route("/<club>/requests/<username>")
class JoinRequest(MethodView):
    @blp.arguments(AnswerIn)
    @blp.response(200, ClubOut)
    def post(self, body: dict[str, Any], club: str, username: str) -> dict[str, Any]:
        """Approve (a member, a player) or refuse a join request (admins only)."""
        clubs = services().clubs
        user = require_user()
        return clubs.view(clubs.answer_request(club, user, username, body["accept"]), user)

    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str) -> dict[str, Any]:
        """Withdraw your own join request."""
        clubs = services().clubs
        user = require_user()
        if username.lower() != user.username.lower():
            raise Forbidden("only the one who asked withdraws a request", {"username": ["not you"]})
        return clubs.view(clubs.withdraw_request(club, user), user)


me_blp = Blueprint(
    "my_clubs", __name__, url_prefix="/api/me", description="The caller's club invitations"
)


def _mine(kind: str, args: dict[str, Any], name: str) -> Any:
    rows, key = services().clubs.mine_page(
        require_user(), kind, limit=args["limit"], after=args["after"]
    )
    return rows, 200, next_page(f"/api/me/{name}", args, key) if key is not None else {}


@me_blp.route("/club-invitations")
class MyClubInvitations(MethodView):
    @me_blp.arguments(PendingArgs, location="query")
    @me_blp.response(200, MinePendingOut(many=True))
    def get(self, args: dict[str, Any]) -> Any:
        """The club invitations waiting for the caller's answer, oldest first, a page of
        ``limit``; ``X-Next-Cursor`` (and ``Link``) names the next page."""
        return _mine("invitation", args, "club-invitations")


@me_blp.route("/club-requests")
class MyJoinRequests(MethodView):
    @me_blp.arguments(PendingArgs, location="query")
    @me_blp.response(200, MinePendingOut(many=True))
    def get(self, args: dict[str, Any]) -> Any:
        """The caller's join requests waiting for clubs' admins, oldest first, a page."""
        return _mine("request", args, "club-requests")
