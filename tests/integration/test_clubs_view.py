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
            r = api.client.post(
                path, json={"username": name, "roles": ["player"]}, headers=api.user(founder)
            )
            if r.status_code == 201:  # invited: they accept
                accept = f"/api/clubs/{club['id']}/invitation"
                api.client.post(accept, json={"accept": True}, headers=api.user(name))
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


def test_waiting_invitations_and_requests_equal_the_clubs_own_after_a_rebuild(
    api: ApiHelper,
) -> None:
    """Random invitations, join requests and their answers: the view's waiting lists (a club's
    and a user's) and memberships equal the clubs' own, before and after a rebuild from the log."""
    rnd = random.Random(29)
    for name in USERS:
        api.user(name)
    clubs = [
        ok(api.client.post("/api/clubs", json={"name": n}, headers=api.user("ann")), 201)
        for n in ("North Club", "South Club")
    ]
    for _ in range(60):
        path = f"/api/clubs/{rnd.choice(clubs)['id']}"
        name = rnd.choice(USERS[1:])
        step = rnd.choice(("invite", "ask", "answer", "approve", "withdraw"))
        if step == "invite":
            api.client.post(f"{path}/invitations", json={"username": name}, headers=api.user("ann"))
        elif step == "ask":
            api.client.post(f"{path}/requests", headers=api.user(name))
        elif step == "answer":
            body = {"accept": rnd.random() < 0.5}
            api.client.post(f"{path}/invitation", json=body, headers=api.user(name))
        elif step == "approve":
            body = {"accept": rnd.random() < 0.5}
            api.client.post(f"{path}/requests/{name}", json=body, headers=api.user("ann"))
        else:
            api.client.delete(f"{path}/requests/{name}", headers=api.user(name))
    svc: Any = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    names = svc.users.username

    def seen() -> tuple[Any, ...]:
        per_club = {}
        for club in clubs:
            found = svc.clubs.get(club["id"])
            admin = svc.users.by_name("ann")
            per_club[club["name"]] = (
                sorted(
                    r["username"]
                    for r in svc.clubs.pending_page(found, admin, "invitation", limit=100)[0]
                ),
                sorted(
                    r["username"]
                    for r in svc.clubs.pending_page(found, admin, "request", limit=100)[0]
                ),
            )
        per_user = {
            n: (
                sorted(
                    r["club_name"]
                    for r in svc.clubs.mine_page(svc.users.by_name(n), "invitation")[0]
                ),
                sorted(
                    r["club_name"] for r in svc.clubs.mine_page(svc.users.by_name(n), "request")[0]
                ),
                sorted(svc.clubs.clubs_of(str(svc.users.by_name(n).id))),
            )
            for n in USERS
        }
        return per_club, per_user

    expected_clubs = {}
    for club in clubs:
        found = svc.clubs.get(club["id"])
        expected_clubs[club["name"]] = (
            sorted(names(u) for u in found.pending_invitations()),
            sorted(names(u) for u in found.pending_requests()),
        )
    before = seen()
    assert before[0] == expected_clubs
    assert any(v[0] or v[1] for v in expected_clubs.values())  # something is waiting
    for n in USERS:  # a user's lists, and memberships, agree with the clubs'
        uid = str(svc.users.by_name(n).id)
        invited = sorted(
            c["name"] for c in clubs if uid in svc.clubs.get(c["id"]).pending_invitations()
        )
        asked = sorted(c["name"] for c in clubs if uid in svc.clubs.get(c["id"]).pending_requests())
        member = sorted(c["id"] for c in clubs if uid in svc.clubs.get(c["id"]).members)
        assert before[1][n] == (invited, asked, member)
    svc.projections.rebuild("clubs")
    assert seen() == before
