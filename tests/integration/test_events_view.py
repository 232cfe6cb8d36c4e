"""The club events' view on a real SQLite file and PostgreSQL (issue 30): a club's events paged
oldest first with their status, and the rounds whose deadline nears read by the worker's warning
(once per round, never for a round whose games all have results)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.config import Config
from tests.conftest import app_of
from tests.support.api import ApiHelper


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


@pytest.fixture
def api(app: Flask) -> ApiHelper:
    return ApiHelper(app.test_client())


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def test_a_clubs_events_paged_and_their_deadlines(api: ApiHelper) -> None:
    ann = api.user("ann")
    club = ok(api.client.post("/api/clubs", json={"name": "View Club"}, headers=ann), 201)
    for name in ("bob", "cat"):
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, ann)
    made = []
    for n in range(5):
        body = {"name": f"Event {n}", "format": "round_robin", "system": "skirmish"}
        body |= {"scenario": "meeting", "round_days": 2 + n}
        made.append(
            ok(api.client.post(f"/api/clubs/{club['id']}/events", json=body, headers=ann), 201)
        )
    seen, after = [], None
    while True:
        query = f"/api/clubs/{club['id']}/events?limit=2" + (f"&after={after}" if after else "")
        r = api.client.get(query)
        page = ok(r)
        assert len(page) <= 2
        seen += page
        after = r.headers.get("X-Next-Cursor")
        if not after:
            break
    assert [e["name"] for e in seen] == [f"Event {n}" for n in range(5)]
    assert {e["status"] for e in seen} == {"open"}
    # two events start: a round each, deadlines 2 and 3 days on
    for event in made[:2]:
        for name in ("bob", "cat"):
            ok(api.client.post(f"/api/events/{event['id']}/join", headers=api.user(name)), 201)
        ok(api.client.post(f"/api/events/{event['id']}/start", headers=ann), 201)
    statuses = [e["status"] for e in ok(api.client.get(f"/api/clubs/{club['id']}/events"))]
    assert statuses == ["started", "started", "open", "open", "open"]
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    assert svc.tournaments.check_deadlines(now) == 0  # both more than a day away
    assert svc.tournaments.check_deadlines(now + timedelta(days=1, hours=1)) == 1  # the first
    assert svc.tournaments.check_deadlines(now + timedelta(days=1, hours=2)) == 0  # once
    # the second event's game gets its result: its round has nothing left to warn about
    second = ok(api.client.get(f"/api/events/{made[1]['id']}"))
    game = second["rounds"][0]["games"][0]  # under way since it was paired
    ok(
        api.client.post(
            f"/api/games/{game['game']}/resign", json={}, headers=api.user(game["sides"]["red"])
        )
    )
    api.work()
    assert ok(api.client.get(f"/api/events/{made[1]['id']}"))["status"] == "finished"
    assert svc.tournaments.check_deadlines(now + timedelta(days=5)) == 0
    statuses = [e["status"] for e in ok(api.client.get(f"/api/clubs/{club['id']}/events"))]
    assert statuses == ["started", "finished", "open", "open", "open"]
    # the view is the log's: rebuilt from it while the server runs, every event reads the same
    before = [ok(api.client.get(f"/api/events/{e['id']}")) for e in made]
    svc.projections.rebuild("tournaments")
    assert [ok(api.client.get(f"/api/events/{e['id']}")) for e in made] == before
    assert [r["player"] for r in before[1]["standings"]][1] == game["sides"]["red"]  # resigned
