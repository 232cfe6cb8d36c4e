"""Users, API tokens (issued, listed, revoked) and web sessions."""

from __future__ import annotations

from typing import Any

from flask import request, session
from flask.views import MethodView
from marshmallow import Schema, fields

from service.api import schemas
from service.api.auth import current_token, require_user, services, start_session
from service.api.blueprint import Blueprint

blp = Blueprint("users", __name__, url_prefix="/api", description="Users, tokens and sessions")


class IssuedTokenOut(Schema):
    token = fields.String(
        metadata={"description": "send as 'Authorization: Bearer <token>'; shown only now"}
    )
    id = fields.String(metadata={"description": "the token's id: to list it and revoke it"})
    expires = fields.DateTime(metadata={"description": "after this the token answers 401"})
    user = fields.Nested(schemas.UserOut)


class TokenInfo(Schema):
    id = fields.String()
    label = fields.String(metadata={"description": "'web' for a web session, else the label asked"})
    created = fields.DateTime()
    last_used = fields.DateTime(
        allow_none=True,
        metadata={
            "description": "when it last made a change (POST, PUT, PATCH or DELETE), to the hour;"
            " null if it never has (reading records nothing: GETs never write)"
        },
    )
    expires = fields.DateTime()
    current = fields.Boolean(metadata={"description": "the token of this request"})


class TokenList(Schema):
    tokens = fields.List(fields.Nested(TokenInfo))


def user_json(user: Any) -> dict[str, str]:
    return {"id": str(user.id), "username": user.username}


@blp.route("/users")
class Users(MethodView):
    @blp.arguments(schemas.UserCreate)
    @blp.response(201, schemas.UserOut)
    def post(self, body: dict[str, Any]) -> dict[str, str]:
        """Register a user.  From one client address at most ``ARBITER_SIGNUPS_PER_HOUR`` (10)
        an hour: past it 429 ``too_many_attempts`` naming ``address``, with ``Retry-After``."""
        return user_json(
            services().users.register(
                body["username"], body["password"], body.get("email"), request.remote_addr or ""
            )
        )


@blp.route("/tokens")
class Tokens(MethodView):
    @blp.arguments(schemas.Credentials)
    @blp.response(201, IssuedTokenOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Exchange a username and password for a bearer token (it expires after
        ``ARBITER_TOKEN_DAYS`` days)."""
        signed = services().users.sign_in(
            body["username"], body["password"], body["label"], request.remote_addr or ""
        )
        return {
            "token": signed.token,
            "id": signed.record.id.hex,
            "expires": signed.record.expires,
            "user": user_json(signed.user),
        }


@blp.route("/tokens/current")
class CurrentToken(MethodView):
    @blp.response(204)
    def delete(self) -> None:
        """Revoke the token of this request (a bearer token, or the session's: signing out)."""
        user = require_user()
        token, from_session = current_token()
        services().users.revoke(user, token)
        if from_session:
            session.clear()


@blp.route("/tokens/<token_id>")
class Token(MethodView):
    @blp.response(204)
    def delete(self, token_id: str) -> None:
        """Revoke one of your tokens by its id (404 if it is not yours)."""
        services().users.revoke_token(require_user(), token_id)


@blp.route("/session")
class Session(MethodView):
    @blp.arguments(schemas.Credentials)
    @blp.response(201, schemas.SessionOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Sign in for the web app: sets a signed session cookie."""
        signed = services().users.sign_in(
            body["username"], body["password"], "web", request.remote_addr or ""
        )
        csrf = start_session(signed.token)
        return {"user": user_json(signed.user), "csrf": csrf}

    @blp.response(204)
    def delete(self) -> None:
        """Sign out: revokes the session's token."""
        user = require_user()
        token = session.get("token")
        if token:
            services().users.revoke(user, token)
        session.clear()


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, schemas.UserOut)
    def get(self) -> dict[str, str]:
        """The signed-in user."""
        return user_json(require_user())


@blp.route("/me/tokens")
class MyTokens(MethodView):
    @blp.response(200, TokenList)
    def get(self) -> dict[str, Any]:
        """Your live tokens and web sessions (never their secrets), newest first."""
        user = require_user()
        users = services().users
        token, _ = current_token()
        current = users.token_id(token)
        rows = users.tokens(user)
        return {"tokens": [dict(row, current=row["id"] == current) for row in rows]}
