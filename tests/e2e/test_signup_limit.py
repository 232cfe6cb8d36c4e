"""Sign-ups from one address are capped per hour (issue 44, finding 9): before, one client made
accounts as fast as it could ask.  Past ``ARBITER_SIGNUPS_PER_HOUR`` the answer is 429 naming
``address`` with ``Retry-After``, and nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config, ConfigError
from tests.conftest import app_of, make_config
from tests.support.api import PASSWORD

CAP = 3


@pytest.fixture
def capped(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    with app_of(make_config(tmp_path, signups_per_hour=CAP), index_template) as application:
        yield application


def sign_up(client: FlaskClient, name: str, address: str) -> Any:
    return client.post(
        "/api/users",
        json={"username": name, "password": PASSWORD},
        environ_base={"REMOTE_ADDR": address},
    )


def test_past_the_cap_an_address_is_refused_and_nothing_is_written(capped: Flask) -> None:
    client = capped.test_client()
    assert sign_up(client, "member0", "192.0.2.1").status_code == 201
    assert sign_up(client, "member0", "192.0.2.1").status_code == 409  # taken: not counted
    for i in range(1, CAP):
        assert sign_up(client, f"member{i}", "192.0.2.1").status_code == 201
    r = sign_up(client, "onetoomany", "192.0.2.1")
    assert r.status_code == 429, r.get_json()
    assert 3500 <= int(r.headers["Retry-After"]) <= 3600
    body = r.get_json()
    assert body["error"] == "too_many_attempts"
    assert body["details"] == {"address": [f"at most {CAP} accounts from one address an hour"]}
    # nothing written: the name cannot sign in, and is free for another address to take
    r = client.post("/api/tokens", json={"username": "onetoomany", "password": PASSWORD})
    assert r.status_code == 401
    assert sign_up(client, "onetoomany", "192.0.2.2").status_code == 201


def test_an_ipv6_client_is_counted_by_its_block(capped: Flask) -> None:
    client = capped.test_client()
    for i in range(CAP):
        assert sign_up(client, f"six{i}", f"2001:db8:1:2::{i + 1}").status_code == 201
    assert sign_up(client, "six-more", "2001:db8:1:2:ffff::9").status_code == 429
    assert sign_up(client, "six-more", "2001:db8:1:3::1").status_code == 201


def test_the_cap_is_a_setting(tmp_path: Path) -> None:
    env = {"ARBITER_VAR": str(tmp_path), "ARBITER_SECRET_KEY": "k"}
    assert Config.from_env(env).signups_per_hour == 10
    assert Config.from_env({**env, "ARBITER_SIGNUPS_PER_HOUR": "50"}).signups_per_hour == 50
    with pytest.raises(ConfigError, match="ARBITER_SIGNUPS_PER_HOUR"):
        Config.from_env({**env, "ARBITER_SIGNUPS_PER_HOUR": "0"})
