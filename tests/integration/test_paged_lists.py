"""The lists that were returned whole are keyset pages (``limit``, ``after``, ``X-Next-Cursor`` and
``Link``), on a real SQLite file and PostgreSQL: the clubs by name (and the caller's), a club's
members in the order they joined (the club's own resource names the first ones and counts them),
its ladders and campaigns oldest first, its scenarios by title and the library by system and
title, a ladder's challenges and face-to-face reports newest first (``status`` kept), the caller's
ladders by name with their rank read in one query.  Walked at several page sizes, each row comes
once, in order, whatever the page size; a bad ``limit`` or ``after`` is a 400 naming it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask

import service.application.clubs as clubs_module
from service.api.schemas import PageCursor
from service.config import Config
from tests.conftest import app_of
from tests.support.api import ApiHelper

pytestmark = pytest.mark.slow("every paged list filled past a page on SQLite and PostgreSQL")

CAMPAIGN = {
    "sides": ["red", "blue"],
    "steps": [{"title": "Meeting at the Mill", "system": "skirmish", "scenario": "meeting"}],
    "scoring": {"victory": 3, "draw": 1},
}


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


@pytest.fixture
def api(app: Flask) -> ApiHelper:
    return ApiHelper(app.test_client())


def svc(api: ApiHelper) -> Any:
    return api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def walk(api: ApiHelper, path: str, limit: int, user: str | None = None) -> list[dict[str, Any]]:
    """Every row of a list, ``limit`` a page, following each page's ``Link`` as given."""
    headers = api.user(user) if user else {}
    query = f"{path}{'&' if '?' in path else '?'}limit={limit}"
    rows: list[dict[str, Any]] = []
    while True:
        r = api.client.get(query, headers=headers)
        page = ok(r)
        assert len(page) <= limit
        rows += page
        cursor = r.headers.get("X-Next-Cursor")
        if cursor is None:
            assert "Link" not in r.headers
            return rows
        link = r.headers["Link"]
        assert link.endswith('>; rel="next"') and f"after={cursor}" in link
        query = link[1 : link.index(">")]


def walks(api: ApiHelper, path: str, user: str | None = None) -> list[str]:
    """The ids of a list walked at page sizes 1, 2, 3 and 100: the same each time, each once."""
    found = [
        [row.get("id") or row.get("user") for row in walk(api, path, n, user)]
        for n in (1, 2, 3, 100)
    ]
    assert all(ids == found[0] for ids in found), found
    assert len(set(found[0])) == len(found[0])
    return found[0]  # type: ignore[return-value]


def found_club(api: ApiHelper, name: str, by: str) -> dict[str, Any]:
    return ok(api.client.post("/api/clubs", json={"name": name}, headers=api.user(by)), 201)


def join(api: ApiHelper, club: str, name: str, admin: str = "ann") -> None:
    api.user(name)
    body = {"username": name, "roles": ["player"]}
    api.admit(f"/api/clubs/{club}/members", body, admin)


# -- clubs ------------------------------------------------------------------------------------------
def test_the_clubs_page_by_name_and_the_callers_own(api: ApiHelper) -> None:
    names = ["zeta Club", "Alpha Club", "mid club", "The Mill Club", "the mill 2", "Ávila Club"]
    made = [found_club(api, name, "ann" if i % 2 else "bob") for i, name in enumerate(names)]
    # in code point order of the lowered names, on both stores (Á after z), then by id
    expected = [c["id"] for c in sorted(made, key=lambda c: (c["name"].lower(), c["id"]))]
    assert walks(api, "/api/clubs") == expected
    assert [c["name"] for c in ok(api.client.get("/api/clubs?limit=2"))] == [
        "Alpha Club",
        "mid club",
    ]
    assert [c["name"] for c in svc(api).clubs.list()] == [
        c["name"] for c in sorted(made, key=lambda c: c["name"].lower())
    ]
    # the caller's own: those ann founded, and one she joined
    join(api, made[0]["id"], "ann", admin="bob")  # bob's zeta Club
    mine = {made[0]["id"], made[1]["id"], made[3]["id"], made[5]["id"]}
    assert walks(api, "/api/clubs?mine=true", "ann") == [i for i in expected if i in mine]
    assert api.client.get("/api/clubs?mine=true").status_code == 401


# -- a club's members -------------------------------------------------------------------------------
def test_a_clubs_members_page_in_the_order_they_joined(
    api: ApiHelper, monkeypatch: pytest.MonkeyPatch
) -> None:
    club = found_club(api, "Hex Club", "ann")
    cid = club["id"]
    for name in ("u1", "u2", "u3", "u4", "u5", "u6"):
        join(api, cid, name)
    ok(api.client.put(f"/api/clubs/{cid}/members/u2/roles/arbiter", headers=api.user("ann")))
    ok(api.client.delete(f"/api/clubs/{cid}/members/u3", headers=api.user("ann")))
    join(api, cid, "u3")  # joins again: now the last
    order = ["ann", "u1", "u2", "u4", "u5", "u6", "u3"]

    def names(rows: list[dict[str, Any]]) -> list[str]:
        return [r["username"] for r in rows]

    for limit in (1, 2, 3, 100):
        rows = walk(api, f"/api/clubs/{cid}/members", limit)
        assert names(rows) == order
    rows = walk(api, "/api/clubs/Hex Club/members", 4)  # by name: the Link names the club's id
    assert {r["username"]: r["roles"] for r in rows} == {
        "ann": ["admin", "arbiter", "player"],
        "u1": ["player"],
        "u2": ["arbiter", "player"],
        "u3": ["player"],
        "u4": ["player"],
        "u5": ["player"],
        "u6": ["player"],
    }
    # the club's own resource: its first members (here all), how many, and the caller's roles
    shown = ok(api.client.get(f"/api/clubs/{cid}", headers=api.user("u2")))
    assert names(shown["members"]) == order and shown["member_count"] == 7
    assert shown["viewer_roles"] == ["arbiter", "player"]
    assert ok(api.client.get(f"/api/clubs/{cid}"))["viewer_roles"] == []
    # bounded: a club of more members than shown names the first and counts them all
    monkeypatch.setattr(clubs_module, "MEMBERS_SHOWN", 3)
    shown = ok(api.client.get(f"/api/clubs/{cid}", headers=api.user("ann")))
    assert names(shown["members"]) == order[:3] and shown["member_count"] == 7
    assert shown["viewer_roles"] == ["admin", "arbiter", "player"]
    # a rebuild from the log puts them in the same order
    svc(api).projections.rebuild("clubs")
    assert names(walk(api, f"/api/clubs/{cid}/members", 2)) == order
    assert api.client.get("/api/clubs/nope/members").status_code == 404


def test_a_store_of_an_earlier_release_lists_its_members(api: ApiHelper) -> None:
    """The members' table is new: made and filled from the members the view had (in no known
    order until a rebuild), each listed once."""
    club = found_club(api, "Old Club", "ann")
    for name in ("u1", "u2", "u3"):
        join(api, club["id"], name)
    view = svc(api).projections["clubs"].view
    view.execute("DROP TABLE {club_roster}")
    view.create_table()
    rows = walk(api, f"/api/clubs/{club['id']}/members", 2)
    assert sorted(r["username"] for r in rows) == ["ann", "u1", "u2", "u3"]


# -- a club's ladders and campaigns -----------------------------------------------------------------
def test_a_clubs_ladders_and_campaigns_oldest_first(api: ApiHelper) -> None:
    club = found_club(api, "Hex Club", "ann")
    ladders = [
        ok(
            api.client.post(
                f"/api/clubs/{club['id']}/ladders",
                json={"name": f"Ladder {n}", "system": "skirmish", "scenario": "meeting"},
                headers=api.user("ann"),
            ),
            201,
        )["id"]
        for n in (3, 1, 2, 5, 4)
    ]
    assert walks(api, f"/api/clubs/{club['id']}/ladders") == ladders
    assert walks(api, "/api/clubs/Hex Club/ladders") == ladders  # the Link quotes the name
    assert [r["id"] for r in svc(api).ladders.of_club("Hex Club")] == ladders
    campaigns = [
        ok(
            api.client.post(
                f"/api/clubs/{club['id']}/campaigns",
                json=CAMPAIGN | {"name": f"Campaign {n}"},
                headers=api.user("ann"),
            ),
            201,
        )["id"]
        for n in range(5)
    ]
    assert walks(api, f"/api/clubs/{club['id']}/campaigns") == campaigns
    assert walks(api, "/api/clubs/Hex Club/campaigns") == campaigns
    empty = found_club(api, "Empty Club", "bob")
    for path in ("ladders", "campaigns"):
        r = api.client.get(f"/api/clubs/{empty['id']}/{path}")
        assert ok(r) == [] and "X-Next-Cursor" not in r.headers


# -- a ladder's challenges and reports --------------------------------------------------------------
@pytest.fixture
def ladder(api: ApiHelper) -> dict[str, Any]:
    club = found_club(api, "Hex Club", "ann")
    for name in ("bob", "cat", "dan"):
        join(api, club["id"], name)
    body = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/ladders",
            json={
                "name": "Mill ladder",
                "system": "skirmish",
                "scenario": "meeting",
                "settings": {"challenge_range": 3},
            },
            headers=api.user("ann"),
        ),
        201,
    )
    for name in ("ann", "bob", "cat", "dan"):
        ok(api.client.post(f"/api/ladders/{body['id']}/players", headers=api.user(name)), 201)
    return body


def test_challenges_and_reports_newest_first_with_their_status(
    api: ApiHelper, ladder: dict[str, Any]
) -> None:
    lid = ladder["id"]
    board = ok(api.client.get(f"/api/ladders/{lid}/standings"))["standings"]
    low, above = board[-1]["username"], board[-2]["username"]
    issued = []
    for n in range(6):
        challenge = ok(
            api.client.post(
                f"/api/ladders/{lid}/challenges", json={"opponent": above}, headers=api.user(low)
            ),
            201,
        )
        issued.append(challenge["id"])
        if n < 5:
            ok(
                api.client.post(
                    f"/api/challenges/{challenge['id']}/decline", json={}, headers=api.user(above)
                )
            )
    newest = issued[::-1]
    assert walks(api, f"/api/ladders/{lid}/challenges") == newest
    assert walks(api, f"/api/ladders/{lid}/challenges?status=declined") == newest[1:]
    assert walks(api, f"/api/ladders/{lid}/challenges?status=open") == newest[:1]
    assert walks(api, f"/api/ladders/{lid}/challenges?status=accepted") == []
    assert [c["id"] for c in svc(api).ladders.challenges(lid)] == newest
    reported = []
    body = {"sides": {"red": "bob", "blue": "cat"}, "winner": "blue"}
    for n in range(5):
        report = ok(
            api.client.post(f"/api/ladders/{lid}/reports", json=body, headers=api.user("bob")),
            201,
        )
        reported.append(report["id"])
        if n % 2:
            ok(api.client.post(f"/api/reports/{report['id']}/confirm", headers=api.user("cat")))
    newest = reported[::-1]
    assert walks(api, f"/api/ladders/{lid}/reports") == newest
    assert walks(api, f"/api/ladders/{lid}/reports?status=confirmed") == [
        r for r in newest if reported.index(r) % 2
    ]
    assert walks(api, f"/api/ladders/{lid}/reports?status=reported") == [
        r for r in newest if not reported.index(r) % 2
    ]
    page = walk(api, f"/api/ladders/{lid}/reports", 2)
    assert page[0]["reporter"] == "bob" and page[0]["scenario_title"]


# -- the caller's ladders ---------------------------------------------------------------------------
def test_my_ladders_by_name_with_my_rank_in_one_query(api: ApiHelper) -> None:
    clubs = [found_club(api, name, "ann") for name in ("Hex Club", "Mill Club")]
    for club in clubs:
        join(api, club["id"], "bob")
    made = {}
    for n, name in enumerate(["b ladder", "A ladder", "c Ladder", "a ladder", "Zed", "skipped"]):
        club = clubs[n % 2]
        made[name] = ok(
            api.client.post(
                f"/api/clubs/{club['id']}/ladders",
                json={"name": name, "system": "skirmish", "scenario": "meeting"},
                headers=api.user("ann"),
            ),
            201,
        ) | {"club_name": club["name"]}
        if name != "skipped":
            for who in ("bob", "ann") if n % 2 else ("ann", "bob"):
                path = f"/api/ladders/{made[name]['id']}/players"
                ok(api.client.post(path, headers=api.user(who)), 201)
    expected = sorted(
        (ladder for name, ladder in made.items() if name != "skipped"),
        key=lambda ladder: (ladder["name"].lower(), ladder["id"]),
    )
    assert walks(api, "/api/me/ladders", "ann") == [ladder["id"] for ladder in expected]
    services = svc(api)
    ann = str(services.users.by_name("ann").id)
    mine = walk(api, "/api/me/ladders", 2, "ann")
    for row, ladder in zip(mine, expected, strict=True):
        standing = services.ladders.feed.view.standing_of(ladder["id"], ann)
        assert row["club_name"] == ladder["club_name"]
        assert row["me"]["username"] == "ann" and row["me"]["rank"] == standing["rank"]
        assert row["me"]["rating"] == standing["rating"]
    # one query of the ladders view and one of the clubs view, however many ladders
    counted: dict[str, int] = {"ladders": 0, "clubs": 0}
    for name in counted:
        view = services.projections[name].view
        query = view.query

        def counting(*args: Any, _name: str = name, _query: Any = query) -> Any:
            counted[_name] += 1
            return _query(*args)

        view.query = counting
    ok(api.client.get("/api/me/ladders", headers=api.user("ann")))
    assert counted == {"ladders": 1, "clubs": 1}
    assert ok(api.client.get("/api/me/ladders", headers=api.user("stranger"))) == []


# -- club scenarios and the library -----------------------------------------------------------------
def test_club_scenarios_by_title_and_the_library_by_system_and_title(api: ApiHelper) -> None:
    home = found_club(api, "Home", "ann")
    away = found_club(api, "Away", "dan")
    made = []
    titles = [
        ("zulu", "private"),
        ("Alpha", "shared"),
        ("mike", "public"),
        ("alpha", "private"),  # the same title in lower case: by creation after Alpha
        ("Bravo two", "public"),
        ("Ávila", "shared"),
    ]
    for title, sharing in titles:
        sid = ok(
            api.client.post(
                f"/api/clubs/{home['id']}/scenarios",
                json={"system": "merida", "base": "merida-1938", "title": title},
                headers=api.user("ann"),
            ),
            201,
        )["id"]
        made.append((title, sid, sharing))
        if title != "zulu":  # zulu stays a draft
            path = f"/api/club-scenarios/{sid}/versions"
            ok(api.client.post(path, json={}, headers=api.user("ann")), 201)
        if sharing != "private":
            ok(
                api.client.put(
                    f"/api/club-scenarios/{sid}/sharing",
                    json={"sharing": sharing},
                    headers=api.user("ann"),
                )
            )
    by_title = [sid for _, sid, _ in sorted(made, key=lambda m: m[0].lower())]  # stable: creation
    assert walks(api, f"/api/clubs/{home['id']}/scenarios", "ann") == by_title
    shared = [sid for sid in by_title if dict((s, sh) for _, s, sh in made)[sid] != "private"]
    assert walks(api, f"/api/clubs/{home['id']}/scenarios", "dan") == shared  # another club's
    public = [sid for sid in by_title if dict((s, sh) for _, s, sh in made)[sid] == "public"]
    assert walks(api, "/api/clubs/Home/scenarios") == public  # a visitor
    published = [sid for sid in by_title if sid != made[0][1]]
    assert walks(api, "/api/club-scenarios", "ann") == published
    assert walks(api, "/api/club-scenarios?system=merida", "ann") == published
    assert walks(api, "/api/club-scenarios?system=skirmish", "ann") == []
    assert walks(api, "/api/club-scenarios", "dan") == shared
    assert walks(api, "/api/club-scenarios") == public
    assert [s.title for s in svc(api).scenarios.of_club("Home")] == [
        t for t, _, _ in sorted(made, key=lambda m: m[0].lower())
    ]
    assert away["id"]


# -- bad pages --------------------------------------------------------------------------------------
def test_a_bad_limit_or_after_is_a_400_naming_it(api: ApiHelper, ladder: dict[str, Any]) -> None:
    cid = svc(api).clubs.get("Hex Club").id
    lid = ladder["id"]
    paths = [
        "/api/clubs",
        f"/api/clubs/{cid}/members",
        f"/api/clubs/{cid}/ladders",
        f"/api/clubs/{cid}/campaigns",
        f"/api/clubs/{cid}/scenarios",
        "/api/club-scenarios",
        f"/api/ladders/{lid}/challenges",
        f"/api/ladders/{lid}/reports",
        "/api/me/ladders",
    ]
    others = {  # a cursor each list did not give: another list's shape
        "int": PageCursor.encode((12, lid)),
        "name": PageCursor.encode(("a name", lid)),
    }
    by_name = ("/api/clubs", "/api/me/ladders")
    for path in paths:
        wrong = others["int"] if path in by_name else others["name"]
        for query, field, status in (  # a cursor of the pattern, not given: 422 (issue 46)
            ("limit=0", "limit", 400),
            ("limit=101", "limit", 400),
            ("limit=many", "limit", 400),
            ("after=not-a-cursor", "after", 422),
            ("after=not+a+cursor", "after", 400),
            ("after=", "after", 400),
            (f"after={quote(wrong)}", "after", 422),
        ):
            r = api.client.get(f"{path}?{query}", headers=api.user("ann"))
            body = r.get_json()
            assert r.status_code == status, (path, query, r.status_code, body)
            assert field in body["details"], (path, query, body)
