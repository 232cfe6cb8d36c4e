"""PostgreSQL taken away (issue 14, item 4): requests answer 503 within a couple of seconds with a
clear JSON error, ``/healthz`` says the store is down, and service resumes by itself when the
database is back.  The database is reached through a TCP proxy the test stops and starts again."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.app import create_app
from service.bootstrap import migrate
from service.config import Config
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.services import PG, postgres_database
from tests.support.tcp_proxy import TcpProxy

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow(
        "PostgreSQL taken away and given back through a TCP proxy, waiting for the time-outs"
    ),
]

SIDES = {"red": "alice", "blue": "bob"}
UNAVAILABLE = {
    "error": "unavailable",
    "message": "the game store is not reachable; try again shortly",
}
#: seconds: "within a couple of seconds" (2 s pool wait, 0.2 s retry) with room for a loaded CI
#: machine (3.0 s was exceeded once by a command there), against the 30 s a hung request takes
FAST = 4.0


def behind_a_proxy(tmp_path: Path, index_template: Path, dbname: str) -> tuple[TcpProxy, Config]:
    """A migrated database ``dbname`` reached through a started TCP proxy, and its config."""
    proxy = TcpProxy(PG["port"], PG["host"])
    proxy.start()
    config = make_config(
        tmp_path,
        store="postgres",
        postgres_dbname=dbname,
        postgres_host="127.0.0.1",
        postgres_port=proxy.port,
        postgres_user=PG["user"],
    )
    shutil.copytree(index_template, config.index_dir)
    migrate(config)
    return proxy, config


@pytest.fixture
def outage(tmp_path: Path, index_template: Path) -> Iterator[tuple[TcpProxy, Flask]]:
    with postgres_database() as dbname:
        proxy, config = behind_a_proxy(tmp_path, index_template, dbname)
        app = create_app(config)
        try:
            yield proxy, app
        finally:
            proxy.stop()
            app.extensions["arbiter"].close()


def timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def test_requests_answer_503_fast_while_the_store_is_down_and_recover(
    outage: tuple[TcpProxy, Flask],
) -> None:
    proxy, app = outage
    api = ApiHelper(app.test_client())
    game = api.create_game("skirmish", "meeting", SIDES)
    assert api.client.get("/healthz").get_json()["store"]["ok"] is True

    proxy.stop()
    for request in (
        lambda: api.client.post(
            "/api/users", json={"username": "carol", "password": "pw-pw-pw-pw"}
        ),
        lambda: api.client.get(f"/api/games/{game['id']}/events", headers=api.user("alice")),
        lambda: api.command(game["id"], "alice", {"type": "end_phase"}, expected_version=1),
        lambda: api.client.get("/api/games"),
    ):
        r, took = timed(request)
        assert r.status_code == 503, (r.status_code, r.get_json())
        assert took < FAST, f"{r.request.path} took {took:.1f}s"
        body = r.get_json()
        assert {k: body[k] for k in UNAVAILABLE} == UNAVAILABLE and "details" in body

    r, took = timed(lambda: api.client.get("/healthz"))
    assert r.status_code == 503 and took < FAST
    health = r.get_json()
    assert health["status"] == "down" and health["store"]["ok"] is False
    assert health["store"]["error"] == UNAVAILABLE["message"]
    assert str(proxy.port) not in r.get_data(as_text=True)  # the reason is logged, not shown

    proxy.start()
    deadline = time.monotonic() + 20
    while (r := api.client.get("/healthz")).status_code != 200:
        assert time.monotonic() < deadline, f"no recovery: {r.get_json()}"
        time.sleep(0.2)
    assert r.get_json()["status"] == "ok"
    version = api.game(game["id"])["version"]
    r = api.command(game["id"], "alice", {"type": "end_phase"}, expected_version=version)
    assert r.status_code == 201, r.get_json()


def test_a_long_outage_never_holds_a_request(outage: tuple[TcpProxy, Flask]) -> None:
    """The issue's 75 s outage held requests up to 120 s: here every request of a 12 s outage
    answers 503 fast, and the first requests after it succeed without a restart."""
    proxy, app = outage
    api = ApiHelper(app.test_client())
    game = api.create_game("skirmish", "meeting", SIDES)
    alice = api.user("alice")  # a player: the game is private
    proxy.stop()
    ends = time.monotonic() + 12
    slowest = 0.0
    while time.monotonic() < ends:
        r, took = timed(lambda: api.client.get(f"/api/games/{game['id']}/events", headers=alice))
        assert r.status_code == 503, r.get_json()
        slowest = max(slowest, took)
    assert slowest < FAST, f"slowest 503 took {slowest:.1f}s"
    proxy.start()
    deadline = time.monotonic() + 15
    while (
        r := api.client.get(f"/api/games/{game['id']}/events", headers=alice)
    ).status_code != 200:
        assert r.status_code == 503, r.get_json()
        assert time.monotonic() < deadline, "no recovery after the outage"
        time.sleep(0.2)


def test_a_worker_that_starts_while_the_store_is_down_boots_and_recovers(
    tmp_path: Path, index_template: Path
) -> None:
    """gunicorn stops every worker when one fails to boot: a worker (re)started during an outage
    must come up, answer 503, and serve once the database is back -- the notification process's
    store included (it opens its own PostgreSQL recorder)."""
    with postgres_database() as dbname:
        proxy, config = behind_a_proxy(tmp_path, index_template, dbname)
        proxy.stop()
        app = create_app(config)  # the database is unreachable while the worker starts
        try:
            client = app.test_client()
            response, took = timed(
                lambda: client.post("/api/users", json={"username": "dora", "password": "pw-pw-pw"})
            )
            assert response.status_code == 503 and took < FAST
            assert response.get_json()["error"] == "unavailable"
            proxy.start()
            r = client.post("/api/users", json={"username": "dora", "password": "pw-pw-pw"})
            assert r.status_code == 201, r.get_json()
            assert client.get("/api/me/notifications").status_code == 401  # the route is alive
        finally:
            proxy.stop()
            app.extensions["arbiter"].close()
