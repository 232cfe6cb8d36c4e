"""Clubs, their members and roles."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.schemas import Strict
from service.domain.clubs import ROLES

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
    members = fields.List(fields.Nested(MemberOut))
    roles = fields.List(fields.String())
    policies = fields.Dict(
        metadata={"description": "its games' takeback, pause_on_dispute and clock"}
    )


class PoliciesIn(Strict):
    takeback = fields.String(validate=validate.OneOf(["never", "casual", "always"]))
    pause_on_dispute = fields.Boolean()
    clock = fields.Dict(allow_none=True)


class ClubSummary(Schema):
    id = fields.String()
    name = fields.String()


@blp.route("")
class Clubs(MethodView):
    @blp.response(200, ClubSummary(many=True))
    def get(self) -> list[dict[str, str]]:
        """Every club, by name."""
        return services().clubs.list()

    @blp.arguments(ClubCreate)
    @blp.response(201, ClubOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Found a club: the founder is its first admin, arbiter and player."""
        clubs = services().clubs
        return clubs.view(clubs.create(body["name"], require_user()))


@blp.route("/<club>")
class ClubResource(MethodView):
    @blp.response(200, ClubOut)
    def get(self, club: str) -> dict[str, Any]:
        """A club (by id or name) and its members."""
        clubs = services().clubs
        return clubs.view(clubs.get(club))


@blp.route("/<club>/policies")
class Policies(MethodView):
    @blp.arguments(PoliciesIn)
    @blp.response(200, ClubOut)
    def patch(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Change the policies the club's games follow (admins only): take backs, whether a dispute
        pauses the game, the default correspondence clock."""
        clubs = services().clubs
        return clubs.view(clubs.set_policies(club, require_user(), body))


@blp.route("/<club>/members")
class Members(MethodView):
    @blp.arguments(MemberIn)
    @blp.response(201, ClubOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Add a member with roles (admins only)."""
        clubs = services().clubs
        return clubs.view(clubs.add_member(club, require_user(), body["username"], body["roles"]))


@blp.route("/<club>/members/<username>")
class Member(MethodView):
    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str) -> dict[str, Any]:
        """Remove a member (admins), or leave the club yourself."""
        clubs = services().clubs
        return clubs.view(clubs.remove_member(club, require_user(), username))


@blp.route("/<club>/members/<username>/roles/<role>")
class Role(MethodView):
    @blp.response(200, ClubOut)
    def put(self, club: str, username: str, role: str) -> dict[str, Any]:
        """Grant a role (admin, arbiter or player; admins only)."""
        clubs = services().clubs
        return clubs.view(clubs.grant(club, require_user(), username, role))

    @blp.response(200, ClubOut)
    def delete(self, club: str, username: str, role: str) -> dict[str, Any]:
        """Revoke a role (admins only; a club keeps at least one admin)."""
        clubs = services().clubs
        return clubs.view(clubs.revoke(club, require_user(), username, role))
