"""Web push messages (RFC 8030): the notice's JSON encrypted to the browser's keys with
``aes128gcm`` (RFC 8291, pywebpush and http_ece) and signed with the server's VAPID key (RFC 8292,
py_vapid: ``Authorization: vapid t=<JWT>,k=<public key>``), with a ``TTL``.  The request itself
goes out through the webhooks' poster (:class:`service.adapters.webhooks.WebhookPoster`): the same
checked, pinned address and the same deadline."""

from __future__ import annotations

import json
import time
from email.utils import parseaddr
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02
from pywebpush import WebPusher

from service.domain.push import b64url

#: how long a push service keeps a notice for a device that is offline (seconds): a day, after
#: which "your turn" is old news the page shows anyway
TTL = 24 * 60 * 60
#: how long each VAPID token is good for (RFC 8292 allows up to a day)
TOKEN_SECONDS = 12 * 60 * 60


def contact_of(public_url: str, sender: str) -> str:
    """The VAPID ``sub`` claim: the site's https URL, else ``mailto:`` the e-mail sender's
    address (push services want a way to reach whoever sends)."""
    if public_url.startswith("https://"):
        return public_url.rstrip("/")
    address = parseaddr(sender)[1] or "arbiter@localhost"
    return f"mailto:{address}"


class PushSigner:
    """Encrypts and signs one push message per call (a new ephemeral key and salt each time)."""

    def __init__(self, private_key: str, contact: str, ttl: int = TTL) -> None:
        self.vapid = Vapid02.from_raw(private_key.strip().encode("ascii"))
        self.contact = contact
        self.ttl = ttl

    @property
    def public_key(self) -> str:
        """The application server key browsers subscribe with: the uncompressed P-256 point, in
        base64url (``PushManager.subscribe({applicationServerKey})``)."""
        point = self.vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def message(
        self, subscription: dict[str, Any], payload: dict[str, Any]
    ) -> tuple[bytes, dict[str, str]]:
        """The encrypted body and the headers of a push of ``payload`` (JSON) to ``subscription``
        (``{"endpoint", "keys": {"p256dh", "auth"}}``)."""
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        body = WebPusher(subscription).encode(data, "aes128gcm")["body"]
        parts = urlsplit(subscription["endpoint"])
        claims = {
            "sub": self.contact,
            "aud": f"{parts.scheme}://{parts.netloc}",
            "exp": int(time.time()) + TOKEN_SECONDS,
        }
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Encoding": "aes128gcm",
            "TTL": str(self.ttl),
            "Urgency": "normal",
            **self.vapid.sign(claims),
        }
        return bytes(body), headers
