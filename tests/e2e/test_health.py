"""``/healthz`` of real servers (issue 14, item 4): it reports the store, Redis and the worker, says
"down" with a 503 while PostgreSQL is unreachable (it said "ok" throughout), and "ok" again once
the database is back -- without restarting anything."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.bootstrap import migrate
from service.config import Config
from tests.e2e.test_server_process import Server
from tests.integration.test_migrate import gunicorn, pg_env, stop
from tests.support.services import PG, postgres_database
from tests.support.tcp_proxy import TcpProxy, free_port

pytestmark = pytest.mark.postgres

DEAD_REDIS = "redis://127.0.0.1:1/0"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """`arbiter serve` as `make run` starts it: SQLite, no Redis."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(ARBITER_VAR=str(tmp_path / "var"), ARBITER_STORE="sqlite")
    srv = Server(env)
    srv.start()
    yield srv
    srv.stop()


def test_healthz_of_the_default_server_reports_store_redis_and_worker(
    server: Server,
) -> None:
    r = requests.get(server.url + "/healthz", timeout=5)
    assert r.status_code == 200
    health = r.json()
    assert health["status"] == "ok"
    assert health["store"]["kind"] == "sqlite" and health["store"]["ok"] is True
    assert health["store"]["ms"] >= 0
    assert health["redis"] == {"configured": False, "ok": True}
    worker = health["worker"]
    assert worker["pid"] > 0 and worker["threads"] >= 1 and worker["uptime_s"] >= 0


@pytest.fixture
def workers_behind_a_proxy(tmp_path: Path) -> Iterator[tuple[TcpProxy, str]]:
    """The README's gunicorn command (2 workers here) on PostgreSQL through a proxy, with a Redis
    that is not there."""
    with postgres_database() as dbname:
        proxy = TcpProxy(PG["port"], PG["host"])
        proxy.start()
        env = pg_env(tmp_path, dbname)
        env.update(POSTGRES_PORT=str(proxy.port), REDIS_URL=DEAD_REDIS)
        migrate(Config.from_env(env))
        port = free_port()
        proc = gunicorn(env, port, workers=2)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url, lambda r: r.status_code == 200, 40)
            yield proxy, url
        finally:
            stop(proc)
            proxy.stop()


def wait_for(url: str, test: object, timeout: float) -> requests.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            r = requests.get(url + "/healthz", timeout=5)
            if test(r):  # type: ignore[operator]
                return r
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline, f"/healthz never matched within {timeout}s"
        time.sleep(0.1)


@pytest.mark.slow("PostgreSQL made unreachable, waiting for the time-outs, then given back")
def test_healthz_says_down_while_postgres_is_unreachable_and_ok_when_it_returns(
    workers_behind_a_proxy: tuple[TcpProxy, str],
) -> None:
    proxy, url = workers_behind_a_proxy
    health = requests.get(url + "/healthz", timeout=5).json()
    assert health["status"] == "degraded"  # Redis is configured and not answering
    assert health["store"] == {"kind": "postgres", "ok": True, "ms": health["store"]["ms"]}
    assert health["redis"] == {"configured": True, "ok": False}

    proxy.stop()
    for _ in range(4):  # each worker, whichever answers
        started = time.monotonic()
        r = requests.get(url + "/healthz", timeout=10)
        assert r.status_code == 503 and time.monotonic() - started < 3.0
        assert r.json()["status"] == "down" and r.json()["store"]["ok"] is False
    started = time.monotonic()
    r = requests.post(url + "/api/users", json={"username": "dora", "password": "pw-pw-pw-pw"})
    assert r.status_code == 503 and time.monotonic() - started < 3.0
    assert r.json()["error"] == "unavailable" and r.headers["Retry-After"] == "2"

    proxy.start()
    wait_for(url, lambda r: r.status_code == 200, 20)
    r = requests.post(url + "/api/users", json={"username": "dora", "password": "pw-pw-pw-pw"})
    assert r.status_code == 201, r.text
