"""Limits a member cannot exceed (issue 34, finding 4), through the HTTP API: each refusal is a
409 ``limit_reached`` naming the field and the limit, and writes nothing.

Before: club scenario drafts had no size limit (8 edits of 1,900 units each: 15,200 units,
6.7 MiB, each edit slower than the last), a user could register any number of webhooks (150
accepted) and hold any number of live tokens (312)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from tests.conftest import app_of, make_config
from tests.support.api import PASSWORD, ApiHelper


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def refused(response: Any, field: str) -> dict[str, Any]:
    body = response.get_json()
    assert response.status_code == 409, body
    assert body["error"] == "limit_reached", body
    assert field in body["details"], body
    return body


@pytest.fixture
def small(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    """A server with small limits, so that each is reached in a few requests."""
    config = make_config(
        tmp_path,
        draft_max_units=200,
        draft_max_hexes=2000,
        draft_max_bytes=200_000,
        webhooks_per_user=3,
        webhooks_per_club=2,
        tokens_per_user=3,
        webhook_allow_private=True,
    )
    with app_of(config, index_template) as application:
        yield application


@pytest.fixture
def sapi(small: Flask) -> ApiHelper:
    return ApiHelper(small.test_client())


def club_scenario(api: ApiHelper) -> tuple[str, str]:
    club = ok(
        api.client.post("/api/clubs", json={"name": "Merida Club"}, headers=api.user("ann")), 201
    )
    body = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "merida", "base": "merida-1938", "title": "Merida as printed"},
            headers=api.user("ann"),
        ),
        201,
    )
    return club["id"], body["id"]


def units(first: int, count: int) -> list[dict[str, Any]]:
    return [
        {
            "kind": "unit_added",
            "unit": {
                "id": f"extra-{n}",
                "side": "nationalist",
                "type": "infantry",
                "name": f"Extra battalion {n}",
                "steps": 2,
                "notes": "x" * 300,
            },
        }
        for n in range(first, first + count)
    ]


def edit(api: ApiHelper, sid: str, changes: list[dict[str, Any]]) -> Any:
    return api.client.post(
        f"/api/club-scenarios/{sid}/edits", json={"changes": changes}, headers=api.user("ann")
    )


def draft(api: ApiHelper, sid: str) -> dict[str, Any]:
    return ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")))


def test_edits_of_1800_units_a_time_stop_at_the_default_limit(api: ApiHelper) -> None:
    """The default (2,000 units): Merida's 101 and a first edit of 1,800 units are kept, the
    second edit of 1,800 is refused (the issue grew a draft to 15,200 units this way)."""
    _, sid = club_scenario(api)
    ok(edit(api, sid, units(0, 1800)))
    before = draft(api, sid)
    body = refused(edit(api, sid, units(1800, 1800)), "units")
    assert "at most 2000" in body["details"]["units"][0]
    after = draft(api, sid)
    assert after["edits"] == before["edits"]
    assert len(after["document"]["units"]) == len(before["document"]["units"])


def test_a_draft_past_its_units_hexes_or_bytes_is_refused_and_nothing_is_written(
    sapi: ApiHelper,
) -> None:
    _, sid = club_scenario(sapi)
    start = draft(sapi, sid)
    # units: Merida's 72 on the map and its reinforcements, and 200 more is past 200
    refused(edit(sapi, sid, units(0, 200)), "units")
    # hexes: bounds 26 x 43 = 1,118; 60 x 43 = 2,580 is past 2,000
    bounds = dict(start["document"]["map"]["bounds"], max_col=60)
    refused(edit(sapi, sid, [{"kind": "field", "path": "map.bounds", "value": bounds}]), "map")
    # bytes: a few units with long notes
    long = [dict(c, unit=dict(c["unit"], notes="y" * 60_000)) for c in units(0, 4)]
    body = refused(edit(sapi, sid, long), "document")
    assert "200,000" in body["details"]["document"][0]
    after = draft(sapi, sid)
    assert after["edits"] == 0 and after["document"] == start["document"]
    # within the limits an edit is still kept
    ok(edit(sapi, sid, units(0, 3)))
    assert draft(sapi, sid)["edits"] == 3  # one per change


def hook(api: ApiHelper, path: str, user: str, n: int) -> Any:
    return api.client.post(
        path,
        json={"url": f"http://127.0.0.1:9/hook-{n}", "kinds": ["turn"]},
        headers=api.user(user),
    )


def test_webhooks_per_user_and_per_club_are_capped_and_removal_frees_a_place(
    sapi: ApiHelper,
) -> None:
    made = [ok(hook(sapi, "/api/me/webhooks", "ann", n), 201) for n in range(3)]
    body = refused(hook(sapi, "/api/me/webhooks", "ann", 3), "url")
    assert "at most 3" in body["details"]["url"][0]
    listed = ok(sapi.client.get("/api/me/webhooks", headers=sapi.user("ann")))
    assert len(listed["webhooks"]) == 3  # nothing written
    ok(hook(sapi, "/api/me/webhooks", "bob", 0), 201)  # another user has places of their own
    gone = sapi.client.delete(f"/api/me/webhooks/{made[0]['id']}", headers=sapi.user("ann"))
    assert gone.status_code in (200, 204), gone.get_json()
    ok(hook(sapi, "/api/me/webhooks", "ann", 4), 201)

    club, _ = club_scenario(sapi)
    path = f"/api/clubs/{club}/webhooks"
    for n in range(2):
        ok(hook(sapi, path, "ann", n), 201)
    refused(hook(sapi, path, "ann", 2), "url")


def test_live_tokens_per_user_are_capped_the_oldest_giving_way(sapi: ApiHelper) -> None:
    """A fourth sign-in (limit 3) revokes the oldest token: it answers 401, the newer ones work."""
    sapi.user("ann")  # registers and signs in once
    tokens = [sapi.tokens["ann"]]
    for _ in range(3):
        r = sapi.client.post("/api/tokens", json={"username": "ann", "password": PASSWORD})
        tokens.append(ok(r, 201)["token"])

    def status(token: str) -> int:
        return sapi.client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code

    assert status(tokens[0]) == 401
    assert [status(t) for t in tokens[1:]] == [200, 200, 200]


def test_a_burst_of_sign_ins_all_succeed_and_leave_at_most_the_cap_live(sapi: ApiHelper) -> None:
    """30 sign-ins of one user at once (limit 3): every one answers 201 (no sign-in fails on
    another's revocation), and afterwards at most 3 of the user's tokens are live."""
    sapi.user("ann")
    app = sapi.client.application
    start = threading.Barrier(30)
    statuses: list[int] = []

    def sign_in() -> None:
        client = app.test_client()
        start.wait()
        r = client.post("/api/tokens", json={"username": "ann", "password": PASSWORD})
        statuses.append(r.status_code)

    threads = [threading.Thread(target=sign_in) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert statuses == [201] * 30, statuses
    r = sapi.client.post("/api/tokens", json={"username": "ann", "password": PASSWORD})
    token = ok(r, 201)["token"]
    listed = ok(sapi.client.get("/api/me/tokens", headers={"Authorization": f"Bearer {token}"}))
    assert len(listed["tokens"]) <= 3, listed
