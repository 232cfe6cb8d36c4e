"""The async live streams of a real `arbiter serve`: the limits answer as documented (429 per
client, 503 in all, JSON with a retry hint), a stream's slot is freed the moment its client goes,
and every stream behaviour of the WSGI path holds (checks and errors of the Flask view, moves
announced with their version as the event id, Last-Event-ID catch-up, the window, the ladder
stream, and polling the store when Redis is down)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e.test_server_process import Server
from tests.e2e.test_streams_load import RawStream, new_game, serve, sign_up
from tests.e2e.test_workers import SseClient

DEAD_REDIS = "redis://127.0.0.1:6399/0"  # nothing listens there


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Server]:
    srv = serve(tmp_path, ARBITER_STREAMS_PER_CLIENT="2", ARBITER_STREAMS_MAX="3")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = serve(tmp_path_factory.mktemp("streams"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def accounts(server: Server) -> dict[str, dict[str, str]]:
    return sign_up(server, "alice", "bob")


def end_phase(server: Server, game: str, auth: dict[str, str]) -> int:
    version = requests.get(f"{server.url}/api/games/{game}", timeout=5).json()["version"]
    r = requests.post(
        f"{server.url}/api/games/{game}/commands",
        json={"expected_version": version, "command": {"type": "end_phase"}},
        headers=auth,
        timeout=5,
    )
    assert r.status_code == 201, r.text
    return int(r.json()["version"])


def test_limits_per_client_and_in_all(limited: Server) -> None:
    game = new_game(limited, sign_up(limited, "alice", "bob"))
    path = f"/api/games/{game}/stream?window=600"
    first = [RawStream(limited, path) for _ in range(2)]
    assert [s.status() for s in first] == [200, 200]

    third = RawStream(limited, path)  # a third from the same address
    assert third.status() == 429
    assert b"retry-after: 5" in third.data.lower()
    body = third.json_body()
    assert body["error"] == "too_many_streams" and body["details"] == {
        "client": ["at most 2 live streams per client"]
    }
    third.close()

    other = RawStream(limited, path, source="127.0.0.2")  # another client: the third in all
    assert other.status() == 200
    fourth = RawStream(limited, path, source="127.0.0.3")
    assert fourth.status() == 503
    assert fourth.json_body()["details"] == {"server": ["the server holds its 3 live streams"]}
    fourth.close()

    # other requests are not limited; a client that goes frees its slot at once
    assert requests.get(f"{limited.url}/healthz", timeout=2).status_code == 200
    first[0].close()
    deadline = time.monotonic() + 1.0
    while True:
        again = RawStream(limited, path, source="127.0.0.3")
        status = again.status()
        if status == 200 or time.monotonic() > deadline:
            break
        again.close()
        time.sleep(0.05)
    assert status == 200, "a closed stream's slot was not freed within a second"
    for s in (*first[1:], other, again):
        s.close()


def test_the_flask_view_still_checks_every_stream(
    server: Server, accounts: dict[str, dict[str, str]]
) -> None:
    url = server.url
    r = requests.get(f"{url}/api/games/00000000-0000-0000-0000-000000000000/stream", timeout=5)
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    game = new_game(server, accounts)
    r = requests.get(f"{url}/api/games/{game}/stream?window=601", timeout=5)
    assert r.status_code == 400 and r.json()["details"] == {"window": ["1 to 600 seconds"]}
    r = requests.get(f"{url}/api/ladders/no-such-ladder/stream", timeout=5)
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_a_move_is_announced_and_a_reconnect_catches_up(
    server: Server, accounts: dict[str, dict[str, str]]
) -> None:
    game, auth = new_game(server, accounts), accounts
    client = SseClient(f"{server.url}/api/games/{game}/stream?window=5")
    time.sleep(0.3)
    version = end_phase(server, game, auth["alice"])
    assert client.wait_for("game", lambda d: d["version"] == version)["game"] == game

    # a reconnect with Last-Event-ID hears at once of what it missed
    version = end_phase(server, game, auth["alice"])
    start = time.monotonic()
    r = requests.get(
        f"{server.url}/api/games/{game}/stream?window=1",
        headers={"Last-Event-ID": str(version - 1)},
        stream=True,
        timeout=5,
    )
    body = b"".join(r.iter_content(None)).decode()  # the window ends the stream by itself
    assert f"id: {version}\nevent: game\n" in body and "retry: 2000" in body
    assert 0.9 < time.monotonic() - start < 4


def test_the_ladder_stream_is_served_async(
    server: Server, accounts: dict[str, dict[str, str]]
) -> None:
    auth = accounts
    club = requests.post(
        f"{server.url}/api/clubs", json={"name": "Async"}, headers=auth["alice"], timeout=5
    ).json()["id"]
    r = requests.post(
        f"{server.url}/api/clubs/{club}/ladders",
        json={"name": "Mill", "system": "skirmish", "scenario": "meeting"},
        headers=auth["alice"],
        timeout=5,
    )
    assert r.status_code == 201, r.text
    r = requests.get(f"{server.url}/api/ladders/{r.json()['id']}/stream?window=1", timeout=5)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.text.startswith("retry: 2000")


def test_with_redis_down_the_stream_polls_the_store(tmp_path: Path) -> None:
    srv = serve(tmp_path, REDIS_URL=DEAD_REDIS)
    srv.start()
    try:
        auth = sign_up(srv, "alice", "bob")
        game = new_game(srv, auth)
        client = SseClient(f"{srv.url}/api/games/{game}/stream?window=10")
        assert client.wait_for("degraded")["reason"]
        version = end_phase(srv, game, auth["alice"])  # the command stands without Redis
        assert client.wait_for("game", lambda d: d["version"] == version)
    finally:
        srv.stop()
