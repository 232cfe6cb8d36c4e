"""Joining a club through the HTTP API (issue 29, item 8): an admin invites a user, who is notified
and accepts or declines; a non-member asks to join, the club's admins are notified and approve or
refuse.  Waiting invitations and requests are paged lists, capped per club and per user, and bad
input is a 4xx naming the field with nothing written.

Before: an admin could only add a member by name (nobody was told), and a non-member had no way to
ask: ``POST /api/clubs/<club>/invitations`` and ``…/requests`` were 404s."""

from __future__ import annotations

from typing import Any

import pytest

from service.application import clubs as club_service
from service.domain import clubs as club_domain
from tests.support.api import ApiHelper


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def notices(api: ApiHelper, name: str) -> list[dict[str, Any]]:
    api.work()  # the notification worker's step
    body = ok(api.client.get("/api/me/notifications", headers=api.user(name)))
    return [n for n in body["notifications"] if n["kind"] == "club"]


@pytest.fixture
def club(api: ApiHelper) -> dict[str, Any]:
    return ok(
        api.client.post("/api/clubs", json={"name": "Hex Club"}, headers=api.user("ann")), 201
    )


def test_an_invited_user_is_told_and_accepts_with_the_invitations_roles(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    ann, bob = api.user("ann"), api.user("bob")
    path = f"/api/clubs/{club['id']}"
    body = ok(
        api.client.post(
            f"{path}/invitations", json={"username": "bob", "roles": ["arbiter"]}, headers=ann
        ),
        201,
    )
    assert body["invitations_waiting"] == 1 and body["member_count"] == 1  # not a member yet
    told = notices(api, "bob")
    assert [n["text"] for n in told] == [
        "ann invites you to join the club “Hex Club” as arbiter: accept or decline it on the "
        "club's page."
    ]
    assert told[0]["url"] == f"/clubs/{club['id']}"
    # the invitation is on bob's list and on the club's (for its admins), and the club says so
    mine = ok(api.client.get("/api/me/club-invitations", headers=bob))
    assert mine == [
        {"club": club["id"], "club_name": "Hex Club", "roles": ["arbiter"], "by": "ann"}
    ]
    assert ok(api.client.get(f"{path}/invitations", headers=ann)) == [
        {"username": "bob", "roles": ["arbiter"], "by": "ann"}
    ]
    assert api.client.get(f"{path}/invitations", headers=bob).status_code == 403  # admins only
    for listed in (f"{path}/invitations", f"{path}/requests", "/api/me/club-invitations"):
        assert api.client.get(listed).status_code == 401  # signed out: nobody's list
    seen = ok(api.client.get(path, headers=bob))
    assert seen["viewer_invitation"] == {"roles": ["arbiter"], "by": "ann"}
    assert seen["invitations_waiting"] is None  # not an admin

    body = ok(api.client.post(f"{path}/invitation", json={"accept": True}, headers=bob))
    assert body["viewer_roles"] == ["arbiter"] and body["viewer_invitation"] is None
    assert [m["username"] for m in ok(api.client.get(f"{path}/members"))] == ["ann", "bob"]
    assert ok(api.client.get("/api/me/club-invitations", headers=bob)) == []
    assert [n["text"] for n in notices(api, "ann")] == [
        "bob accepted the invitation to join “Hex Club”."
    ]
    assert [c["name"] for c in ok(api.client.get("/api/clubs?mine=true", headers=bob))] == [
        "Hex Club"
    ]


def test_a_declined_or_withdrawn_invitation_makes_no_member(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    ann, bob, cat = api.user("ann"), api.user("bob"), api.user("cat")
    path = f"/api/clubs/{club['id']}"
    for name in ("bob", "cat"):
        ok(api.client.post(f"{path}/invitations", json={"username": name}, headers=ann), 201)
    again = api.client.post(f"{path}/invitations", json={"username": "bob"}, headers=ann)
    assert again.status_code == 409 and "username" in again.get_json()["details"]
    ok(api.client.post(f"{path}/invitation", json={"accept": False}, headers=bob))
    ok(api.client.delete(f"{path}/invitations/cat", headers=ann))
    assert ok(api.client.get(f"{path}/invitations", headers=ann)) == []
    for headers in (bob, cat):  # nothing left to answer
        r = api.client.post(f"{path}/invitation", json={"accept": True}, headers=headers)
        assert r.status_code == 404 and "invitation" in r.get_json()["details"]
    assert ok(api.client.get(path))["member_count"] == 1
    assert [n["text"] for n in notices(api, "ann")] == [
        "bob declined the invitation to join “Hex Club”."
    ]


def test_a_non_member_asks_to_join_and_an_admin_approves_or_refuses(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    ann, bob, cat = api.user("ann"), api.user("bob"), api.user("cat")
    path = f"/api/clubs/{club['id']}"
    body = ok(api.client.post(f"{path}/requests", headers=bob), 201)
    assert body["viewer_requested"] is True and body["viewer_roles"] == []
    ok(api.client.post(f"{path}/requests", headers=cat), 201)
    twice = api.client.post(f"{path}/requests", headers=bob)
    assert twice.status_code == 409 and "club" in twice.get_json()["details"]
    assert [n["text"] for n in notices(api, "ann")] == [
        "bob asks to join the club “Hex Club”. Approve or refuse it on the club's page.",
        "cat asks to join the club “Hex Club”. Approve or refuse it on the club's page.",
    ][::-1]  # newest first
    assert ok(api.client.get("/api/me/club-requests", headers=bob)) == [
        {"club": club["id"], "club_name": "Hex Club"}
    ]
    assert ok(api.client.get(f"{path}/requests", headers=ann)) == [
        {"username": "bob"},
        {"username": "cat"},
    ]
    # a member who is not an admin may not answer; a bad answer names the field, writes nothing
    assert (
        api.client.post(f"{path}/requests/bob", json={"accept": True}, headers=cat).status_code
        == 403
    )
    bad = api.client.post(f"{path}/requests/bob", json={"accept": "perhaps"}, headers=ann)
    assert bad.status_code in (400, 422) and "accept" in str(bad.get_json())
    ok(api.client.post(f"{path}/requests/bob", json={"accept": True}, headers=ann))
    ok(api.client.post(f"{path}/requests/cat", json={"accept": False}, headers=ann))
    members = ok(api.client.get(f"{path}/members"))
    assert [(m["username"], m["roles"]) for m in members] == [
        ("ann", ["admin", "arbiter", "player"]),
        ("bob", ["player"]),
    ]
    assert [n["text"] for n in notices(api, "bob")] == [
        "ann approved your request to join the club “Hex Club”."
    ]
    assert [n["text"] for n in notices(api, "cat")] == [
        "ann refused your request to join the club “Hex Club”."
    ]
    assert ok(api.client.get(f"{path}/requests", headers=ann)) == []


def test_a_request_is_withdrawn_only_by_who_asked(api: ApiHelper, club: dict[str, Any]) -> None:
    bob, cat = api.user("bob"), api.user("cat")
    path = f"/api/clubs/{club['id']}"
    ok(api.client.post(f"{path}/requests", headers=bob), 201)
    assert api.client.delete(f"{path}/requests/bob", headers=cat).status_code == 403
    body = ok(api.client.delete(f"{path}/requests/bob", headers=bob))
    assert body["viewer_requested"] is False
    assert ok(api.client.get(f"{path}/requests", headers=api.user("ann"))) == []


def test_waiting_lists_are_paged_and_capped_per_club_and_per_user(
    api: ApiHelper, club: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(club_domain, "PENDING_PER_CLUB", 3)
    monkeypatch.setattr(club_service, "INVITATIONS_PER_USER", 2)
    monkeypatch.setattr(club_service, "REQUESTS_PER_USER", 1)
    ann = api.user("ann")
    path = f"/api/clubs/{club['id']}"
    for name in ("u1", "u2", "u3"):
        api.user(name)
        ok(api.client.post(f"{path}/invitations", json={"username": name}, headers=ann), 201)
    api.user("u4")
    full = api.client.post(f"{path}/invitations", json={"username": "u4"}, headers=ann)
    assert full.status_code == 409 and full.get_json()["error"] == "limit_reached"
    assert "username" in full.get_json()["details"]
    # a page of 2, then the rest through X-Next-Cursor
    first = api.client.get(f"{path}/invitations?limit=2", headers=ann)
    assert [r["username"] for r in ok(first)] == ["u1", "u2"]
    cursor = first.headers["X-Next-Cursor"]
    rest = ok(api.client.get(f"{path}/invitations?limit=2&after={cursor}", headers=ann))
    assert [r["username"] for r in rest] == ["u3"]
    # per user: u1 is invited by two clubs; a third is refused
    for name in ("Second Club", "Third Club"):
        ok(api.client.post("/api/clubs", json={"name": name}, headers=api.user("zed")), 201)
    ok(
        api.client.post(
            "/api/clubs/Second Club/invitations", json={"username": "u1"}, headers=api.user("zed")
        ),
        201,
    )
    third = api.client.post(
        "/api/clubs/Third Club/invitations", json={"username": "u1"}, headers=api.user("zed")
    )
    assert third.status_code == 409 and third.get_json()["error"] == "limit_reached"
    # per user: one join request waits at once
    ok(api.client.post("/api/clubs/Second Club/requests", headers=api.user("u4")), 201)
    more = api.client.post("/api/clubs/Third Club/requests", headers=api.user("u4"))
    assert more.status_code == 409 and more.get_json()["error"] == "limit_reached"
    assert ok(api.client.get("/api/clubs/Third Club/requests", headers=api.user("zed"))) == []


def test_bad_input_names_the_field_and_writes_nothing(api: ApiHelper, club: dict[str, Any]) -> None:
    ann = api.user("ann")
    path = f"/api/clubs/{club['id']}"
    r = api.client.post(
        f"{path}/invitations", json={"username": "bob", "roles": ["king"]}, headers=ann
    )
    assert r.status_code == 400 and "roles.0" in r.get_json()["details"]
    r = api.client.post(f"{path}/invitations", json={"username": "nobody-here"}, headers=ann)
    assert r.status_code == 404
    r = api.client.post(f"{path}/invitations", json={}, headers=ann)
    assert r.status_code == 400 and "username" in r.get_json()["details"]
    r = api.client.post(f"{path}/invitations", json={"username": "ann"}, headers=ann)
    assert r.status_code == 409 and "username" in r.get_json()["details"]  # already a member
    r = api.client.post(f"{path}/requests", headers=ann)
    assert r.status_code == 409 and "club" in r.get_json()["details"]
    assert api.client.post(f"{path}/requests").status_code == 401
    assert ok(api.client.get(f"{path}/invitations", headers=ann)) == []
    assert ok(api.client.get(f"{path}/requests", headers=ann)) == []


def test_a_member_an_admin_adds_is_invited_first_and_the_arbiters_are_listed_by_role(
    api: ApiHelper, club: dict[str, Any]
) -> None:
    ann = api.user("ann")
    path = f"/api/clubs/{club['id']}"
    for name, roles in (("bob", ["player"]), ("cat", ["arbiter"]), ("dan", ["player"])):
        api.user(name)
        api.admit(f"{path}/members", {"username": name, "roles": roles}, ann)
    assert [n["text"] for n in notices(api, "cat")] == [
        "ann invites you to join the club “Hex Club” as arbiter: accept or decline it on the "
        "club's page."
    ]  # an admin's "add" asks first (issue 44); only the operator's CLI adds at once
    ok(api.client.put(f"{path}/members/dan/roles/arbiter", headers=ann))
    first = api.client.get(f"{path}/members?role=arbiter&limit=2")
    assert [m["username"] for m in ok(first)] == ["ann", "cat"]
    rest = ok(
        api.client.get(
            f"{path}/members?role=arbiter&limit=2&after={first.headers['X-Next-Cursor']}"
        )
    )
    assert [m["username"] for m in rest] == ["dan"]
    bad = api.client.get(f"{path}/members?role=king")
    assert bad.status_code == 400 and "role" in bad.get_json()["details"]
