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
        validate=validate.Length(min=8, max=1024),
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


class ResetRequestIn(schemas.Strict):
    account = fields.String(
        required=True,
        validate=validate.Length(min=1, max=254),
        metadata={"description": "your user name, or your e-mail address"},
    )


class ResetUseIn(schemas.Strict):
    token = fields.String(
        required=True,
        load_only=True,
        validate=validate.Length(min=1, max=400),
        metadata={"description": "from the link in the e-mail (after '#token=')"},
    )
    new_password = fields.String(
        required=True, load_only=True, validate=validate.Length(min=8, max=1024)
    )


class ResetAskedOut(Schema):
    message = fields.String()


class ResetDoneOut(Schema):
    user = fields.Nested(schemas.UserOut)
    signed_out = fields.Integer(metadata={"description": "tokens and web sessions signed out"})
    message = fields.String()


@blp.route("/password-resets")
class ResetRequests(MethodView):
    @blp.arguments(ResetRequestIn)
    @blp.response(202, ResetAskedOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Ask for a link that sets a new password, e-mailed to the account's address.  The
        answer is the same whether or not the account exists or has an address; from one client
        address, at most 10 an hour (then 429)."""
        resets = services().password_resets
        resets.request(body["account"], request.remote_addr or "")
        return {
            "message": "If that account exists and has an e-mail address, a link to set a new "
            f"password is on its way. It works once, within {resets.minutes} minutes."
        }


@blp.route("/password-resets/use")
class ResetUse(MethodView):
    @blp.arguments(ResetUseIn)
    @blp.response(200, ResetDoneOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Set a new password with the token of a reset link.  Every token and web session of
        the account is signed out; sign in with the new password.  A forged, expired or used link
        is a 400 naming ``token``."""
        changed = services().password_resets.use(body["token"], body["new_password"])
        return {
            "user": {"id": str(changed.user.id), "username": changed.user.username},
            "signed_out": changed.signed_out,
            "message": "Your password is set: sign in with it.",
        }
