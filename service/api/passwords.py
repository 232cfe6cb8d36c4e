"""Passwords: a signed-in user changes theirs (giving the current one); anyone asks for a reset
link by e-mail, and sets a new password with it."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import schemas
from service.api.auth import current_token, renew_session, require_user, services
from service.api.blueprint import Blueprint

blp = Blueprint("passwords", __name__, url_prefix="/api", description="Passwords")

PASSWORD = validate.Length(min=1, max=1024)


class PasswordChangeIn(schemas.Strict):
    current_password = fields.String(required=True, load_only=True, validate=PASSWORD)
    new_password = fields.String(
        required=True,
        load_only=True,
        validate=PASSWORD,
        metadata={"description": "8 to 1024 characters, not one of the commonest passwords"},
    )


class PasswordChangedOut(Schema):
    user = fields.Nested(schemas.UserOut)
    signed_out = fields.Integer(
        metadata={"description": "your other tokens and web sessions, now signed out"}
    )
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "with a bearer token: its replacement (the old one no longer works); "
            "null with a session cookie, which now carries the new token"
        },
    )
    id = fields.String(allow_none=True, metadata={"description": "the new token's id"})
    expires = fields.DateTime(allow_none=True)


@blp.route("/me/password")
class MyPassword(MethodView):
    @blp.arguments(PasswordChangeIn)
    @blp.response(200, PasswordChangedOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change your password, giving the current one (a wrong one counts towards the sign-in
        throttle: 429).  Every other token and web session of yours is signed out; this request's
        own is replaced (a bearer token by the one answered here, a session's in its cookie)."""
        user = require_user()
        token, from_session = current_token()
        changed = services().users.change_password(
            user,
            body["current_password"],
            body["new_password"],
            token=token,
            address=request.remote_addr or "",
        )
        signed = changed.signed
        assert signed is not None
        if from_session:
            renew_session(signed.token)
        return {
            "user": {"id": str(changed.user.id), "username": changed.user.username},
            "signed_out": changed.signed_out,
            "token": None if from_session else signed.token,
            "id": signed.record.id.hex,
            "expires": signed.record.expires,
        }
