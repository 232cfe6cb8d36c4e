"""The persisted notices view (issue 27), on a real SQLite file and PostgreSQL: ``GET
/api/me/notifications`` pages through a user's notices newest first (each once, X-Next-Cursor), counts
the unread and all by index, honours the kinds turned off for the web, marks read; the GET reads the
view only; the view equals its rebuild from the process's log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import Tracking
from flask import Flask

from service.bootstrap import build_worker
from service.config import Config
from service.views.notices import UNREAD_CAP, moment
from tests.conftest import app_of
from tests.support.api import ApiHelper


@pytest.fixture
def app(store_config: Config, index_template: Path) -> Iterator[Flask]:
    with app_of(store_config, index_template) as application:
        yield application


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, (r.status_code, r.get_json())
    return r.get_json()


def walk(api: ApiHelper, user: str, limit: int, query: str = "") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    path = f"/api/me/notifications?limit={limit}{query}"
    while True:
        r = api.client.get(path, headers=api.user(user))
        body = ok(r)
        assert len(body["notifications"]) <= limit
        rows += body["notifications"]
        cursor = r.headers.get("X-Next-Cursor")
        if cursor is None:
            return rows
        path = f"/api/me/notifications?limit={limit}{query}&after={cursor}"


def test_notifications_page_count_and_rebuild(app: Flask) -> None:
    api = ApiHelper(app.test_client())
    svc: Any = app.extensions["arbiter"]
    worker = build_worker(svc, process=svc.notifications.process)
    api.user("bob")
    for n in range(7):  # seven invitations from ann to bob, then turns as bob accepts some
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
        if n % 2:
            ok(api.client.post(f"/api/games/{game['id']}/accept", headers=api.user("bob")))
    worker.step()
    view = svc.notifications.process.views["notices"].view
    everything = view.page(
        str(svc.users.by_name("bob").id), ["invitation", "turn", "game"], limit=1000
    )
    first = ok(api.client.get("/api/me/notifications?limit=100", headers=api.user("bob")))
    assert first["total"] == len(first["notifications"]) >= 7
    assert first["unread"] == first["total"]
    for limit in (1, 3, 100):
        rows = walk(api, "bob", limit)
        assert [r["id"] for r in rows] == [r["id"] for r in first["notifications"]]
        assert len({r["id"] for r in rows}) == len(rows)
    assert [r["created"] for r in first["notifications"]] == sorted(
        (r["created"] for r in first["notifications"]), reverse=True
    )
    assert {r["id"] for r in everything} <= {r["id"] for r in first["notifications"]}
    # two read: the counts and the unread filter follow, by index
    two = [r["id"] for r in first["notifications"][:2]]
    assert (
        ok(
            api.client.post(
                "/api/me/notifications/read", json={"ids": two}, headers=api.user("bob")
            )
        )["unread"]
        == first["total"] - 2
    )
    unread = walk(api, "bob", 2, "&unread=true")
    assert [r["id"] for r in unread] == [r["id"] for r in first["notifications"][2:]]
    # a kind turned off for the web is left out of the list and the counts
    kinds = {r["kind"] for r in first["notifications"]}
    off = sorted(kinds)[0]
    ok(
        api.client.put(
            "/api/me/notification-preferences",
            json={"preferences": {off: {"web": False}}},
            headers=api.user("bob"),
        )
    )
    shown = ok(api.client.get("/api/me/notifications?limit=100", headers=api.user("bob")))
    assert off not in {r["kind"] for r in shown["notifications"]}
    assert shown["total"] == sum(1 for r in first["notifications"] if r["kind"] != off)
    # all read
    assert (
        ok(
            api.client.post(
                "/api/me/notifications/read", json={"all": True}, headers=api.user("bob")
            )
        )["unread"]
        == 0
    )
    before = view.query("SELECT * FROM {notices} ORDER BY id")
    counts = view.query("SELECT * FROM {notice_counts} ORDER BY user_id, kind")
    assert counts == view.query(
        "SELECT user_id, kind, COUNT(*) AS n FROM {notices} GROUP BY user_id, kind "
        "ORDER BY user_id, kind"
    )
    svc.notifications.process.views.rebuild("notices")
    assert view.query("SELECT * FROM {notices} ORDER BY id") == before and before
    assert view.query("SELECT * FROM {notice_counts} ORDER BY user_id, kind") == counts


def test_counts_are_stored_filled_on_upgrade_and_unread_capped(app: Flask) -> None:
    """The totals come from a count per (user, kind) kept with each notice, not from counting a
    user's notices; a store of a release before the counts gets them from its notices when its
    tables are made; unread after a "mark all read" is counted up to UNREAD_CAP, exact otherwise."""
    svc: Any = app.extensions["arbiter"]
    view = svc.notifications.process.views["notices"].view
    name = svc.notifications.process.name
    start = view.max_tracking_id(name) or 0
    with view.batch():
        for n in range(UNREAD_CAP + 5):
            view.add_notice(
                {
                    "id": f"n{n:05d}",
                    "user_id": "u1",
                    "kind": "turn" if n % 2 else "game",
                    "text": "Your turn",
                    "game": None,
                    "url": None,
                    "created": 1_000_000 + n,
                },
                Tracking(name, start + n + 1),
            )
        # the same notice again (a replayed event) is not counted twice
        view.add_notice(
            {
                "id": "n00000",
                "user_id": "u1",
                "kind": "game",
                "text": "x",
                "game": None,
                "url": None,
                "created": 1_000_000,
            },
            Tracking(name, start + UNREAD_CAP + 6),
        )
    total = UNREAD_CAP + 5
    assert view.count("u1", ["turn", "game"]) == total
    assert view.count("u1", ["turn"]) == (total) // 2
    assert view.count("u1", ["turn", "game"], (None, [])) == total
    assert view.count("u1", ["turn", "game"], (None, ["n00001", "n00002", "nope"])) == total - 2
    assert view.count("u1", ["turn"], (None, ["n00001", "n00002"])) == total // 2 - 1
    early = moment(1_000_000 + 2)  # all after the third unread: more than the cap
    assert view.count("u1", ["turn", "game"], (early, [])) == UNREAD_CAP
    late = moment(1_000_000 + total - 4)  # the last three
    assert view.count("u1", ["turn", "game"], (late, ["n01004"])) == 2
    # an earlier release's store: notices and no counts; making the tables counts them
    view.execute("DELETE FROM {notice_counts}")
    assert view.count("u1", ["turn", "game"]) == 0
    view.create_table()
    assert view.count("u1", ["turn", "game"]) == total
    view.create_table()  # and only once
    assert view.count("u1", ["turn", "game"]) == total


def test_a_bad_cursor_or_page_is_a_400_naming_it(app: Flask) -> None:
    api = ApiHelper(app.test_client())
    r = api.client.get("/api/me/notifications?after=nonsense", headers=api.user("ann"))
    assert r.status_code in (400, 422) and "after" in str(r.get_json())
    r = api.client.get("/api/me/notifications?limit=501", headers=api.user("ann"))
    assert r.status_code in (400, 422) and "limit" in str(r.get_json())
