"""Webhooks a user or a club registers, and their delivery logs."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service.api import schemas
from service.api.auth import require_user, services
from service.api.blueprint import Blueprint
from service.api.paging import next_page
from service.api.schemas import Lenient, Strict
from service.domain.notifications import KINDS, WEBHOOK_URL

blp = Blueprint("webhooks", __name__, url_prefix="/api", description="Webhooks")


class WebhookIn(Strict):
    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), validate.Regexp(WEBHOOK_URL)],
        metadata={"description": "an http:// or https:// URL with a host"},
    )
    secret = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=16, max=200),
        metadata={"description": "16-200 characters; generated (and shown once) if left out"},
    )
    kinds = fields.List(
        fields.String(validate=validate.OneOf(KINDS)),
        load_default=list,
        metadata={"description": f"some of {', '.join(KINDS)}; empty: every kind"},
    )


class WebhookOut(Schema):
    id = fields.String()
    url = fields.String()
    kinds = fields.List(fields.String())
    owner = fields.String(metadata={"description": "'you' or the club's id"})
    secret = fields.String(metadata={"description": "only in the answer to its registration"})


class WebhookList(Schema):
    webhooks = fields.List(fields.Nested(WebhookOut))


class AttemptOut(Schema):
    at = fields.DateTime()
    ok = fields.Boolean()
    error = fields.String(allow_none=True)


class DeliveryOut(Schema):
    id = fields.String(metadata={"description": "the idempotency key (X-Arbiter-Delivery)"})
    kind = fields.String()
    text = fields.String()
    created = fields.DateTime()
    status = fields.String(metadata={"description": "pending, retrying, sent or failed"})
    attempts = fields.List(fields.Nested(AttemptOut))


class DeliveryList(Schema):
    deliveries = fields.List(fields.Nested(DeliveryOut))


def _out(hook: Any, secret: str | None = None) -> dict[str, Any]:
    row = {
        "id": hook.id.hex,
        "url": hook.url,
        "kinds": list(hook.kinds),
        "owner": "you" if hook.owner_kind == "user" else hook.owner,
    }
    if secret is not None:
        row["secret"] = secret
    return row


def _owner(club: str | None) -> tuple[str, str, Any]:
    user = require_user()
    if club is None:
        return "user", str(user.id), user
    return "club", services().notifications.club_admin(club, user), user


def _register(club: str | None, body: dict[str, Any]) -> dict[str, Any]:
    kind, owner, user = _owner(club)
    hook, secret = services().notifications.register_webhook(
        kind, owner, str(user.id), body["url"], body["secret"], body["kinds"]
    )
    return _out(hook, secret)


def _list(club: str | None) -> dict[str, Any]:
    kind, owner, _ = _owner(club)
    return {"webhooks": [_out(h) for h in services().notifications.webhooks(kind, owner)]}


class DeliveriesArgs(schemas.PageFields, Lenient):
    pass


def _deliveries(
    club: str | None, hook_id: str, args: dict[str, Any], path: str
) -> tuple[dict[str, Any], int, dict[str, str]]:
    """A page of the webhook's deliveries (``X-Next-Cursor`` names the next)."""
    kind, owner, _ = _owner(club)
    after = args["after"]
    rows, key = services().notifications.deliveries(
        kind,
        owner,
        hook_id,
        limit=args["limit"],
        after=(after[0], UUID(after[1]).hex) if after else None,
    )
    return {"deliveries": rows}, 200, next_page(path, args, key) if key else {}


def _remove(club: str | None, hook_id: str) -> None:
    kind, owner, user = _owner(club)
    services().notifications.remove_webhook(kind, owner, hook_id, str(user.id))


@blp.route("/me/webhooks")
class MyWebhooks(MethodView):
    @blp.arguments(WebhookIn)
    @blp.response(201, WebhookOut)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a webhook for your notifications: signed JSON with ``content`` (Discord) and
        ``text`` (Slack)."""
        return _register(None, body)

    @blp.response(200, WebhookList)
    def get(self) -> dict[str, Any]:
        """Your webhooks (never their secrets)."""
        return _list(None)


@blp.route("/me/webhooks/<hook_id>")
class MyWebhook(MethodView):
    @blp.response(204)
    def delete(self, hook_id: str) -> None:
        """Remove one of your webhooks."""
        _remove(None, hook_id)


@blp.route("/me/webhooks/<hook_id>/deliveries")
class MyWebhookDeliveries(MethodView):
    @blp.arguments(DeliveriesArgs, location="query")
    @blp.response(200, DeliveryList)
    def get(self, args: dict[str, Any], hook_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """What was sent to one of your webhooks, newest first, with every attempt, a page of
        ``limit`` (default 50, at most 100; ``X-Next-Cursor`` names the next page: ``after``)."""
        return _deliveries(None, hook_id, args, f"/api/me/webhooks/{hook_id}/deliveries")


@blp.route("/clubs/<club>/webhooks")
class ClubWebhooks(MethodView):
    @blp.arguments(WebhookIn)
    @blp.response(201, WebhookOut)
    def post(self, body: dict[str, Any], club: str) -> dict[str, Any]:
        """Register a webhook for what happens in the club's games (club admins)."""
        return _register(club, body)

    @blp.response(200, WebhookList)
    def get(self, club: str) -> dict[str, Any]:
        """The club's webhooks (club admins)."""
        return _list(club)


@blp.route("/clubs/<club>/webhooks/<hook_id>")
class ClubWebhook(MethodView):
    @blp.response(204)
    def delete(self, club: str, hook_id: str) -> None:
        """Remove one of the club's webhooks (club admins)."""
        _remove(club, hook_id)


@blp.route("/clubs/<club>/webhooks/<hook_id>/deliveries")
class ClubWebhookDeliveries(MethodView):
    @blp.arguments(DeliveriesArgs, location="query")
    @blp.response(200, DeliveryList)
    def get(
        self, args: dict[str, Any], club: str, hook_id: str
    ) -> tuple[dict[str, Any], int, dict[str, str]]:
        """What was sent to one of the club's webhooks (club admins), newest first, a page at a
        time like a user's."""
        return _deliveries(club, hook_id, args, f"/api/clubs/{club}/webhooks/{hook_id}/deliveries")
