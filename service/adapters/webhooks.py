"""Webhook requests: a JSON body that Discord (``content``) and Slack (``text``) accept, signed
``X-Arbiter-Signature: sha256=<hex HMAC-SHA256 of the body with the webhook's secret>``, with the
delivery's idempotency key in ``X-Arbiter-Delivery``."""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
from typing import Any

USER_AGENT = "Arbiter-Webhook/1"


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def body_of(text: str, **extra: Any) -> bytes:
    payload = {"content": text, "text": text, **{k: v for k, v in extra.items() if v is not None}}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:  # a redirect is an answer
        return None


class WebhookPoster:
    """POSTs one signed body; redirects are not followed (a redirect could lead anywhere)."""

    def __init__(self, timeout: float = 10) -> None:
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)

    def post(self, url: str, secret: str, body: bytes, key: str) -> tuple[bool, str]:
        """(delivered, what the receiver answered): 2xx is delivered; anything else is not."""
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "X-Arbiter-Signature": signature(secret, body),
                "X-Arbiter-Delivery": key,
            },
        )
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return 200 <= response.status < 300, f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            return False, f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return False, f"unreachable: {reason}"
