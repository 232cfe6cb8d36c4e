"""The client's address is the peer's unless ``ARBITER_PROXY_HOPS`` says a proxy stands in front
(issue 44, finding 7).  A real ``arbiter serve``: uvicorn read ``X-Forwarded-For`` from any client
on 127.0.0.1 whatever the setting, so an address held after 20 wrong passwords signed in by
sending another ``X-Forwarded-For``, and password resets went past their hourly limit the same
way, and the live streams' limit per client.  Flask's test client never showed it (uvicorn is not
in it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.api.headers import client_address
from service.application import password_resets, throttle
from tests.e2e.test_server_process import Server
from tests.e2e.test_streams_load import PASSWORD, RawStream, new_game, serve, sign_up


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    srv = serve(
        tmp_path,
        ARBITER_PROXY_HOPS=str(request.param),
        ARBITER_STREAMS_PER_CLIENT="2",
        ARBITER_SIGNUPS_PER_HOUR="3",
    )
    srv.start()
    yield srv
    srv.stop()


def sign_in(server: Server, username: str, password: str, forwarded: str) -> int:
    r = requests.post(
        server.url + "/api/tokens",
        json={"username": username, "password": password},
        headers={"X-Forwarded-For": forwarded},
        timeout=30,
    )
    return r.status_code


def ask_reset(server: Server, forwarded: str) -> requests.Response:
    return requests.post(
        server.url + "/api/password-resets",
        json={"account": "nobody-at-all"},
        headers={"X-Forwarded-For": forwarded, "X-Forwarded-Proto": "https"},
        timeout=30,
    )


def register(server: Server, username: str, forwarded: str) -> int:
    r = requests.post(
        server.url + "/api/users",
        json={"username": username, "password": PASSWORD},
        headers={"X-Forwarded-For": forwarded},
        timeout=30,
    )
    return r.status_code


def hold(server: Server, forwarded: str) -> None:
    """Wrong passwords (for as many names: no account is held) and reset requests from one
    client up to their limits."""
    for i in range(throttle.PER_ADDRESS):
        assert sign_in(server, f"nobody{i}", "guess-guess", forwarded) == 401
    for _ in range(password_resets.PER_ADDRESS):
        assert ask_reset(server, forwarded).status_code == 202


@pytest.mark.parametrize("served", [0], indirect=True)
def test_without_a_proxy_another_x_forwarded_for_escapes_no_limit(served: Server) -> None:
    game = new_game(served, sign_up(served, "alice", "bob"))
    hold(served, "203.0.113.1")
    assert sign_in(served, "alice", PASSWORD, "203.0.113.2") == 429
    assert sign_in(served, "alice", PASSWORD, "") == 429
    r = ask_reset(served, "203.0.113.3")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "account" in r.json()["details"]
    assert register(served, "carol", "203.0.113.7") == 201  # the third from 127.0.0.1
    assert register(served, "dave", "203.0.113.8") == 429
    path = f"/api/games/{game}/stream?window=600"
    streams = [RawStream(served, path, X_Forwarded_For=f"203.0.113.{i}") for i in (4, 5, 6)]
    assert [s.status() for s in streams] == [200, 200, 429]  # all three from 127.0.0.1
    for s in streams:
        s.close()


@pytest.mark.parametrize("served", [1], indirect=True)
def test_behind_one_proxy_the_client_is_the_address_it_appended(served: Server) -> None:
    game = new_game(served, sign_up(served, "alice", "bob"))
    hold(served, "203.0.113.1")
    # the proxy appends the address it saw; whatever the client wrote before it is not believed
    assert sign_in(served, "alice", PASSWORD, "198.51.100.7, 203.0.113.1") == 429
    assert ask_reset(served, "198.51.100.7, 203.0.113.1").status_code == 429
    assert sign_in(served, "alice", PASSWORD, "203.0.113.1, 198.51.100.7") == 201
    assert ask_reset(served, "198.51.100.7").status_code == 202
    assert [register(served, f"member{i}", "203.0.113.1") for i in range(4)] == [201] * 3 + [429]
    assert register(served, "member3", "203.0.113.1, 198.51.100.7") == 201
    path = f"/api/games/{game}/stream?window=600"
    streams = [RawStream(served, path, X_Forwarded_For=f"203.0.113.{i}") for i in (1, 1, 1, 2)]
    assert [s.status() for s in streams] == [200, 200, 429, 200]  # counted per client
    for s in streams:
        s.close()


def test_the_client_address_is_the_peers_unless_hops_name_proxies() -> None:
    environ = {
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_X_FORWARDED_FOR": "192.0.2.1, 198.51.100.2, 203.0.113.3",
    }
    seen = {hops: client_address(environ, hops) for hops in (0, 1, 2, 3, 4)}
    assert seen == {
        0: "127.0.0.1",
        1: "203.0.113.3",
        2: "198.51.100.2",
        3: "192.0.2.1",
        4: "127.0.0.1",  # fewer entries than proxies: none is believed
    }
    assert environ["REMOTE_ADDR"] == "127.0.0.1"  # read, not changed
