"""One user signing in (and out) from 96 threads at once, on a real SQLite file and on PostgreSQL:
every sign-in succeeds (tokens are records of their own, so sign-ins never contend for the user's
stream), every sign-out and revocation succeeds, and each token works until it is revoked.  The
cap of live tokens per user (``ARBITER_TOKENS_PER_USER``, 20) is raised past 96 here, so that each
of the 96 stays live until its sign-out; the cap itself: tests/e2e/test_member_limits.py."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any

import pytest
import requests

from service.app import create_app
from service.config import Config
from tests.e2e.test_server_process import Server
from tests.support.api import PASSWORD

#: 96 requests at once against one pool: run with nothing else on the machine (tests/parallel.py)
pytestmark = pytest.mark.alone

THREADS = 96
Reply = tuple[int, Any]


class InProcess:
    """A Flask test client (its own cookie jar) of an app on a real SQLite file."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()

    def call(self, method: str, path: str, **kwargs: Any) -> Reply:
        r = self.client.open(path, method=method, **kwargs)
        return r.status_code, r.get_json(silent=True)


class OverHttp:
    """A ``requests`` session (its own cookie jar) with a real server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.session = requests.Session()
        # a fresh connection per request: an idle kept-alive one may be closed by the server
        # just as the next request goes out, which is no failure of the server's
        self.session.headers["Connection"] = "close"

    def call(self, method: str, path: str, **kwargs: Any) -> Reply:
        r = self.session.request(method, self.url + path, timeout=60, **kwargs)
        return r.status_code, r.json() if r.content else None


def server_env(config: Config) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ARBITER_VAR=str(config.var_dir),
        ARBITER_PLUGINS=",".join(config.plugins),
        ARBITER_SECRET_KEY=config.secret_key,
        ARBITER_STORE="postgres",
        ARBITER_TOKENS_PER_USER=str(config.tokens_per_user),
        POSTGRES_DBNAME=config.postgres_dbname,
        POSTGRES_HOST=config.postgres_host,
        POSTGRES_PORT=str(config.postgres_port),
        POSTGRES_USER=config.postgres_user,
    )
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture
def new_client(
    store_config: Config, index_template: Path
) -> Iterator[Callable[[], InProcess | OverHttp]]:
    """Clients of the store under test, with alice registered: the Flask test client on a real
    SQLite file; on PostgreSQL, two real server processes taken in turn (a server's threads bound
    how many requests it runs at once, as in production)."""
    shutil.copytree(index_template, store_config.index_dir)
    store_config = replace(store_config, tokens_per_user=2 * THREADS)
    if store_config.store == "sqlite":
        app = create_app(store_config)
        make: Callable[[], InProcess | OverHttp] = lambda: InProcess(app)  # noqa: E731
        stop: Callable[[], None] = app.extensions["arbiter"].close
    else:
        servers = [Server(server_env(store_config)) for _ in range(2)]
        for server in servers:
            server.start()
        turn = count()
        make = lambda: OverHttp(servers[next(turn) % 2].url)  # noqa: E731

        def stop() -> None:
            for server in servers:
                server.stop()

    try:
        status, body = make().call("POST", "/api/users", json=CREDENTIALS)
        assert status == 201, body
        yield make
    finally:
        stop()


CREDENTIALS = {"username": "alice", "password": PASSWORD}


def all_at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` for ``i`` in ``range(count)`` from ``count`` threads released together."""
    start = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - a crash is a result the test reports
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def sign_in(make: Callable[[], InProcess | OverHttp], i: int) -> tuple[int, Any, Any]:
    """Half the threads ask for a bearer token, half for a web session."""
    client = make()
    status, body = client.call("POST", "/api/tokens" if i % 2 else "/api/session", json=CREDENTIALS)
    return status, client, body


def bearer(body: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {body['token']}"}


def test_96_concurrent_sign_ins_of_one_user_all_succeed_then_96_concurrent_sign_outs(
    new_client: Callable[[], InProcess | OverHttp],
) -> None:
    signed_in = all_at_once(THREADS, lambda i: sign_in(new_client, i))
    statuses = [r if isinstance(r, Exception) else r[0] for r in signed_in]
    assert statuses == [201] * THREADS, statuses
    tokens = [body for _, _, body in signed_in if "token" in body]
    assert len({body["token"] for body in tokens}) == THREADS // 2
    for _, client, body in signed_in:
        headers = bearer(body) if "token" in body else {}
        assert client.call("GET", "/api/me", headers=headers)[0] == 200
    status, listed = new_client().call("GET", "/api/me/tokens", headers=bearer(tokens[0]))
    assert status == 200, listed
    assert len(listed["tokens"]) == THREADS

    def sign_out(i: int) -> int:
        _, client, body = signed_in[i]
        if "token" in body:  # a bearer token revokes itself
            return client.call("DELETE", "/api/tokens/current", headers=bearer(body))[0]
        return client.call("DELETE", "/api/session", headers={"X-CSRF-Token": body["csrf"]})[0]

    statuses = all_at_once(THREADS, sign_out)
    assert statuses == [204] * THREADS, statuses
    for _, client, body in signed_in:
        headers = bearer(body) if "token" in body else {}
        assert client.call("GET", "/api/me", headers=headers)[0] == 401


def test_revoking_one_token_from_many_threads_at_once_succeeds_every_time(
    new_client: Callable[[], InProcess | OverHttp],
) -> None:
    probe = new_client()
    keeper = probe.call("POST", "/api/tokens", json=CREDENTIALS)[1]
    doomed = probe.call("POST", "/api/tokens", json=CREDENTIALS)[1]

    def revoke(_: int) -> int:
        return new_client().call("DELETE", f"/api/tokens/{doomed['id']}", headers=bearer(keeper))[0]

    assert all_at_once(16, revoke) == [204] * 16
    assert probe.call("GET", "/api/me", headers=bearer(doomed))[0] == 401
    assert probe.call("GET", "/api/me", headers=bearer(keeper))[0] == 200
