"""200 live streams against a real `arbiter serve` (one worker): health, sign-in and commands still
answer fast while they are open, every stream hears of each move, and the server is at once free
again when the clients go (issue 14, item 8: 32 streams used to freeze the server)."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.test_server_process import Server

PASSWORD = "correct horse"
STREAMS = 200
SLOW = 2.0  # no request may take this long; the p95 must stay under P95


P95 = 0.5


def serve(tmp_path: Path, **settings: str) -> Server:
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env.update(
        ARBITER_VAR=str(tmp_path / "var"),
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        ARBITER_STORE="sqlite",
        **settings,
    )
    return Server(env)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = serve(
        tmp_path, ARBITER_STREAMS_PER_CLIENT=str(STREAMS + 50), ARBITER_STREAMS_MAX=str(STREAMS)
    )
    srv.start()
    yield srv
    srv.stop()


def sign_up(server: Server, *names: str) -> dict[str, dict[str, str]]:
    auth = {}
    for name in names:
        r = requests.post(f"{server.url}/api/users", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        r = requests.post(f"{server.url}/api/tokens", json={"username": name, "password": PASSWORD})
        auth[name] = {"Authorization": f"Bearer {r.json()['token']}"}
    return auth


def new_game(server: Server, auth: dict[str, dict[str, str]]) -> str:
    r = requests.post(
        f"{server.url}/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "bob"},
            "options": {"turns": 8},
            "public": True,  # its streams are opened by spectators (signed out) too
        },
        headers=auth["alice"],
    )
    assert r.status_code == 201, r.text
    game = str(r.json()["id"])
    accepted = requests.post(f"{server.url}/api/games/{game}/accept", headers=auth["bob"])
    assert accepted.status_code == 200, accepted.text  # bob accepts: play starts
    return game


class RawStream:
    """One SSE connection on a plain socket (cheap enough to hold hundreds), from ``source``."""

    def __init__(
        self, server: Server, path: str, source: str = "127.0.0.1", **headers: str
    ) -> None:
        """``headers``: more request headers, ``X_Forwarded_For="..."`` for ``X-Forwarded-For``."""
        self.sock = socket.create_connection(
            ("127.0.0.1", server.port), timeout=SLOW, source_address=(source, 0)
        )
        more = "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in headers.items())
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{more}\r\n".encode())
        self.data = b""

    def read_until(self, marker: bytes, timeout: float = SLOW) -> bytes:
        deadline = time.monotonic() + timeout
        while marker not in self.data and time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            self.data += chunk
        return self.data

    def status(self) -> int:
        head = self.read_until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 "), f"no response: {head!r}"
        return int(head.split(b" ", 2)[1])

    def json_body(self) -> dict[str, Any]:
        self.read_until(b"}\n", timeout=SLOW)
        body = self.data.split(b"\r\n\r\n", 1)[1]
        start = body.index(b"{")
        return json.loads(body[start : body.rindex(b"}") + 1])

    def close(self) -> None:
        self.sock.close()


def timed(call: Callable[[], requests.Response], expect: int) -> float:
    start = time.monotonic()
    try:
        r = call()
    except requests.Timeout:
        pytest.fail(f"a request took more than {SLOW} s while streams were open")
    elapsed = time.monotonic() - start
    assert r.status_code == expect, r.text
    return elapsed


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def open_streams(server: Server, game: str, count: int) -> list[RawStream]:
    return [RawStream(server, f"/api/games/{game}/stream?window=600") for _ in range(count)]


def test_200_open_streams_leave_the_server_responsive(server: Server) -> None:
    auth = sign_up(server, "alice", "bob", "carol")  # carol signs in again and again
    game = new_game(server, auth)
    url = server.url
    streams = open_streams(server, game, STREAMS)
    try:
        time.sleep(0.5)  # let the server take every connection
        health, sign_in, commands = [], [], []
        version = requests.get(f"{url}/api/games/{game}", timeout=SLOW).json()["version"]
        for i in range(20):
            health.append(timed(lambda: requests.get(f"{url}/healthz", timeout=SLOW), 200))
            sign_in.append(
                timed(
                    lambda: requests.post(
                        f"{url}/api/tokens",
                        json={"username": "carol", "password": PASSWORD},
                        timeout=SLOW,
                    ),
                    201,
                )
            )
            user = "alice" if (i // 2) % 2 == 0 else "bob"
            body = {"expected_version": version, "command": {"type": "end_phase"}}
            start = time.monotonic()
            r = requests.post(
                f"{url}/api/games/{game}/commands", json=body, headers=auth[user], timeout=SLOW
            )
            commands.append(time.monotonic() - start)
            assert r.status_code == 201, r.text
            version = r.json()["version"]
        figures = {name: p95(s) for name, s in (("health", health), ("sign_in", sign_in))}
        figures["commands"] = p95(commands)
        print(f"p95 with {STREAMS} open streams: {figures}")
        assert all(value < P95 for value in figures.values()), figures

        # every stream is live and heard of the last move
        assert all(s.status() == 200 for s in streams)
        marker = f"id: {version}\n".encode()
        assert all(marker in s.read_until(marker) for s in streams)

        # beyond the limit: a JSON 503 with a retry hint
        extra = RawStream(server, f"/api/games/{game}/stream?window=600")
        assert extra.status() == 503
        assert b"retry-after" in extra.data.lower()
        assert extra.json_body()["error"] == "too_many_streams"
        extra.close()
    finally:
        for s in streams:
            s.close()

    # the clients are gone: the server is free at once, and every stream's slot with it (the
    # middle of five answers: one answer alone is the machine's noise as much as the server's)
    after = sorted(
        timed(lambda: requests.get(f"{url}/healthz", timeout=SLOW), 200) for _ in range(5)
    )
    assert after[2] < P95, after
    deadline = time.monotonic() + 1.0
    while True:
        probe = RawStream(server, f"/api/games/{game}/stream?window=600")
        ok = probe.status() == 200
        probe.close()
        if ok or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert ok, "the slots of the closed streams were not freed within a second"
    again = open_streams(server, game, STREAMS - 1)
    try:
        assert all(s.status() == 200 for s in again)
    finally:
        for s in again:
            s.close()
