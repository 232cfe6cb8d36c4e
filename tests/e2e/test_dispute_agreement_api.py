"""Who rules on a game's disputes, and settling one by both players' agreement (issue 29, item 1),
through the HTTP API.

Before: a two-member club's games, and games of no club on a site without arbiters, could never
have a dispute decided (a player never rules on their own game), and nothing told the players so:
``GET /api/games/<id>/arbiters`` and ``…/disputes/<d>/proposal`` were 404s."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import ApiHelper

SIDES = {"red": "alice", "blue": "bob"}


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def club_of(api: ApiHelper, *members: str) -> dict[str, Any]:
    club = ok(
        api.client.post("/api/clubs", json={"name": "Two of Us"}, headers=api.user("alice")), 201
    )
    for name in members:
        api.user(name)
        api.admit(f"/api/clubs/{club['id']}/members", {"username": name}, api.user("alice"))
    return club


def club_game(api: ApiHelper, club: dict[str, Any]) -> str:
    body = {"system": "skirmish", "scenario": "meeting", "sides": SIDES, "club": club["name"]}
    game = ok(api.client.post("/api/games", json=body, headers=api.user("alice")), 201)
    api.accept_all(game, "alice")
    return str(game["id"])


def disputed(api: ApiHelper, gid: str) -> str:
    move = {"type": "move", "unit": "r2", "path": ["D3", "D4"]}
    assert api.command(gid, "alice", move).status_code == 201
    r = api.client.post(
        f"/api/games/{gid}/disputes",
        json={"seq": api.game(gid, "alice")["version"], "claim": "the wood costs 2"},
        headers=api.user("bob"),
    )
    return str(ok(r, 201)["dispute"])


def test_a_two_member_clubs_game_says_nobody_may_rule_and_the_players_agree(
    api: ApiHelper,
) -> None:
    club = club_of(api, "bob")
    gid = club_game(api, club)
    who = ok(api.client.get(f"/api/games/{gid}/arbiters", headers=api.user("bob")))
    assert who == {
        "club": {"id": club["id"], "name": "Two of Us"},
        "arbiters": [],  # alice, the founder, is an arbiter, but plays this game
        "arbiter_count": 0,
        "site_arbiters": False,
        "viewer_may_appoint": False,
        "agreement": True,
    }
    assert ok(api.client.get(f"/api/games/{gid}/arbiters", headers=api.user("alice")))[
        "viewer_may_appoint"
    ]
    dispute = disputed(api, gid)
    base = f"/api/games/{gid}/disputes/{dispute}"
    # the one who proposes cannot accept their own proposal; nothing to accept before one
    r = api.client.post(f"{base}/agreement", json={}, headers=api.user("alice"))
    assert r.status_code == 409 and "dispute" in r.get_json()["details"]
    proposed = ok(
        api.client.post(
            f"{base}/proposal",
            json={"verdict": "overturned", "note": "the wood costs 2: my mistake"},
            headers=api.user("alice"),
        ),
        201,
    )
    assert proposed["proposal"] == {
        "side": "red",
        "verdict": "overturned",
        "note": "the wood costs 2: my mistake",
    }
    assert proposed["status"] == "open"
    api.work()  # the notification worker: the other side is asked
    told = ok(api.client.get("/api/me/notifications", headers=api.user("bob")))["notifications"]
    assert told[0]["text"] == (
        "alice proposes to settle the dispute in “Meeting at the Mill” by agreement: the event "
        "was wrong. Accept it or propose another on the game page."
    )
    r = api.client.post(f"{base}/agreement", json={}, headers=api.user("alice"))
    assert r.status_code == 403 and "side" in r.get_json()["details"]
    agreed = ok(api.client.post(f"{base}/agreement", json={}, headers=api.user("bob")), 201)
    assert agreed["status"] == "overturned" and agreed["agreed"] and agreed["proposal"] is None
    game = api.game(gid, "alice")
    assert game["disputes"][dispute]["status"] == "overturned"
    assert game["disputes"][dispute]["agreed"] is True
    assert game["paused_by"] is None  # play goes on
    api.work()
    told = ok(api.client.get("/api/me/notifications", headers=api.user("alice")))["notifications"]
    assert (
        told[0]["text"]
        == "Both players agreed on the dispute in “Meeting at the Mill”: overturned."
    )
    listed = ok(api.client.get(f"/api/games/{gid}/disputes", headers=api.user("bob")))
    resolution = listed[0]["resolution"]
    assert resolution["agreed_by"] == ["alice", "bob"] and resolution["arbiter"] is None
    assert resolution["verdict"] == "overturned" and resolution["remedy"] is None
    # decided: no second agreement, no arbiter's verdict
    r = api.client.post(f"{base}/proposal", json={"verdict": "upheld"}, headers=api.user("bob"))
    assert r.status_code == 409
    assert api.client.get(f"/api/games/{gid}/audit", headers=api.user("alice")).get_json()["ok"]
    types = [e["type"] for e in api.events(gid, "alice")]
    assert types[-2:] == ["VerdictProposed", "VerdictAgreed"]


def test_a_club_game_names_its_eligible_arbiters_who_see_it_in_their_queue(
    api: ApiHelper,
) -> None:
    club = club_of(api, "bob", "carol")
    ok(
        api.client.put(
            f"/api/clubs/{club['id']}/members/carol/roles/arbiter", headers=api.user("alice")
        )
    )
    gid = club_game(api, club)
    who = ok(api.client.get(f"/api/games/{gid}/arbiters", headers=api.user("bob")))
    assert who["arbiters"] == ["carol"] and who["arbiter_count"] == 1
    dispute = disputed(api, gid)
    queue = ok(api.client.get("/api/disputes/queue", headers=api.user("carol")))
    assert [(d["game"], d["dispute"]) for d in queue] == [(gid, dispute)]
    # an agreement takes it off the club arbiter's queue
    base = f"/api/games/{gid}/disputes/{dispute}"
    ok(
        api.client.post(f"{base}/proposal", json={"verdict": "upheld"}, headers=api.user("bob")),
        201,
    )
    ok(api.client.post(f"{base}/agreement", json={}, headers=api.user("alice")), 201)
    assert ok(api.client.get("/api/disputes/queue", headers=api.user("carol"))) == []


def test_a_game_of_no_club_goes_to_the_site_arbiters(api: ApiHelper) -> None:
    gid = api.create_game("skirmish", "meeting", SIDES)["id"]
    who = ok(api.client.get(f"/api/games/{gid}/arbiters", headers=api.user("alice")))
    assert who["club"] is None and who["site_arbiters"] is True and who["agreement"] is True
    # private: a stranger reads nothing of it
    assert api.client.get(f"/api/games/{gid}/arbiters", headers=api.user("eve")).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [({"verdict": "maybe"}, "verdict"), ({}, "verdict"), ({"verdict": "upheld", "x": 1}, "x")],
)
def test_bad_proposals_name_the_field_and_write_nothing(
    api: ApiHelper, body: dict[str, Any], field: str
) -> None:
    gid = club_game(api, club_of(api, "bob"))
    dispute = disputed(api, gid)
    version = api.game(gid, "alice")["version"]
    r = api.client.post(
        f"/api/games/{gid}/disputes/{dispute}/proposal", json=body, headers=api.user("alice")
    )
    assert r.status_code == 400 and field in r.get_json()["details"]
    assert api.game(gid, "alice")["version"] == version
    r = api.client.post(
        f"/api/games/{gid}/disputes/d999/proposal",
        json={"verdict": "upheld"},
        headers=api.user("alice"),
    )
    assert r.status_code == 404 and "dispute" in r.get_json()["details"]
    stranger = api.client.post(
        f"/api/games/{gid}/disputes/{dispute}/proposal",
        json={"verdict": "upheld"},
        headers=api.user("eve"),
    )
    assert stranger.status_code == 404  # a private game: not even its existence
    assert api.game(gid, "alice")["version"] == version


def test_proposals_to_each_other_are_capped_per_dispute(api: ApiHelper) -> None:
    """Each proposal is an event of the game's log: a dispute takes at most 10 (a documented
    limit); the 11th is a 409 ``limit_reached`` naming ``verdict``, and nothing is written."""
    gid = club_game(api, club_of(api, "bob"))
    d = disputed(api, gid)
    url = f"/api/games/{gid}/disputes/{d}/proposal"
    verdicts = ["upheld", "overturned"]
    for n in range(10):  # the two sides alternate, each changing its mind
        who = ("alice", "bob")[n % 2]
        ok(api.client.post(url, json={"verdict": verdicts[(n // 2) % 2]},
                           headers=api.user(who)), 201)  # fmt: skip
    before = api.game(gid, "alice")["version"]
    refused = api.client.post(url, json={"verdict": "overturned"}, headers=api.user("alice"))
    assert refused.status_code == 409 and refused.get_json()["error"] == "limit_reached"
    assert "verdict" in refused.get_json()["details"]
    assert api.game(gid, "alice")["version"] == before


def test_who_rules_a_private_game_is_not_there_for_strangers(api: ApiHelper) -> None:
    gid = club_game(api, club_of(api, "bob"))
    d = disputed(api, gid)
    api.user("eve")
    for url in (f"/api/games/{gid}/arbiters",):
        assert api.client.get(url, headers=api.user("eve")).status_code == 404
        assert api.client.get(url).status_code == 404
    proposal = f"/api/games/{gid}/disputes/{d}/proposal"
    stranger = api.client.post(proposal, json={"verdict": "upheld"}, headers=api.user("eve"))
    assert stranger.status_code == 404  # a private game is not there for them
    assert api.client.post(proposal, json={"verdict": "upheld"}).status_code in (401, 404)
