"""Web push: the server's VAPID public key, and your push subscriptions (one per browser where
you turned notifications on; docs/notifications.md "Web push")."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import fields, validate

from service.api import schemas
from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import Lenient, Strict
from service.domain.notifications import WEBHOOK_URL
from service.domain.push import ENDPOINT_MAX

blp = Blueprint("push", __name__, url_prefix="/api", description="Web push")

#: base64url, padded or not
B64URL = r"^[A-Za-z0-9_-]+={0,2}$"
#: the latest expirationTime taken: the year 9999, in ms since 1970
EXPIRES_MAX = 253402300799999


class KeyOut(schemas.Schema):
    public_key = fields.String(
        metadata={
            "description": "the VAPID public key (an uncompressed P-256 point, base64url): "
            "PushManager.subscribe's applicationServerKey"
        }
    )


class PushKeysIn(Strict):
    p256dh = fields.String(
        required=True,
        validate=[validate.Length(min=86, max=88), validate.Regexp(B64URL)],
        metadata={"description": "the browser's P-256 public key (65 bytes, base64url)"},
    )
    auth = fields.String(
        required=True,
        validate=[validate.Length(min=22, max=24), validate.Regexp(B64URL)],
        metadata={"description": "the browser's auth secret (16 bytes, base64url)"},
    )


class SubscriptionIn(Strict):
    endpoint = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=ENDPOINT_MAX), validate.Regexp(WEBHOOK_URL)],
        metadata={
            "description": "the push service's URL for this browser (an http(s) URL, as a "
            "webhook's; this site takes https on a public host, 422 otherwise, unless "
            "ARBITER_WEBHOOK_ALLOW_PRIVATE is set)"
        },
    )
    expirationTime = fields.Integer(  # noqa: N815 - the PushSubscription's own name
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=EXPIRES_MAX),
        metadata={"description": "when the subscription expires (ms since 1970), or null"},
    )
    keys = fields.Nested(PushKeysIn, required=True)


class SubscriptionCreated(schemas.Schema):
    id = fields.String()


class SubscriptionOut(schemas.Schema):
    id = fields.String()
    endpoint = fields.String(metadata={"description": "the push service's URL (keys not shown)"})
    expirationTime = fields.Integer(allow_none=True)  # noqa: N815
    since = fields.DateTime(metadata={"description": "when it was turned on"})


class SubscriptionList(schemas.Schema):
    subscriptions = fields.List(fields.Nested(SubscriptionOut))


class SubscriptionArgs(schemas.PageFields, Lenient):
    pass


@blp.route("/push/key")
class PushKey(MethodView):
    @blp.response(200, KeyOut)
    def get(self) -> dict[str, Any]:
        """The key browsers subscribe to this site's pushes with (no sign-in needed)."""
        return {"public_key": services().push.public_key}


@blp.route("/me/push-subscriptions")
class MyPushSubscriptions(MethodView):
    @blp.arguments(SubscriptionIn)
    @blp.response(201, SubscriptionCreated)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Push your notifications to this browser: its ``PushSubscription`` as JSON
        (``endpoint``, ``expirationTime``, ``keys.p256dh``, ``keys.auth``).  The same endpoint
        again renews it; past ``ARBITER_PUSH_PER_USER`` subscriptions it is 409
        ``limit_reached``."""
        user = require_user()
        device, _ = services().push.subscribe(
            str(user.id),
            body["endpoint"],
            body["keys"]["p256dh"],
            body["keys"]["auth"],
            body["expirationTime"],
        )
        return {"id": device.id.hex}

    @blp.arguments(SubscriptionArgs, location="query")
    @blp.response(200, SubscriptionList)
    def get(self, args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Your push subscriptions, oldest first, a page of ``limit`` (``X-Next-Cursor`` names the
        next page: ``after``); their keys are never shown."""
        user = require_user()
        page, key = services().push.subscriptions(
            str(user.id), limit=args["limit"], after=args["after"]
        )
        rows = [
            {
                "id": d.id.hex,
                "endpoint": d.endpoint,
                "expirationTime": d.expires,
                "since": d.since,
            }
            for d in page
        ]
        headers = next_page("/api/me/push-subscriptions", args, key) if key else {}
        return {"subscriptions": rows}, 200, headers


@blp.route("/me/push-subscriptions/<sub_id>")
class MyPushSubscription(MethodView):
    @blp.response(204)
    def delete(self, sub_id: str) -> None:
        """Stop pushing to one of your browsers."""
        user = require_user()
        services().push.remove(str(user.id), sub_id, by=str(user.id), reason="unsubscribed")
