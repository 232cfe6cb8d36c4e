"""Quotas (issue 44, findings 5 and 9), through the HTTP API: stored bytes per user and per club,
and caps on clubs, scenarios, hot-seat games, open games and game invitations.  At each limit one
more is a 409 ``limit_reached`` naming the field and the limit, and nothing is written.

Before: one user could keep 25 clubs x 25 scenarios x 10 map images (one 19.8 MB PNG added
52.7 MB on disk), make 30 hot-seat games in 1.6 s, and send 29 invitations to an unwilling user.
And a club admin could put anyone into a club without asking them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from PIL import Image

from service.domain.map_images import stored_size
from service.domain.quotas import Holdings
from tests.conftest import app_of, make_config
from tests.support.api import ApiHelper


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def refused(response: Any, field: str, words: str) -> dict[str, Any]:
    body = response.get_json()
    assert response.status_code == 409, body
    assert body["error"] == "limit_reached", body
    assert words in body["details"][field][0], body
    return body


def png(shade: int) -> bytes:
    """A small PNG of its own bytes (the shade makes each distinct)."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (shade, 40, 90)).save(out, "PNG")
    return out.getvalue()


IMAGE = stored_size(png(0))  # each of these PNGs is the same size


@pytest.fixture
def small(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    """A server whose quotas are reached in a few requests."""
    config = make_config(
        tmp_path,
        bytes_per_user=2 * IMAGE,
        bytes_per_club=3 * IMAGE,
        clubs_per_user=2,
        scenarios_per_user=3,
        scenarios_per_club=4,
        hotseat_per_user=2,
        seeks_per_user=2,
        invitations_per_user=3,
        invitations_per_pair=2,
    )
    with app_of(config, index_template) as application:
        yield application


@pytest.fixture
def sapi(small: Flask) -> ApiHelper:
    return ApiHelper(small.test_client())


def club(api: ApiHelper, name: str, founder: str = "ann") -> str:
    return str(
        ok(api.client.post("/api/clubs", json={"name": name}, headers=api.user(founder)), 201)["id"]
    )


def scenario(api: ApiHelper, cid: str, by: str = "ann", title: str = "Merida") -> Any:
    return api.client.post(
        f"/api/clubs/{cid}/scenarios",
        json={"system": "merida", "base": "merida-1938", "title": title},
        headers=api.user(by),
    )


def upload(api: ApiHelper, sid: str, data: bytes, user: str = "ann") -> Any:
    return api.client.post(
        f"/api/club-scenarios/{sid}/map-image",
        data=data,
        content_type="image/png",
        headers=api.user(user),
    )


def held(api: ApiHelper, kind: str, owner: str) -> dict[str, int]:
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    try:
        found = svc.store.repository.get(Holdings.id_for(kind, owner))
    except Exception:
        return {}
    return dict(found.counts)


def uid(api: ApiHelper, name: str) -> str:
    svc = api.client.application.extensions["arbiter"]  # type: ignore[attr-defined]
    return str(svc.users.by_name(name).id)


def image_of(api: ApiHelper, sid: str) -> Any:
    draft = ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("ann")))
    return draft["document"]["map"].get("image")


# -- stored bytes ---------------------------------------------------------------------------------
def test_a_users_stored_bytes_stop_at_the_quota_and_nothing_is_written(sapi: ApiHelper) -> None:
    cid = club(sapi, "Scan Club")
    sid = ok(scenario(sapi, cid), 201)["id"]
    ok(upload(sapi, sid, png(1)), 201)
    second = ok(upload(sapi, sid, png(2)), 201)  # at the limit: 2 images' bytes
    assert held(sapi, "user", uid(sapi, "ann"))["bytes"] == 2 * IMAGE
    body = refused(upload(sapi, sid, png(3)), "image", "at most")
    assert "MB of map images" in body["details"]["image"][0]
    # nothing written: the draft names the second image, the third is not stored, none counted
    assert image_of(sapi, sid)["sha256"] == second["sha256"]
    assert held(sapi, "user", uid(sapi, "ann"))["bytes"] == 2 * IMAGE
    assert held(sapi, "club", cid)["bytes"] == 2 * IMAGE
    # the same bytes again are no new bytes: kept and named, nothing counted
    ok(upload(sapi, sid, png(1)), 201)
    assert held(sapi, "user", uid(sapi, "ann"))["bytes"] == 2 * IMAGE


def test_a_clubs_stored_bytes_stop_at_its_quota_whoever_uploads(sapi: ApiHelper) -> None:
    cid = club(sapi, "Scan Club")
    sapi.user("bob")
    sapi.admit(f"/api/clubs/{cid}/members", {"username": "bob", "roles": ["admin"]}, "ann")
    sid = ok(scenario(sapi, cid), 201)["id"]
    ok(upload(sapi, sid, png(1)), 201)
    ok(upload(sapi, sid, png(2)), 201)
    ok(upload(sapi, sid, png(3), user="bob"), 201)  # the club's third: at its limit
    before = image_of(sapi, sid)
    body = refused(upload(sapi, sid, png(4), user="bob"), "image", "a club keeps at most")
    assert body["message"] == "no room left for this image"
    assert image_of(sapi, sid) == before
    assert held(sapi, "club", cid)["bytes"] == 3 * IMAGE
    assert held(sapi, "user", uid(sapi, "bob"))["bytes"] == IMAGE


# -- clubs and scenarios --------------------------------------------------------------------------
def test_clubs_founded_per_user_are_capped(sapi: ApiHelper) -> None:
    club(sapi, "First Club")
    club(sapi, "Second Club")
    r = sapi.client.post("/api/clubs", json={"name": "Third Club"}, headers=sapi.user("ann"))
    refused(r, "name", "at most 2 clubs")
    assert sapi.client.get("/api/clubs/Third Club").status_code == 404  # nothing written
    assert len(ok(sapi.client.get("/api/clubs"))) == 2
    club(sapi, "Bob's Club", "bob")  # another user founds their own


def test_scenarios_per_user_and_per_club_are_capped(sapi: ApiHelper) -> None:
    cid, other = club(sapi, "Scenario Club"), club(sapi, "Other Club")
    sapi.user("bob")
    sapi.admit(f"/api/clubs/{cid}/members", {"username": "bob", "roles": ["admin"]}, "ann")
    for n in range(3):
        ok(scenario(sapi, cid, title=f"Merida {n}"), 201)
    refused(scenario(sapi, other, title="One more"), "scenario", "a user makes at most 3")
    ok(scenario(sapi, cid, by="bob", title="Bob's"), 201)  # the club's fourth: at its limit
    refused(scenario(sapi, cid, by="bob", title="Bob's 2"), "club", "a club holds at most 4")
    listed = ok(sapi.client.get(f"/api/clubs/{cid}/scenarios", headers=sapi.user("ann")))
    assert len(listed) == 4  # nothing written
    assert ok(sapi.client.get(f"/api/clubs/{other}/scenarios", headers=sapi.user("ann"))) == []


# -- games, open games, invitations ---------------------------------------------------------------
def game(api: ApiHelper, sides: dict[str, str], by: str = "ann") -> Any:
    body = {"system": "skirmish", "scenario": "meeting", "sides": sides}
    return api.client.post("/api/games", json=body, headers=api.user(by))


def mine(api: ApiHelper, user: str) -> list[dict[str, Any]]:
    return list(ok(api.client.get("/api/games?mine=true", headers=api.user(user))))


def test_hot_seat_games_in_progress_are_capped(sapi: ApiHelper) -> None:
    solo = {"red": "ann", "blue": "ann"}
    made = [ok(game(sapi, solo), 201) for _ in range(2)]
    refused(game(sapi, solo), "sides", "at most 2 games of your own")
    assert len(mine(sapi, "ann")) == 2  # nothing written
    ok(
        sapi.client.post(
            f"/api/games/{made[0]['id']}/resign", json={"side": "red"}, headers=sapi.user("ann")
        )
    )
    ok(game(sapi, solo), 201)  # one ended: a place again


def test_open_games_per_user_are_capped(sapi: ApiHelper) -> None:
    seek = {"system": "skirmish", "scenario": "meeting", "side": "blue"}
    made = [
        ok(sapi.client.post("/api/seeks", json=seek, headers=sapi.user("ann")), 201)
        for _ in range(2)
    ]
    refused(
        sapi.client.post("/api/seeks", json=seek, headers=sapi.user("ann")), "seek", "at most 2"
    )
    assert len(ok(sapi.client.get("/api/seeks"))) == 2  # nothing written
    ok(sapi.client.delete(f"/api/seeks/{made[0]['id']}", headers=sapi.user("ann")))
    ok(sapi.client.post("/api/seeks", json=seek, headers=sapi.user("ann")), 201)


def test_invitations_waiting_from_one_user_are_capped_per_user_and_per_pair(
    sapi: ApiHelper,
) -> None:
    for name in ("bob", "cat", "dan"):
        sapi.user(name)
    ok(game(sapi, {"red": "ann", "blue": "bob"}), 201)
    declined = ok(game(sapi, {"red": "ann", "blue": "bob"}), 201)
    body = refused(game(sapi, {"red": "ann", "blue": "bob"}), "sides", "bob has 2 of your")
    assert "bob" in body["message"]
    assert len(ok(sapi.client.get("/api/games?invited=true", headers=sapi.user("bob")))) == 2
    ok(game(sapi, {"red": "ann", "blue": "cat"}), 201)  # ann's third: at her limit
    refused(game(sapi, {"red": "ann", "blue": "dan"}), "sides", "at most 3 of your invitations")
    assert ok(sapi.client.get("/api/games?invited=true", headers=sapi.user("dan"))) == []
    ok(sapi.client.post(f"/api/games/{declined['id']}/decline", json={}, headers=sapi.user("bob")))
    ok(game(sapi, {"red": "ann", "blue": "dan"}), 201)  # bob's answer freed a place


# -- a member added by an admin is invited and accepts --------------------------------------------
def test_a_member_an_admin_adds_is_invited_not_a_member_until_they_accept(api: ApiHelper) -> None:
    cid = club(api, "Consent Club")
    for name in ("bob", "cat", "eve"):
        api.user(name)
    sid = ok(scenario(api, cid), 201)["id"]  # private to the club's members
    added = ok(
        api.client.post(
            f"/api/clubs/{cid}/members", json={"username": "bob"}, headers=api.user("ann")
        ),
        201,
    )
    assert added["member_count"] == 1 and added["invitations_waiting"] == 1
    members = ok(api.client.get(f"/api/clubs/{cid}/members"))
    assert [m["username"] for m in members] == ["ann"]  # invited is not a member
    seen = ok(api.client.get(f"/api/clubs/{cid}", headers=api.user("bob")))
    assert seen["viewer_roles"] == [] and seen["viewer_invitation"]["by"] == "ann"
    assert api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("bob")).status_code in (
        403,
        404,
    )
    # a stranger cannot answer bob's invitation
    r = api.client.post(
        f"/api/clubs/{cid}/invitation", json={"accept": True}, headers=api.user("eve")
    )
    assert r.status_code == 404 and "invitation" in r.get_json()["details"]
    assert [m["username"] for m in ok(api.client.get(f"/api/clubs/{cid}/members"))] == ["ann"]
    # bob accepts: a member, who reads the club's scenario
    body = ok(
        api.client.post(
            f"/api/clubs/{cid}/invitation", json={"accept": True}, headers=api.user("bob")
        )
    )
    assert body["viewer_roles"] == ["player"]
    ok(api.client.get(f"/api/club-scenarios/{sid}", headers=api.user("bob")))
    # cat declines: not a member
    ok(
        api.client.post(
            f"/api/clubs/{cid}/members", json={"username": "cat"}, headers=api.user("ann")
        ),
        201,
    )
    ok(
        api.client.post(
            f"/api/clubs/{cid}/invitation", json={"accept": False}, headers=api.user("cat")
        )
    )
    assert [m["username"] for m in ok(api.client.get(f"/api/clubs/{cid}/members"))] == [
        "ann",
        "bob",
    ]
    assert (
        ok(api.client.get(f"/api/clubs/{cid}", headers=api.user("cat")))["viewer_invitation"]
        is None
    )


def test_one_who_asked_to_join_is_added_at_once(api: ApiHelper) -> None:
    cid = club(api, "Open Door Club")
    ok(api.client.post(f"/api/clubs/{cid}/requests", headers=api.user("bob")), 201)
    body = ok(
        api.client.post(
            f"/api/clubs/{cid}/members", json={"username": "bob"}, headers=api.user("ann")
        ),
        201,
    )
    assert body["member_count"] == 2 and body["requests_waiting"] == 0


def test_the_quota_settings_are_read_from_the_environment_and_checked(tmp_path: Path) -> None:
    from service.config import Config, ConfigError

    env = {"ARBITER_VAR": str(tmp_path / "var"), "ARBITER_SECRET_KEY": "k"}
    quotas = Config.from_env(env).quotas()
    assert (quotas.bytes_per_user, quotas.bytes_per_club) == (200 * 1024**2, 500 * 1024**2)
    assert (quotas.hotseat_per_user, quotas.seeks_per_user, quotas.clubs_per_user) == (20, 10, 5)
    assert (quotas.invitations_per_user, quotas.invitations_per_pair) == (20, 5)
    assert (quotas.scenarios_per_user, quotas.scenarios_per_club) == (50, 100)
    assert Config.from_env(env | {"ARBITER_BYTES_PER_USER": "1000"}).quotas().bytes_per_user == 1000
    with pytest.raises(ConfigError, match="ARBITER_SEEKS_PER_USER must be 1 or more"):
        Config.from_env(env | {"ARBITER_SEEKS_PER_USER": "0"})
    with pytest.raises(ConfigError, match="ARBITER_INVITATIONS_PER_PAIR must be at most"):
        Config.from_env(env | {"ARBITER_INVITATIONS_PER_PAIR": "30"})
