"""Two real `arbiter serve` workers on one fresh PostgreSQL database and one Redis: an event made
through one worker reaches a server-sent-events client of the other (a game move, then the ladder's
standings when the game ends and when a face-to-face result is confirmed)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.test_server_process import Server
from tests.support.services import PG, postgres_database, redis_url

PASSWORD = "correct horse"


class SseClient:
    """Reads an SSE response in a thread and keeps every message."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.messages: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._response = requests.get(url, stream=True, timeout=30, headers=headers)
        assert self._response.status_code == 200
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._lines()
        except (requests.RequestException, AttributeError):
            return  # the stream was closed (requests drops its raw stream on close)

    def _lines(self) -> None:
        fields: dict[str, str] = {}
        for line in self._response.iter_lines(decode_unicode=True):
            if line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
                continue
            if "event" in fields:
                with self._changed:
                    self.messages.append(
                        {"event": fields["event"], "data": json.loads(fields.get("data", "null"))}
                    )
                    self._changed.notify_all()
            fields = {}

    def wait_for(self, event: str, test: Any = lambda d: True, timeout: float = 15) -> dict:
        def found() -> dict | None:
            return next(
                (m["data"] for m in self.messages if m["event"] == event and test(m["data"])), None
            )

        with self._changed:
            self._changed.wait_for(lambda: found() is not None, timeout=timeout)
        got = found()
        assert got is not None, f"no {event} within {timeout}s: {self.messages}"
        return got


@pytest.fixture
def workers(tmp_path: Any) -> Iterator[tuple[Server, Server]]:
    url = redis_url()
    with postgres_database() as dbname:
        env = dict(os.environ)
        env.update(
            ARBITER_VAR=str(tmp_path / "var"),
            ARBITER_PLUGINS="tests.fixtures.skirmish",
            ARBITER_SECRET_KEY="two-workers",
            ARBITER_STORE="postgres",
            POSTGRES_DBNAME=dbname,
            POSTGRES_HOST=PG["host"],
            POSTGRES_PORT=str(PG["port"]),
            POSTGRES_USER=PG["user"],
            REDIS_URL=url,
        )
        a, b = Server(env), Server(env)
        a.start()  # one after the other: the first creates the tables
        b.start()
        try:
            yield a, b
        finally:
            a.stop()
            b.stop()


def test_an_event_made_through_one_worker_reaches_a_client_of_the_other(
    workers: tuple[Server, Server],
) -> None:
    a, b = workers
    for server in (a, b):
        health = requests.get(server.url + "/healthz").json()
        assert (
            health["store"]["kind"] == "postgres"
            and health["live"] == "redis"
            and health["live_ok"]
        )
    auth = {}
    for name in ("ann", "bob", "cat"):
        r = requests.post(a.url + "/api/users", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        token = requests.post(b.url + "/api/tokens", json={"username": name, "password": PASSWORD})
        auth[name] = {"Authorization": f"Bearer {token.json()['token']}"}
    club = requests.post(a.url + "/api/clubs", json={"name": "Two Workers"}, headers=auth["ann"])
    club_id = club.json()["id"]
    for name in ("bob", "cat"):
        r = requests.post(
            f"{b.url}/api/clubs/{club_id}/members", json={"username": name}, headers=auth["ann"]
        )
        assert r.status_code == 201, r.text
        r = requests.post(  # invited: they accept, through the other worker
            f"{a.url}/api/clubs/{club_id}/invitation", json={"accept": True}, headers=auth[name]
        )
        assert r.status_code == 200, r.text
    r = requests.post(
        f"{a.url}/api/clubs/{club_id}/ladders",
        json={"name": "Mill", "system": "skirmish", "scenario": "meeting"},
        headers=auth["ann"],
    )
    ladder = r.json()["id"]
    for name, server in (("ann", a), ("bob", b), ("cat", a)):
        r = requests.post(f"{server.url}/api/ladders/{ladder}/players", headers=auth[name])
        assert r.status_code == 201, r.text

    ranks = [
        row["username"]
        for row in requests.get(f"{b.url}/api/ladders/{ladder}/standings").json()["standings"]
    ]
    low, above = ranks[-1], ranks[-2]
    r = requests.post(
        f"{a.url}/api/ladders/{ladder}/challenges",
        json={"opponent": above, "side": "red", "options": {"turns": 1}},
        headers=auth[low],
    )
    assert r.status_code == 201, r.text
    accepted = requests.post(f"{a.url}/api/challenges/{r.json()['id']}/accept", headers=auth[above])
    game = accepted.json()["game"]

    # a ladder game: its club's members read it (ann organises, plays no side)
    game_client = SseClient(f"{b.url}/api/games/{game}/stream?window=30", auth["ann"])
    ladder_client = SseClient(f"{b.url}/api/ladders/{ladder}/stream?window=30")
    time.sleep(0.5)  # let B's subscriptions reach Redis

    def command(user: str, body: dict[str, Any]) -> None:
        version = requests.get(f"{a.url}/api/games/{game}", headers=auth[user]).json()["version"]
        r = requests.post(
            f"{a.url}/api/games/{game}/commands",
            json={"expected_version": version, "command": body},
            headers=auth[user],
        )
        assert r.status_code == 201, r.text

    start = requests.get(f"{a.url}/api/games/{game}", headers=auth["ann"]).json()["version"]
    command(low, {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    assert game_client.wait_for("game")["version"] > start  # made through A, seen by B's client
    for user in (low, low, above, above):
        command(user, {"type": "end_phase"})
    assert game_client.wait_for("game", lambda d: d["status"] == "ended")
    ended = ladder_client.wait_for("standings", lambda d: d["results"] == 1)
    assert ended["top"][0]["username"] == low

    third = next(n for n in ("ann", "bob", "cat") if n not in (low, above))
    r = requests.post(
        f"{a.url}/api/ladders/{ladder}/reports",
        json={"sides": {"red": third, "blue": low}, "winner": "red", "level": "decisive"},
        headers=auth[third],
    )
    requests.post(f"{a.url}/api/reports/{r.json()['id']}/confirm", headers=auth[low])
    confirmed = ladder_client.wait_for("standings", lambda d: d["results"] == 2)
    assert third in confirmed["changed"] and low in confirmed["changed"]
    from_a = requests.get(f"{a.url}/api/ladders/{ladder}/standings").json()
    from_b = requests.get(f"{b.url}/api/ladders/{ladder}/standings").json()
    assert from_a["source"] == from_b["source"] == "redis"
    assert from_a["standings"] == from_b["standings"]
    assert sum(row["games"] for row in from_a["standings"]) == 4  # the game's result counted once
    # the streams end when the workers stop (the readers are daemon threads)
