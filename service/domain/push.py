"""Web push subscriptions (RFC 8030, 8291, 8292): the browsers a user asked to be told on.

A :class:`PushSubscription` is what a browser's ``PushManager.subscribe`` answered (its push
service's endpoint and the keys a notice is encrypted to), kept in the main store so that every
host and worker sees the same ones; a :class:`PushIndex` per user lists their ids (the worker finds
them without a scan, and the cap per user is counted on it).  The id derives from the user and the
endpoint, so a browser that subscribes again finds its own subscription, renewed."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid5

from cryptography.hazmat.primitives.asymmetric import ec
from eventsourcing.domain import Aggregate

from service.domain.errors import Invalid, Unprocessable
from service.domain.notifications import NAMESPACE, Resolve, validate_webhook_url

#: a P-256 public key, uncompressed (0x04, x, y), and the auth secret, in bytes (RFC 8291)
P256DH_BYTES = 65
AUTH_BYTES = 16
ENDPOINT_MAX = 2000


def subscription_id(user: str, endpoint: str) -> UUID:
    return uuid5(NAMESPACE, f"push:{user}:{endpoint}")


def push_index_id(user: str) -> UUID:
    return uuid5(NAMESPACE, f"push-index:{user}")


def b64url_bytes(text: str) -> bytes | None:
    """The bytes a base64url text (padded or not) holds; None when it is not base64url."""
    if not isinstance(text, str) or not text or any(c in text for c in "+/ \n"):
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def validate_subscription(
    endpoint: str, p256dh: str, auth: str, *, allow_private: bool, resolve: Resolve
) -> tuple[str, str, str]:
    """A browser's PushSubscription, checked: an https endpoint (http only with
    ``allow_private``, for tests) whose host passes the webhooks' address checks, a P-256 point of
    65 bytes on the curve, and a 16-byte auth secret (both base64url).  Returns them cleaned."""
    endpoint = (endpoint or "").strip()
    try:
        scheme = urlsplit(endpoint).scheme
    except ValueError:  # a bracketed host that is no IPv6 address, ...: no URL at all
        raise Invalid("invalid push endpoint", {"endpoint": ["not a URL"]}) from None
    if scheme != "https" and not (allow_private and scheme == "http"):
        # the document allows http (a server with ARBITER_WEBHOOK_ALLOW_PRIVATE takes it): this
        # site's policy refuses it, a 422
        raise Unprocessable("push endpoint not allowed", {"endpoint": ["an https:// URL"]})
    try:
        endpoint = validate_webhook_url(endpoint, allow_private=allow_private, resolve=resolve)
    except (Invalid, Unprocessable) as exc:  # the same kind of refusal, naming the endpoint
        raise type(exc)(
            exc.message.replace("webhook url", "push endpoint"),
            {"endpoint": exc.details.get("url", ["not allowed"])},
        ) from None
    point = b64url_bytes(p256dh)
    if point is None or len(point) != P256DH_BYTES or point[0] != 4:
        raise Invalid(
            "invalid push key",
            {"keys.p256dh": ["an uncompressed P-256 public key, 65 bytes in base64url"]},
        )
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise Invalid(
            "invalid push key", {"keys.p256dh": ["not a point on the P-256 curve"]}
        ) from None
    secret = b64url_bytes(auth)
    if secret is None or len(secret) != AUTH_BYTES:
        raise Invalid("invalid push key", {"keys.auth": ["16 bytes in base64url"]})
    return endpoint, b64url(point), b64url(secret)


class PushSubscription(Aggregate):
    """One browser's push subscription for one user, until removed (by the user, or by the worker
    when the push service answers that it is gone: 404 or 410)."""

    class Subscribed(Aggregate.Created):
        user: str
        endpoint: str
        p256dh: str
        auth: str
        expires: int | None  # the browser's expirationTime (ms since 1970), if it gave one

        def apply(self, aggregate: Any) -> None:
            aggregate.user = self.user
            aggregate.endpoint = self.endpoint
            aggregate.p256dh = self.p256dh
            aggregate.auth = self.auth
            aggregate.expires = self.expires
            aggregate.removed = False
            aggregate.since = self.timestamp

    class Renewed(Aggregate.Event):
        """Subscribed again (new keys, or after it was removed)."""

        p256dh: str
        auth: str
        expires: int | None

        def apply(self, aggregate: Any) -> None:
            aggregate.p256dh = self.p256dh
            aggregate.auth = self.auth
            aggregate.expires = self.expires
            aggregate.removed = False
            aggregate.since = self.timestamp

    class Removed(Aggregate.Event):
        """``reason``: "unsubscribed" (the user) or "gone" (the push service's 404/410)."""

        reason: str
        by: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.removed = True

    user: str
    endpoint: str
    p256dh: str
    auth: str
    expires: int | None
    removed: bool

    def __init__(self) -> None:
        pass

    def info(self) -> dict[str, Any]:
        """What pywebpush takes: the subscription as the browser gave it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class PushIndex(Aggregate):
    """The ids of one user's push subscriptions, oldest first."""

    class Started(Aggregate.Created):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.subscriptions = []

    class Added(Aggregate.Event):
        subscription: str

        def apply(self, aggregate: Any) -> None:
            if self.subscription not in aggregate.subscriptions:
                aggregate.subscriptions.append(self.subscription)

    class Dropped(Aggregate.Event):
        subscription: str

        def apply(self, aggregate: Any) -> None:
            if self.subscription in aggregate.subscriptions:
                aggregate.subscriptions.remove(self.subscription)

    subscriptions: list[str]

    def __init__(self) -> None:
        pass


#: a pushed notice's title, per kind (its body is the notice's sentence)
TITLES = {
    "turn": "Your turn",
    "invitation": "An invitation",
    "challenge": "A ladder challenge",
    "takeback": "A takeback to answer",
    "draw": "A draw offer",
    "dispute": "A dispute",
    "clock": "A clock",
    "ended": "A game ended",
    "club": "Your club",
    "chat": "A chat message",
    "event": "A club event",
}


def payload_of(kind: str, text: str, url: str | None, home: str) -> dict[str, str]:
    """What a push carries (encrypted): ``{title, body, url}``, the page to open (the site's
    home when the notice names none)."""
    return {"title": f"Arbiter: {TITLES.get(kind, 'a notice')}", "body": text, "url": url or home}
