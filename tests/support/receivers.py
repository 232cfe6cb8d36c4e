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
from typing import Any


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


class HookReceiver:
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

    def __enter__(self) -> HookReceiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def at(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [b for b in self.bodies.values() if b["path"] == path]
