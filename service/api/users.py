"""Users, API tokens and web sessions."""

from __future__ import annotations

from typing import Any

from flask import session
from flask.views import MethodView
from flask_smorest import Blueprint

from service.api import schemas
from service.api.auth import require_user, services, start_session

blp = Blueprint("users", __name__, url_prefix="/api", description="Users, tokens and sessions")


def user_json(user: Any) -> dict[str, str]:
    return {"id": str(user.id), "username": user.username}


@blp.route("/users")
class Users(MethodView):
    @blp.arguments(schemas.UserCreate)
    @blp.response(201, schemas.UserOut)
    def post(self, body: dict[str, Any]) -> dict[str, str]:
        """Register a user."""
        return user_json(services().users.register(body["username"], body["password"]))


@blp.route("/tokens")
class Tokens(MethodView):
    @blp.arguments(schemas.Credentials)
    @blp.response(201, schemas.TokenOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Exchange a username and password for a bearer token."""
        user, token = services().users.sign_in(body["username"], body["password"], body["label"])
        return {"token": token, "user": user_json(user)}


@blp.route("/session")
class Session(MethodView):
    @blp.arguments(schemas.Credentials)
    @blp.response(201, schemas.SessionOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Sign in for the web app: sets a signed session cookie."""
        user, token = services().users.sign_in(body["username"], body["password"], "web")
        csrf = start_session(token)
        return {"user": user_json(user), "csrf": csrf}

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
