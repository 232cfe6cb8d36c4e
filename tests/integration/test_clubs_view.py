"""The persisted clubs view (issue 27), on a real SQLite file and PostgreSQL: which clubs a user is
in, read by key, equals the clubs' own membership after random joins and removals, and a rebuild
from the log equals the incremental view; the clubs' list is by name."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.config import Config
from tests.conftest import app_of
from tests.support.api import ApiHelper

USERS = ("ann", "bob", "cat", "dan", "eve")


@pytest.fixture
def api(store_config: Config, index_template: Path) -> Iterator[ApiHelper]:
    app: Flask
    with app_of(store_config, index_template) as app:
        yield ApiHelper(app.test_client())


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def test_a_users_clubs_equal_the_clubs_membership(api: ApiHelper) -> None:
    rnd = random.Random(35)
    for name in USERS:
        api.user(name)
    clubs = [
        ok(api.client.post("/api/clubs", json={"name": n}, headers=api.user(f)), 201)
        for n, f in (("zeta Club", "ann"), ("Alpha Club", "bob"), ("mid club", "ann"))
    ]
    for _ in range(40):
        club = rnd.choice(clubs)
        founder = "ann" if club["name"] != "Alpha Club" else "bob"
        name = rnd.choice([u for u in USERS if u != founder])
        path = f"/api/clubs/{club['id']}/members"
        if rnd.random() < 0.6:
            api.client.post(
                path, json={"username": name, "roles": ["player"]}, headers=api.user(founder)
            )
        else:
            api.client.delete(f"{path}/{name}", headers=api.user(founder))
    svc: Any = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    expected = {
        name: sorted(
            c["id"]
            for c in clubs
            if str(svc.users.by_name(name).id) in svc.clubs.get(c["id"]).members
        )
        for name in USERS
    }
    got = {name: sorted(svc.clubs.clubs_of(str(svc.users.by_name(name).id))) for name in USERS}
    assert got == expected and any(len(v) > 1 for v in got.values())
    assert [c["name"] for c in svc.clubs.list()] == ["Alpha Club", "mid club", "zeta Club"]
    svc.projections.rebuild("clubs")
    assert {n: sorted(svc.clubs.clubs_of(str(svc.users.by_name(n).id))) for n in USERS} == expected
