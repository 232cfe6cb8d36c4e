"""The last read models held in memory per worker (club scenarios, campaigns, disputes, club rulings)
are persisted views, on a real SQLite file and PostgreSQL: made through the services, each view's
rows equal its rebuild from the log; each write is read at once by the writer (read-your-writes);
the arbiter's queue is paged; and a fresh service on the existing store answers every list without
reading the log (no select of notifications on a read)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask

from service.config import Config
from tests.conftest import app_of
from tests.support.api import ApiHelper

pytestmark = pytest.mark.slow(
    "each persisted view made through the services on SQLite and PostgreSQL and compared with its rebuild"
)

FOLLOWERS = ("scenarios", "campaigns", "disputes", "rulings")
RULING = "merida:8-retreats"  # a rulebook section of the knowledge base
CAMPAIGN = {
    "name": "Autumn campaign",
    "sides": ["red", "blue"],
    "steps": [{"title": "Meeting at the Mill", "system": "skirmish", "scenario": "meeting"}],
    "scoring": {"victory": 3, "decisive": 5, "draw": 1},
}


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.get_json())
    return response.get_json()


def rows(svc: Any, name: str) -> dict[str, list[dict[str, Any]]]:
    view = svc.projections[name].view
    return {
        table.name: sorted(
            view.query(f"SELECT * FROM {{{table.name}}}"), key=lambda r: sorted(r.items())
        )
        for table in view.TABLES
    }


def dispute_on(api: ApiHelper, gid: str, player: str = "alice") -> tuple[int, str]:
    """``player`` (red) moves; the other player disputes the move: its seq and the dispute."""
    moved = ok(api.command(gid, player, {"type": "move", "unit": "r2", "path": ["D3", "D4"]}), 201)
    seq = next(e["seq"] for e in moved["events"] if e["type"] == "UnitMoved")
    other = "bob" if player == "alice" else "alice"
    body = ok(
        api.client.post(
            f"/api/games/{gid}/disputes",
            json={"seq": seq, "claim": "no road"},
            headers=api.user(other),
        ),
        201,
    )
    return seq, str(body["dispute"])


def make_world(app: Flask) -> tuple[ApiHelper, dict[str, Any]]:
    """Two clubs, scenarios of every sharing (one forked), a campaign whose step's game is
    disputed, site games disputed and resolved (one with a club ruling, one ruling withdrawn)."""
    svc: Any = app.extensions["arbiter"]
    api = ApiHelper(app.test_client())
    client = api.client
    for name in ("ann", "alice", "bob", "cat", "dan", "eve"):
        api.user(name)
    site = svc.users.by_name("eve")
    site.grant("arbiter")
    svc.store.save(site)
    home = ok(client.post("/api/clubs", json={"name": "Home"}, headers=api.user("ann")), 201)
    away = ok(client.post("/api/clubs", json={"name": "Away"}, headers=api.user("dan")), 201)
    for name, roles in (("alice", ["player"]), ("bob", ["player"]), ("cat", ["arbiter"])):
        api.admit(
            f"/api/clubs/{home['id']}/members", {"username": name, "roles": roles}, api.user("ann")
        )
    made = {}
    for title, sharing in (("zulu", "private"), ("Alpha", "shared"), ("mike", "public")):
        scenario = ok(
            client.post(
                f"/api/clubs/{home['id']}/scenarios",
                json={"system": "merida", "base": "merida-1938", "title": title},
                headers=api.user("ann"),
            ),
            201,
        )
        sid = scenario["id"]
        made[title] = sid
        # the writer reads its own write at once: the new scenario is listed
        listed = ok(client.get(f"/api/clubs/{home['id']}/scenarios", headers=api.user("ann")))
        assert sid in [s["id"] for s in listed]
        ok(
            client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user("ann")),
            201,
        )
        if sharing != "private":
            ok(
                client.put(
                    f"/api/club-scenarios/{sid}/sharing",
                    json={"sharing": sharing},
                    headers=api.user("ann"),
                )
            )
    ok(
        client.post(
            f"/api/club-scenarios/{made['Alpha']}/forks",
            json={"club": away["id"], "title": "Alpha away"},
            headers=api.user("dan"),
        ),
        201,
    )
    campaign = ok(
        client.post(f"/api/clubs/{home['id']}/campaigns", json=CAMPAIGN, headers=api.user("ann")),
        201,
    )
    assert [c["id"] for c in ok(client.get(f"/api/clubs/{home['id']}/campaigns"))] == [
        campaign["id"]
    ]
    started = ok(
        client.post(
            f"/api/campaigns/{campaign['id']}/steps/0/start",
            json={"sides": {"red": "alice", "blue": "bob"}},
            headers=api.user("ann"),
        ),
        201,
    )
    club_seq, club_dispute = dispute_on(api, started["game"])
    games = [api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"}) for _ in "ab"]
    disputes = [dispute_on(api, g["id"]) for g in games]
    # the site arbiter sees the site games' disputes at once, not the club's
    queue = ok(client.get("/api/disputes/queue", headers=api.user("eve")))
    assert [(q["game"], q["dispute"]) for q in queue] == [
        (g["id"], d) for g, (_, d) in zip(games, disputes, strict=True)
    ]
    assert [q["game"] for q in ok(client.get("/api/disputes/queue", headers=api.user("cat")))] == [
        started["game"]
    ]
    rulings = []
    for game, (_, dispute) in zip(games, disputes, strict=True):
        ruling = {
            "heading": f"Road movement {game['id'][:4]}",
            "text": "A unit entering the Crossroads by road pays the road rate.",
            "rule_refs": ["S4.1"],
            "event_types": ["UnitMoved", "UnitMoved"],
        }
        result = ok(
            client.post(
                f"/api/games/{game['id']}/disputes/{dispute}/resolution",
                json={"verdict": "upheld", "citations": [RULING], "club_ruling": ruling},
                headers=api.user("eve"),
            ),
            201,
        )
        rulings.append(result["club_ruling"])
    assert ok(client.get("/api/disputes/queue", headers=api.user("eve"))) == []
    first = svc.store.repository.get(UUID(rulings[0]))
    first.withdraw(str(site.id), "superseded")
    svc.store.commit(first)
    return api, {
        "home": home,
        "away": away,
        "scenarios": made,
        "campaign": campaign,
        "club_game": started["game"],
        "club_dispute": club_dispute,
        "games": games,
        "rulings": rulings,
        "club_seq": club_seq,
    }


def answers(api: ApiHelper, made: dict[str, Any]) -> dict[str, Any]:
    """What the lists built on the four views answer, over HTTP and from the services."""
    client = api.client
    svc: Any = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    home, away = made["home"]["id"], made["away"]["id"]
    out: dict[str, Any] = {}
    for who in ("ann", "dan", "alice", "cat", "eve", None):
        headers = api.user(who) if who else {}
        for club in (home, away):
            listed = ok(client.get(f"/api/clubs/{club}/scenarios", headers=headers))
            out[f"club {club} {who}"] = [s["title"] for s in listed]
        library = ok(client.get("/api/club-scenarios", headers=headers))
        out[f"library {who}"] = [s["title"] for s in library]
        if who:
            queue = ok(client.get("/api/disputes/queue", headers=headers))
            out[f"queue {who}"] = [(q["game"], q["dispute"], q["event"]["seq"]) for q in queue]
    out["campaigns"] = ok(client.get(f"/api/clubs/{home}/campaigns"))
    out["rulings"] = [r.id for r in svc.knowledge.club_rulings()]
    return out


def test_the_views_equal_their_rebuild_and_answer_the_lists(app: Flask) -> None:
    svc: Any = app.extensions["arbiter"]
    api, made = make_world(app)
    got = answers(api, made)
    home, away = made["home"]["id"], made["away"]["id"]
    assert got[f"club {home} ann"] == ["Alpha", "mike", "zulu"]  # a member: all, by title
    assert got[f"club {home} dan"] == ["Alpha", "mike"]  # another club's: shared and public
    assert got[f"club {home} None"] == ["mike"]  # a visitor: public only
    assert got[f"club {away} dan"] == ["Alpha away"] and got[f"club {away} ann"] == []
    assert got["library eve"] == ["mike"] and got["library ann"] == ["Alpha", "mike", "zulu"]
    assert got["library dan"] == ["Alpha", "mike"]  # the fork is not published yet
    assert got["queue cat"] == [(made["club_game"], made["club_dispute"], made["club_seq"])]
    assert got["queue eve"] == [] and got["queue alice"] == []
    assert got["campaigns"] == [
        {"id": made["campaign"]["id"], "club": home, "name": "Autumn campaign"}
    ]
    assert got["rulings"] == made["rulings"][1:]  # the first was withdrawn
    svc.projections.run()
    before = {name: rows(svc, name) for name in FOLLOWERS}
    assert all(before[name][svc.projections[name].view.TABLES[0].name] for name in FOLLOWERS)
    for name in FOLLOWERS:
        svc.projections.rebuild(name)
    assert {name: rows(svc, name) for name in FOLLOWERS} == before
    assert answers(api, made) == got


def test_the_arbiters_queue_is_paged(app: Flask) -> None:
    api = ApiHelper(app.test_client())
    svc: Any = app.extensions["arbiter"]
    api.user("eve")
    site = svc.users.by_name("eve")
    site.grant("arbiter")
    svc.store.save(site)
    games = [api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"}) for _ in "abc"]
    opened = [(g["id"], dispute_on(api, g["id"])[1]) for g in games]
    pages, after = [], None
    while True:
        query = {"limit": 2} | ({"after": after} if after else {})
        r = api.client.get("/api/disputes/queue", query_string=query, headers=api.user("eve"))
        pages.append([(q["game"], q["dispute"]) for q in ok(r)])
        after = r.headers.get("X-Next-Cursor")
        if after is None:
            break
        assert 'rel="next"' in r.headers["Link"]
    assert pages == [opened[:2], opened[2:]]
    # alice plays every game: the rows she may not arbitrate are left out, the page is empty
    assert ok(api.client.get("/api/disputes/queue", headers=api.user("alice"))) == []


def test_a_fresh_service_answers_without_reading_the_log(
    store_config: Config, index_template: Path
) -> None:
    with app_of(store_config, index_template) as first:
        api, made = make_world(first)
        expected = answers(api, made)
    # a new process on the same store (its knowledge index copied again: app_of copies it)
    shutil.rmtree(store_config.index_dir)
    with app_of(store_config, index_template) as second:
        svc: Any = second.extensions["arbiter"]
        reads: list[Any] = []
        select = svc.store.recorder.select_notifications

        def counting(*args: Any, **kwargs: Any) -> Any:
            reads.append((args, kwargs))
            return select(*args, **kwargs)

        svc.store.recorder.select_notifications = counting
        fresh = ApiHelper(second.test_client())
        fresh.tokens = dict(api.tokens)
        assert answers(fresh, made) == expected
        assert reads == []  # every list read its view, none followed the log from 0
