"""The persisted games view (issue 27), on a real SQLite file and PostgreSQL: every list a reader pages
through holds exactly the games the access rule lets them read (service/application/access.py,
docs/game-lifecycle.md "Who may read a game"), newest first, each once; ``mine``, status, system,
club and public narrow it; invitations; a request reads its own write with no worker running; the
view equals its rebuild after random play; bad cursors are 400 naming ``after``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.config import Config
from service.views.games import GameQuery
from tests.conftest import app_of
from tests.support.api import ApiHelper

pytestmark = pytest.mark.slow(
    "the games view's lists and access rule on SQLite and PostgreSQL with many games"
)

USERS = ("ann", "bob", "cat", "dan", "eve")


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


@pytest.fixture
def api(app: Flask) -> ApiHelper:
    return ApiHelper(app.test_client())


def svc(api: ApiHelper) -> Any:
    app: Any = api.client.application
    return app.extensions["arbiter"]


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def walk(api: ApiHelper, user: str | None, limit: int, query: str = "") -> list[dict[str, Any]]:
    """Every page of ``GET /api/games?<query>`` as ``user``, following X-Next-Cursor."""
    headers = api.user(user) if user else {}
    rows: list[dict[str, Any]] = []
    path = f"/api/games?limit={limit}{'&' + query if query else ''}"
    while True:
        r = api.client.get(path, headers=headers)
        page = ok(r)
        assert len(page) <= limit
        rows += page
        cursor = r.headers.get("X-Next-Cursor")
        if cursor is None:
            return rows
        assert r.headers["Link"].endswith('rel="next"') and "limit=" in r.headers["Link"]
        path = f"/api/games?limit={limit}{'&' + query if query else ''}&after={cursor}"


def play_a_club(api: ApiHelper, rnd: random.Random, games: int) -> dict[str, Any]:
    """A club (ann founds it; bob and cat join), and ``games`` random games between the users:
    private or public, of the club or of none, invitations left open, declined, or played to an
    end."""
    for name in USERS:
        api.user(name)
    club = ok(
        api.client.post("/api/clubs", json={"name": "Hex Club"}, headers=api.user("ann")), 201
    )
    for name in ("bob", "cat"):
        api.user(name)
        api.admit(
            f"/api/clubs/{club['id']}/members",
            {"username": name, "roles": ["player"]},
            api.user("ann"),
        )
    members = ("ann", "bob", "cat")
    for _ in range(games):
        in_club = rnd.random() < 0.4
        pool = members if in_club else USERS
        red, blue = rnd.choice(pool), rnd.choice(pool)
        body: dict[str, Any] = {
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": red, "blue": blue},
            "public": rnd.random() < 0.3,
        }
        if in_club:
            body["club"] = club["id"]
        game = ok(api.client.post("/api/games", json=body, headers=api.user(red)), 201)
        fate = rnd.random()
        if red != blue and fate < 0.15:
            continue  # the invitation waits
        if red != blue and fate < 0.25:
            ok(api.client.post(f"/api/games/{game['id']}/decline", headers=api.user(blue)))
            continue
        api.accept_all(game, red)
        if rnd.random() < 0.3:
            ok(
                api.client.post(
                    f"/api/games/{game['id']}/resign", json={"side": "red"}, headers=api.user(red)
                )
            )
    return club


def readable(api: ApiHelper, user: str | None) -> list[str]:
    """The ids of the games ``user`` may read by the access rule, newest first."""
    services = svc(api)
    who = services.users.by_name(user) if user else None
    rows = list(services.index.every(GameQuery(everything=True)))
    return [
        row["id"]
        for row in rows
        if services.access.may_read(
            row["sides"], {"club": row["club"], "public": row["public"]}, who
        )
    ]


def test_every_list_is_exactly_what_the_reader_may_read(api: ApiHelper) -> None:
    rnd = random.Random(2027)
    play_a_club(api, rnd, 36)
    everything = [r["id"] for r in svc(api).index.every(GameQuery(everything=True))]
    assert len(everything) == 36 and len(set(everything)) == 36
    api.reader(None)  # the site arbiter "referee", who plays no game
    for user in (None, *USERS, "referee"):
        expected = readable(api, user)
        for limit in (1, 5, 100):
            listed = [g["id"] for g in walk(api, user, limit)]
            assert listed == expected, (user, limit)
    # the site arbiter reads games of no club it does not play, and no private club game
    referee = {g["id"] for g in walk(api, "referee", 100)}
    club_games = {
        r["id"]
        for r in svc(api).index.every(GameQuery(everything=True))
        if r["club"] and not r["public"]
    }
    assert referee and not referee & club_games


def test_filters_narrow_the_list_and_keep_the_access_rule(api: ApiHelper) -> None:
    rnd = random.Random(7)
    club = play_a_club(api, rnd, 30)
    every = list(svc(api).index.every(GameQuery(everything=True)))
    for user in USERS:
        may = set(readable(api, user))
        uid = str(svc(api).users.by_name(user).id)
        mine = [g for g in walk(api, user, 4, "mine=true")]
        assert {g["id"] for g in mine} == {r["id"] for r in every if uid in r["sides"].values()}
        assert all("version" in g and "active_sides" in g for g in mine)  # whose turn it is
        for status in ("invited", "active", "ended", "declined"):
            got = {g["id"] for g in walk(api, user, 3, f"status={status}")}
            assert got == {r["id"] for r in every if r["status"] == status} & may
        got = {g["id"] for g in walk(api, user, 3, f"club={club['id']}")}
        assert got == {r["id"] for r in every if r["club"] == club["id"]} & may
        got = {g["id"] for g in walk(api, user, 3, "club=Hex Club&status=active&public=false")}
        assert (
            got
            == {
                r["id"]
                for r in every
                if r["club"] == club["id"] and r["status"] == "active" and not r["public"]
            }
            & may
        )
        got = {g["id"] for g in walk(api, user, 3, "system=skirmish&public=true")}
        assert got == {r["id"] for r in every if r["public"]}
        assert walk(api, user, 3, "system=merida") == []
        invited = ok(api.client.get("/api/games?invited=true", headers=api.user(user)))
        assert {g["id"] for g in invited} == {
            r["id"] for r in every if r["status"] == "invited" and uid in r["pending"]
        }


def test_a_profile_lists_the_players_games_the_caller_may_read(api: ApiHelper) -> None:
    play_a_club(api, random.Random(11), 24)
    every = list(svc(api).index.every(GameQuery(everything=True)))
    for viewer in (None, "dan", "ann"):
        headers = api.user(viewer) if viewer else {}
        may = set(readable(api, viewer))
        shown = ok(api.client.get("/api/users/bob/profile", headers=headers))["games"]
        bob = str(svc(api).users.by_name("bob").id)
        assert {g["id"] for g in shown} == {
            r["id"]
            for r in every
            if bob in r["sides"].values() and r["status"] != "declined" and r["id"] in may
        }


def test_a_request_reads_its_own_write_with_no_worker(api: ApiHelper) -> None:
    api.user("bob")
    game = ok(
        api.client.post(
            "/api/games",
            json={
                "system": "skirmish",
                "scenario": "meeting",
                "sides": {"red": "ann", "blue": "bob"},
            },
            headers=api.user("ann"),
        ),
        201,
    )
    assert [g["status"] for g in walk(api, "bob", 10, "invited=true")] == ["invited"]
    ok(api.client.post(f"/api/games/{game['id']}/accept", headers=api.user("bob")))
    assert [g["status"] for g in walk(api, "ann", 10, "mine=true")] == ["active"]
    ok(api.client.post(f"/api/games/{game['id']}/resign", json={}, headers=api.user("ann")))
    assert [g["status"] for g in walk(api, "bob", 10, "mine=true")] == ["ended"]


def test_the_view_equals_its_rebuild_after_random_play(api: ApiHelper) -> None:
    play_a_club(api, random.Random(5), 30)
    services = svc(api)
    before = list(services.index.every(GameQuery(everything=True)))
    players = services.index.runner.view.query(
        "SELECT * FROM {game_players} ORDER BY game, user_id"
    )
    services.projections.rebuild("games")
    assert list(services.index.every(GameQuery(everything=True))) == before
    assert (
        services.index.runner.view.query("SELECT * FROM {game_players} ORDER BY game, user_id")
        == players
    )
    assert len(before) == 30


@pytest.mark.parametrize("cursor", ["nonsense", "MTIz", "", "bm90IGEga2V5"])
def test_a_cursor_this_api_did_not_give_is_a_400_naming_after(api: ApiHelper, cursor: str) -> None:
    r = api.client.get(f"/api/games?after={cursor}", headers=api.user("ann"))
    assert r.status_code in (400, 422)
    assert "after" in str(r.get_json())


def test_a_page_larger_than_100_is_refused(api: ApiHelper) -> None:
    r = api.client.get("/api/games?limit=101")
    assert r.status_code in (400, 422) and "limit" in str(r.get_json())
