"""Real receivers on 127.0.0.1 for the notification tests: an SMTP server (aiosmtpd) and an HTTP
server that checks each webhook's signature and counts deliveries by idempotency key."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
from collections import Counter
from email import message_from_bytes
from email.message import Message
from email.policy import default
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SmtpReceiver:
    """aiosmtpd on a free port; ``messages`` in arrival order; ``keys`` counts Message-IDs."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[Message] = []
        self.keys: Counter[str] = Counter()
        self.lock = threading.Lock()
        receiver = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                message = message_from_bytes(envelope.content, policy=default)
                with receiver.lock:
                    receiver.messages.append(message)
                    receiver.keys[str(message["X-Arbiter-Delivery"])] += 1
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def __enter__(self) -> SmtpReceiver:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def to(self, address: str) -> list[Message]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]


class _Served:
    """A receiver's HTTP server on 127.0.0.1 (``self.server``), served on a thread while the
    receiver is entered."""

    server: ThreadingHTTPServer

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class HookReceiver(_Served):
    """An HTTP server taking webhook POSTs on any path; checks ``X-Arbiter-Signature`` with the
    secret registered for the path, keeps the first body per key (dropping duplicates as a
    receiver should) and counts every arrival per key."""

    def __init__(self, status: int = 200) -> None:
        self.secrets: dict[str, str] = {}
        self.bodies: dict[str, dict[str, Any]] = {}  # key -> first body
        self.arrivals: Counter[str] = Counter()
        self.bad_signatures = 0
        self.status = status
        self.lock = threading.Lock()
        #: called with the key of each good arrival, before the answer is sent
        self.on_arrival: Any = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                secret = receiver.secrets.get(self.path, "")
                good = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
                key = self.headers.get("X-Arbiter-Delivery", "")
                with receiver.lock:
                    if not hmac.compare_digest(good, self.headers.get("X-Arbiter-Signature", "")):
                        receiver.bad_signatures += 1
                        status = 401
                    else:
                        receiver.arrivals[key] += 1
                        receiver.bodies.setdefault(key, dict(json.loads(body), path=self.path))
                        status = receiver.status
                if status != 401 and receiver.on_arrival is not None:
                    receiver.on_arrival(key)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [b for b in self.bodies.values() if b["path"] == path]


class PushReceiver(_Served):
    """A stand-in push service (RFC 8030) on 127.0.0.1, and the browsers subscribed to it: each
    :meth:`subscribe` makes a browser's P-256 key pair and auth secret, as ``PushManager.subscribe``
    does, and returns its PushSubscription JSON.  Each push that arrives is checked as a push
    service and the browser would: ``Content-Encoding: aes128gcm``, a ``TTL``, ``Authorization:
    vapid t=<JWT>,k=<key>`` whose ES256 signature verifies under ``k`` for this origin, then the
    body is decrypted with that browser's private key and auth secret (http_ece).  ``statuses``:
    the answer per path (201 by default; 410 says the subscription is gone)."""

    def __init__(self) -> None:
        self.devices: dict[str, tuple[Any, bytes]] = {}  # path -> (private key, auth secret)
        self.statuses: dict[str, int] = {}
        self.received: list[dict[str, Any]] = []  # {path, payload, headers, at, vapid_key}
        self.refused: list[str] = []  # why a push was not taken
        self.lock = threading.Lock()
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                import time

                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    payload, key = receiver._open(self.path, dict(self.headers), body)
                except Exception as exc:  # noqa: BLE001 - a bad push: say why, answer 400
                    with receiver.lock:
                        receiver.refused.append(f"{self.path}: {type(exc).__name__}: {exc}")
                    status = 400
                else:
                    with receiver.lock:
                        receiver.received.append(
                            {
                                "path": self.path,
                                "payload": payload,
                                "headers": dict(self.headers),
                                "at": time.monotonic(),
                                "vapid_key": key,
                            }
                        )
                    status = receiver.statuses.get(self.path, 201)
                    receiver.arrived.set()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def subscribe(self, path: str) -> dict[str, Any]:
        """A new browser's PushSubscription JSON for the endpoint ``path`` on this service."""
        import os

        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        from service.domain.push import b64url

        private = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        self.devices[path] = (private, auth)
        point = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.origin + path,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(auth)},
        }

    def _open(self, path: str, headers: dict[str, str], body: bytes) -> tuple[Any, str]:
        import base64

        import http_ece
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

        def unb64(text: str) -> bytes:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

        lower = {k.lower(): v for k, v in headers.items()}
        assert lower.get("content-encoding") == "aes128gcm", lower.get("content-encoding")
        assert int(lower["ttl"]) > 0, lower.get("ttl")
        scheme, _, params = lower["authorization"].partition(" ")
        assert scheme == "vapid", scheme
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        token, key = fields["t"], fields["k"]
        signed, _, signature = token.rpartition(".")
        claims = json.loads(unb64(signed.split(".")[1]))
        assert claims["aud"] == self.origin, claims
        assert claims["sub"].startswith(("mailto:", "https://")), claims
        raw = unb64(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
        public.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
        private, auth = self.devices[path]
        plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
        return json.loads(plain), key

    def at(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.received if r["path"] == path]
