"""Half-sent requests are timed out (issue 34, finding 7): before, a client that sent part of a
request and then nothing held its connection open as long as it liked (45 s in the issue).  A real
``arbiter serve`` with ``ARBITER_HEADER_TIMEOUT=1`` and ``ARBITER_BODY_TIMEOUT=1``: a stalled
request line or body is answered 408 (the API's JSON error) and disconnected; a body sent in
steady parts and ordinary requests are served."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from tests.e2e.test_server_process import Server

TIMEOUT = 1.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = dict(os.environ)
    env.update(
        ARBITER_VAR=str(tmp_path_factory.mktemp("timeouts") / "var"),
        ARBITER_STORE="sqlite",
        ARBITER_HEADER_TIMEOUT=str(TIMEOUT),
        ARBITER_BODY_TIMEOUT=str(TIMEOUT),
    )
    env.pop("REDIS_URL", None)
    srv = Server(env)
    srv.start()
    yield srv
    srv.stop()


def stalled(server: Server, sent: bytes) -> tuple[bytes, float]:
    """Send ``sent`` and nothing more: what the server answers before it closes, and when."""
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    started = time.monotonic()
    try:
        conn.sendall(sent)
        answer = b""
        while chunk := conn.recv(65536):  # until the server closes (or 10 s: the test fails)
            answer += chunk
        return answer, time.monotonic() - started
    finally:
        conn.close()


def timed_out(answer: bytes) -> dict[str, object]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer
    return dict(json.loads(body))


def test_a_request_line_without_its_headers_end_is_answered_408_and_closed(server: Server) -> None:
    answer, took = stalled(server, b"GET /api/systems HTTP/1.1\r\nHost: arbiter\r\n")
    assert timed_out(answer)["message"] == "the request was not sent in time"
    assert took < TIMEOUT + 3


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(server: Server) -> None:
    answer, took = stalled(server, b"")
    assert answer == b""  # as nginx does: a browser's unused preconnection is not answered
    assert took < TIMEOUT + 3


def test_a_body_that_stops_is_answered_408_and_closed(server: Server) -> None:
    head = (
        b"POST /api/users HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    answer, took = stalled(server, head + b'{"username": "sl')
    assert timed_out(answer)["error"] == "timeout"
    assert took < TIMEOUT + 3
    # nothing was written: the user does not exist
    r = requests.post(f"{server.url}/api/tokens", json={"username": "sl", "password": "x" * 12})
    assert r.status_code == 401


def test_a_body_sent_in_steady_parts_and_keep_alive_requests_are_served(server: Server) -> None:
    body = json.dumps({"username": "steady", "password": "correct horse battery"}).encode()
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        conn.sendall(
            b"POST /api/users HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
        )
        for start in range(0, len(body), 16):  # each part within the body timeout of the last
            time.sleep(TIMEOUT / 2)
            conn.sendall(body[start : start + 16])
        answer = conn.recv(65536)
        assert answer.startswith(b"HTTP/1.1 201"), answer
    finally:
        conn.close()
    with requests.Session() as session:  # a keep-alive connection, idle between requests
        for _ in range(2):
            assert session.get(f"{server.url}/healthz", timeout=5).ok
            time.sleep(TIMEOUT / 2)
