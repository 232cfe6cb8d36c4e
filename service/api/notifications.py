"""Your notifications, how you want them, your e-mail address, and unsubscribing by link."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from flask import Response, redirect, request
from flask.views import MethodView
from marshmallow import ValidationError, fields, validate, validates_schema
from werkzeug.wrappers import Response as WerkzeugResponse

from service.api import schemas
from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import Lenient, Strict
from service.api.stream import Plan, respond
from service.application.notifications import user_channel
from service.domain.notifications import KINDS

blp = Blueprint(
    "notifications", __name__, url_prefix="/api", description="Notifications and preferences"
)


class NotificationOut(schemas.Schema):
    id = fields.String()
    kind = fields.String(metadata={"description": f"one of {', '.join(KINDS)}"})
    text = fields.String(metadata={"description": "the notification in words"})
    game = fields.String(allow_none=True)
    url = fields.String(allow_none=True, metadata={"description": "the page it is about"})
    created = fields.DateTime()
    read = fields.Boolean()


class NotificationList(schemas.Schema):
    notifications = fields.List(fields.Nested(NotificationOut))
    unread = fields.Integer()
    total = fields.Integer()


class ListArgs(schemas.PageFields, Lenient):
    unread = fields.Boolean(load_default=False)
    limit = fields.Integer(  # clients ask for up to 500 (the page size before paging)
        load_default=50,
        validate=validate.Range(min=1, max=500),
        metadata={"description": "notifications per page (at most 500)"},
    )


class ReadIn(Strict):
    ids = fields.List(fields.String(validate=validate.Length(min=1, max=64)), load_default=None)
    all = fields.Boolean(load_default=False)

    #: some ids, or all: true
    OPENAPI = {
        "anyOf": [
            {"required": ["ids"], "properties": {"ids": {"type": "array", "minItems": 1}}},
            {"required": ["all"], "properties": {"all": {"const": True}}},
        ]
    }

    @validates_schema
    def _something(self, data: dict[str, Any], **kwargs: Any) -> None:
        if not data.get("all") and not data.get("ids"):
            raise ValidationError("a list of notification ids, or all: true", "ids")


class ReadOut(schemas.Schema):
    unread = fields.Integer()


class PreferencesBody(Strict):
    preferences = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(keys=fields.String(), values=fields.Raw()),
        required=True,
        metadata={"description": "kind -> {web: bool, email: bool}"},
    )


class PreferencesOut(schemas.Schema):
    preferences = fields.Dict()
    kinds = fields.List(fields.String())
    email = fields.String(allow_none=True)


class EmailIn(Strict):
    email = fields.String(required=True, allow_none=True, validate=validate.Length(max=254))
    current_password = fields.String(
        required=True,
        load_only=True,
        validate=validate.Length(min=1, max=1024),
        metadata={"description": "your password: the address is where reset links go"},
    )


class MeOut(schemas.Schema):
    id = fields.String()
    username = fields.String()
    email = fields.String(allow_none=True)


class MessageOut(schemas.Schema):
    message = fields.String()


class UnsubscribeArgs(Lenient):
    user = fields.String(required=True, validate=validate.Length(min=1, max=64))
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    token = fields.String(required=True, validate=validate.Length(min=1, max=128))


class StreamArgs(Lenient):
    window = fields.Float(load_default=300.0, validate=validate.Range(min=1, max=3600))


@blp.route("/me/notifications")
class MyNotifications(MethodView):
    @blp.arguments(ListArgs, location="query")
    @blp.response(200, NotificationList)
    def get(self, args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Your notifications, newest first, a page of ``limit`` (default 50, at most 500), and
        how many are unread and in all (kinds you turned off for the web are left out).  When
        there are more, ``X-Next-Cursor`` (and ``Link: <...>; rel="next"``) names the next page:
        pass it back as ``after``."""
        user = require_user()
        after = args["after"]
        found = services().notifications.listing(
            str(user.id),
            unread_only=args["unread"],
            limit=args["limit"],
            after=(after[0], UUID(after[1]).hex) if after else None,
        )
        key = found.pop("next")
        headers = next_page("/api/me/notifications", args, key) if key else {}
        return found, 200, headers


@blp.route("/me/notifications/read")
class MarkRead(MethodView):
    @blp.arguments(ReadIn)
    @blp.response(200, ReadOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Mark some notifications read (``ids``) or all of them (``all: true``)."""
        user = require_user()
        unread = services().notifications.mark_read(str(user.id), body["ids"], body["all"])
        return {"unread": unread}


@blp.route("/me/notifications/stream")
class MyNotificationStream(MethodView):
    @blp.arguments(StreamArgs, location="query")
    def get(self, args: dict[str, Any]) -> Response:
        """Server-sent ``notification`` events as your notifications are recorded (the note
        carries no text: fetch the list with your credentials)."""
        user = require_user()
        svc = services()
        last = request.headers.get("Last-Event-ID", "")
        since = int(last) if last.isdigit() else 0
        return respond(
            Plan(
                broker=svc.broker,
                channel=user_channel(user.id),
                kind="notification",
                since=since,
                window=args["window"],
                position=lambda note: int(note.get("position", 0)),
                idle=lambda degraded: None,
            )
        )


def _preferences(user: Any) -> dict[str, Any]:
    return {
        "preferences": services().notifications.preferences(str(user.id)),
        "kinds": list(KINDS),
        "email": getattr(user, "email", None),
    }


@blp.route("/me/notification-preferences")
class MyPreferences(MethodView):
    @blp.response(200, PreferencesOut)
    def get(self) -> dict[str, Any]:
        """Per kind, whether you want it in the web app and by e-mail."""
        return _preferences(require_user())

    @blp.arguments(PreferencesBody)
    @blp.response(200, PreferencesOut)
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change some of your preferences: ``{"preferences": {"turn": {"email": false}}}``."""
        user = require_user()
        services().notifications.set_preferences(str(user.id), body["preferences"])
        return _preferences(user)


@blp.route("/me/email")
class MyEmail(MethodView):
    @blp.arguments(EmailIn)
    @blp.response(200, MeOut)
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Give the address notifications and password reset links are e-mailed to (null or ""
        removes it), with your current password (a wrong one is a 403 naming
        ``current_password`` and counts towards the sign-in throttle: 429).  The old address is
        told by e-mail, and reset links sent before no longer work."""
        user = services().users.change_email(
            require_user(),
            body["email"],
            body["current_password"],
            address=request.remote_addr or "",
        )
        return {"id": str(user.id), "username": user.username, "email": user.email}


@blp.route("/unsubscribe")
class Unsubscribe(MethodView):
    @blp.arguments(UnsubscribeArgs, location="query")
    @blp.response(303, description="to the web page /unsubscribe, whose button POSTs this")
    def get(self, args: dict[str, Any]) -> WerkzeugResponse:
        """A signed unsubscribe link, checked (403 if it is not valid) and sent on to the web page
        that asks to confirm: a GET never writes, and mail scanners follow links.  (E-mails sent
        before link to the page itself; this answers the links of older ones.)"""
        services().notifications.check_unsubscribe(args["user"], args["kind"], args["token"])
        query = urlencode({k: args[k] for k in ("user", "kind", "token")})
        return redirect(f"/unsubscribe?{query}", 303)

    @blp.arguments(UnsubscribeArgs, location="query")
    @blp.response(200, MessageOut)
    def post(self, args: dict[str, Any]) -> dict[str, Any]:
        """Stop e-mails of one kind, from the signed link in an e-mail (no sign-in needed): the
        web page's button, or a mail program's one-click unsubscribe (RFC 8058)."""
        what = services().notifications.unsubscribe(args["user"], args["kind"], args["token"])
        return {"message": f"You will no longer receive e-mails about {what}."}
