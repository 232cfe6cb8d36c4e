"""Webhook requests: a JSON body that Discord (``content``) and Slack (``text``) accept, signed
``X-Arbiter-Signature: sha256=<hex HMAC-SHA256 of the body with the webhook's secret>``, with the
delivery's idempotency key in ``X-Arbiter-Delivery``."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import socket
import ssl
import threading
from typing import Any
from urllib.parse import urlsplit

from service.domain.notifications import webhook_body

USER_AGENT = "Arbiter-Webhook/1"


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


#: a webhook's JSON body (made in the domain: the worker makes it, this sends it)
body_of = webhook_body


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to ``address`` (an IP the caller has checked) for the URL's host, which
    still names the request (``Host``); None: the host name is looked up as usual."""

    def __init__(self, host: str, port: int | None, address: str | None, **kwargs: Any) -> None:
        super().__init__(host, port, **kwargs)
        self._address = address

    def connect(self) -> None:
        target = (self._address or self.host, self.port)
        self.sock = socket.create_connection(target, self.timeout)


class _PinnedTls(http.client.HTTPSConnection):
    """HTTPS to a checked ``address``; the certificate is verified for the URL's host (SNI)."""

    def __init__(self, host: str, port: int | None, address: str | None, **kwargs: Any) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, context=self._tls, **kwargs)
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address or self.host, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


class WebhookPoster:
    """POSTs one signed body; redirects are not followed (a redirect could lead anywhere), and
    with ``address`` the connection goes to that address, not to a new look-up of the host (a
    name that answers a public address to the check and loopback to the connection is DNS
    rebinding)."""

    def __init__(self, timeout: float = 10) -> None:
        #: seconds for the whole request, not each read: a receiver that answers a byte at a
        #: time is cut off at the deadline, well within the delivery's lease
        self.timeout = timeout

    def post(
        self, url: str, secret: str, body: bytes, key: str, *, address: str | None = None
    ) -> tuple[bool, str]:
        """(delivered, what the receiver answered): 2xx is delivered; anything else is not."""
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Arbiter-Signature": signature(secret, body),
            "X-Arbiter-Delivery": key,
        }
        status, answer = self.send(url, body, headers, address=address)
        return status is not None and 200 <= status < 300, answer

    def send(
        self, url: str, body: bytes, headers: dict[str, str], *, address: str | None = None
    ) -> tuple[int | None, str]:
        """POST ``body`` with ``headers`` (to ``address`` when given): the answer's status (None:
        no answer) and what it was, in words.  A web push goes this way too (its own headers)."""
        parts = urlsplit(url)
        kind = _PinnedTls if parts.scheme == "https" else _Pinned
        conn = kind(parts.hostname or "", parts.port, address, timeout=self.timeout)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        cut = threading.Event()
        deadline = threading.Timer(self.timeout, _cut, (conn, cut))
        deadline.daemon = True
        deadline.start()
        try:
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read(65536)  # the answer's body is not used; a bounded read
            return response.status, f"HTTP {response.status}"
        except (OSError, http.client.HTTPException) as exc:
            if cut.is_set():
                return None, f"unreachable: no whole answer within {self.timeout:g} s"
            return None, f"unreachable: {exc}"
        finally:
            deadline.cancel()
            conn.close()


def _cut(conn: http.client.HTTPConnection, cut: threading.Event) -> None:
    """End a request at its deadline: shutting the socket down wakes a read blocked on it."""
    cut.set()
    sock = conn.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
