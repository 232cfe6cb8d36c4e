"""Throttles that hold for the whole site (issue 53): with ``REDIS_URL`` set, the sign-in,
password-reset and sign-up counts are kept in Redis, so every host and worker counts the same
tries.  Before, each worker counted its own share: 6 wrong passwords spread over two hosts (the
README holds an account after 5) and then the right one gave 201 on both hosts.

Two hosts here are two applications built from one configuration (one PostgreSQL database, one
Redis), as two machines' workers are: nothing but the database and Redis is shared between them."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.adapters.redis_throttle import RedisThrottle
from service.app import create_app
from service.bootstrap import migrate
from tests.conftest import make_config
from tests.support.services import postgres_database, redis_url

PASSWORD = "correct horse battery"


@pytest.fixture
def url() -> str:
    return redis_url()  # the test database, flushed


def test_two_hosts_count_the_same_tries(url: str) -> None:
    one, two = (RedisThrottle(url, "sign-in", per_account=5, window=60) for _ in range(2))
    for turn in range(5):
        assert one.wait("ann", "203.0.113.9") == 0 == two.wait("Ann", "203.0.113.9")
        (one if turn % 2 else two).failed("ann", "203.0.113.9")
    assert 59 <= one.wait("ann", "203.0.113.9") <= 60  # held until the first try lapses
    assert 59 <= two.held("account", "ANN") <= 60  # an account by its name in any case
    assert two.wait("bob", "198.51.100.1") == 0  # another account, another address
    two.succeeded("ann")  # the right password, where it was allowed: the count is cleared
    assert one.held("account", "ann") == 0


def test_each_throttle_counts_apart_and_redis_keeps_no_name_past_the_window(url: str) -> None:
    sign_in = RedisThrottle(url, "sign-in", per_address=2, window=30)
    reset = RedisThrottle(url, "password-reset", per_address=2, window=30)
    for _ in range(3):
        sign_in.note("address", "2001:db8::1")
    assert sign_in.held("address", "2001:db8::ffff") > 0  # counted by its /64
    assert reset.held("address", "2001:db8::1") == 0
    client = redis.Redis.from_url(url)
    keys = client.keys("arbiter:throttle:*")
    assert len(keys) == 1 and b"2001" not in keys[0]  # a digest, not the address
    assert client.zcard(keys[0]) == 2  # kept to the limit, however many tries
    assert 0 < client.pttl(keys[0]) <= 30_000  # gone with the window


def test_a_try_lapses_with_the_window(url: str) -> None:
    throttle = RedisThrottle(url, "sign-in", per_account=1, window=0.3)
    throttle.note("account", "ann")
    assert 0 < throttle.held("account", "ann") <= 0.3
    time.sleep(0.35)
    assert throttle.held("account", "ann") == 0


def test_without_redis_the_process_counts_its_own_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gone = RedisThrottle("redis://127.0.0.1:9/0", "sign-in", per_account=2, timeout=0.2)
    with caplog.at_level(logging.WARNING):
        gone.failed("ann", "203.0.113.9")
        assert gone.wait("ann", "203.0.113.9") == 0
        gone.failed("ann", "203.0.113.9")
        assert gone.wait("ann", "203.0.113.9") > 0  # still limited, in this process
    assert "the sign-in throttle cannot reach Redis" in caplog.text


@pytest.fixture
def hosts(tmp_path: Path, url: str) -> Iterator[tuple[FlaskClient, FlaskClient]]:
    with postgres_database() as dbname:
        config = make_config(tmp_path, store="postgres", postgres_dbname=dbname, redis_url=url)
        migrate(config)
        apps: list[Flask] = []
        try:
            apps = [create_app(config) for _ in range(2)]
            apps[0].extensions["arbiter"].users.register("ann", PASSWORD)
            yield apps[0].test_client(), apps[1].test_client()
        finally:
            for app in apps:
                app.extensions["arbiter"].close()


@pytest.mark.postgres
def test_wrong_passwords_spread_over_two_hosts_hold_the_account_on_both(
    hosts: tuple[FlaskClient, FlaskClient],
) -> None:
    for turn in range(6):
        wrong = hosts[turn % 2].post("/api/tokens", json={"username": "ann", "password": "no"})
        assert wrong.status_code == (401 if turn < 5 else 429), (turn, wrong.get_json())
    for host in hosts:  # the right password too, on either host
        right = host.post("/api/tokens", json={"username": "ann", "password": PASSWORD})
        assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0
        assert right.get_json()["error"] == "too_many_attempts"


@pytest.mark.postgres
def test_reset_requests_spread_over_two_hosts_count_once(
    hosts: tuple[FlaskClient, FlaskClient],
) -> None:
    """From one client address at most 10 reset requests an hour, site-wide."""
    answers = [
        hosts[turn % 2].post("/api/password-resets", json={"account": "ann"}).status_code
        for turn in range(11)
    ]
    assert answers[:10] == [202] * 10 and answers[10] == 429
