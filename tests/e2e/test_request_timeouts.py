"""Half-sent requests are timed out (issue 34, finding 7): before, a client that sent part of a
request and then nothing held its connection open as long as it liked (45 s in the issue).  A real
``arbiter serve`` with ``ARBITER_HEADER_TIMEOUT=1`` and ``ARBITER_BODY_TIMEOUT=1``: a stalled
request line or body is answered 408 (the API's JSON error) and disconnected; a body sent in
steady parts and ordinary requests are served."""

from __future__ import annotations

import contextlib
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


def test_blank_lines_after_an_answer_do_not_hold_the_connection(server: Server) -> None:
    """uvicorn stops its keep-alive timer on any bytes and the parser skips blank lines between
    requests without a callback: before, "\r\n" after an answer held the connection for good."""
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    started = time.monotonic()
    try:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: arbiter\r\n\r\n")
        answer = conn.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        for _ in range(3):
            conn.sendall(b"\r\n")
            time.sleep(TIMEOUT / 4)
        while conn.recv(65536):  # until the server closes (or 10 s: the test fails)
            pass
    finally:
        conn.close()
    assert time.monotonic() - started < TIMEOUT + 4


def test_slow_chunked_bodies_hold_no_request_thread(server: Server) -> None:
    """A chunked body is read on the event loop, not by a request thread: 40 connections
    trickling chunked bodies (more than the 32 request threads) leave the API answering.
    (It held before too, but only because Flask read a chunked body as empty: see below.)"""
    stalled_conns = []
    try:
        for _ in range(40):
            conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            conn.sendall(
                b"POST /api/users HTTP/1.1\r\nHost: arbiter\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"1\r\n{\r\n"
            )
            stalled_conns.append(conn)
        started = time.monotonic()
        r = requests.get(f"{server.url}/api/systems", timeout=5)
        assert r.status_code == 200
        assert time.monotonic() - started < TIMEOUT  # answered while all 40 still wait
    finally:
        for conn in stalled_conns:
            conn.close()


def test_a_chunked_body_is_served_and_one_too_large_refused(server: Server) -> None:
    """Before, a chunked body reached the app as empty (Werkzeug reads no body of unknown
    length) and the request was refused as if nothing had been sent."""
    body = json.dumps({"username": "chunky", "password": "correct horse battery"}).encode()

    def chunks(data: bytes, size: int) -> bytes:
        parts = [data[i : i + size] for i in range(0, len(data), size)]
        return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"

    head = (
        b"POST /api/users HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    answer, _ = stalled(server, head + chunks(body, 10))
    assert answer.startswith(b"HTTP/1.1 201"), answer
    big = b'{"username": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    answer = b""
    try:
        with contextlib.suppress(OSError):  # the server may stop reading once it has answered
            conn.sendall(head + chunks(big, 65536))
        with contextlib.suppress(OSError):
            while chunk := conn.recv(65536):
                answer += chunk
    finally:
        conn.close()
    status, _, rest = answer.partition(b"\r\n")
    assert status.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"too_large"' in rest


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
