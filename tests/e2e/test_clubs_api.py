"""Clubs, ladders and campaigns through the HTTP API (SQLite, in-process broker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from tests.support.api import ApiHelper
from tests.support.sse import SseReader

PLAYERS = ("bob", "cat", "dan")


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def play_to_the_end(api: ApiHelper, game_id: str, red_takes_the_crossroads: bool) -> dict:
    """One turn of skirmish: red may move 2nd Foot onto the Crossroads (1 VP), then all phases end."""
    game = api.game(game_id, "ann")  # a club game: its club's members read it
    red, blue = game["sides"]["red"], game["sides"]["blue"]
    if red_takes_the_crossroads:
        move = {"type": "move", "unit": "r2", "path": ["D3", "D4"]}
        assert api.command(game_id, red, move).status_code == 201
    for user in (red, red, blue, blue):
        assert api.command(game_id, user, {"type": "end_phase"}).status_code == 201
    return api.game(game_id, "ann")


@pytest.fixture
def club(api: ApiHelper) -> dict[str, Any]:
    body = ok(
        api.client.post("/api/clubs", json={"name": "Hex Club"}, headers=api.user("ann")), 201
    )
    for name in PLAYERS:
        api.user(name)
        api.admit(
            f"/api/clubs/{body['id']}/members",
            {"username": name, "roles": ["player"]},
            api.user("ann"),
        )
    return body


@pytest.fixture
def ladder(api: ApiHelper, club: dict[str, Any]) -> dict[str, Any]:
    body = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/ladders",
            json={
                "name": "Mill ladder",
                "system": "skirmish",
                "scenario": "meeting",
                "settings": {"challenge_range": 2, "challenge_deadline_hours": 24},
            },
            headers=api.user("ann"),
        ),
        201,
    )
    for name in ("ann", *PLAYERS):
        ok(api.client.post(f"/api/ladders/{body['id']}/players", headers=api.user(name)), 201)
    return body


def standings(api: ApiHelper, ladder_id: str) -> list[dict[str, Any]]:
    return ok(api.client.get(f"/api/ladders/{ladder_id}/standings"))["standings"]


def test_club_members_and_roles(api: ApiHelper, club: dict[str, Any]) -> None:
    cid = club["id"]
    shown = ok(api.client.get("/api/clubs/Hex Club"))
    assert shown["id"] == cid
    assert {m["username"]: m["roles"] for m in shown["members"]} == {
        "ann": ["admin", "arbiter", "player"],
        "bob": ["player"],
        "cat": ["player"],
        "dan": ["player"],
    }
    # only admins manage members
    r = api.client.put(f"/api/clubs/{cid}/members/cat/roles/arbiter", headers=api.user("bob"))
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    ok(api.client.put(f"/api/clubs/{cid}/members/cat/roles/arbiter", headers=api.user("ann")))
    r = api.client.put(f"/api/clubs/{cid}/members/cat/roles/arbiter", headers=api.user("ann"))
    assert r.status_code == 409
    r = api.client.post(
        f"/api/clubs/{cid}/members",
        json={"username": "eve", "roles": ["king"]},
        headers=api.user("ann"),
    )
    assert r.status_code == 400 and "roles.0" in r.get_json()["details"]
    svc = api.client.application.extensions["arbiter"]
    cat = svc.users.by_name("cat")
    assert svc.clubs.has_role(cid, cat.id, "arbiter") and not svc.clubs.has_role(
        cid, cat.id, "admin"
    )
    ok(api.client.delete(f"/api/clubs/{cid}/members/cat/roles/arbiter", headers=api.user("ann")))
    assert not svc.clubs.has_role(cid, cat.id, "arbiter")
    r = api.client.delete(f"/api/clubs/{cid}/members/ann/roles/admin", headers=api.user("ann"))
    assert r.status_code == 409  # the last admin stays
    ok(api.client.delete(f"/api/clubs/{cid}/members/dan", headers=api.user("ann")))
    assert "dan" not in [m["username"] for m in ok(api.client.get(f"/api/clubs/{cid}"))["members"]]
    assert (
        api.client.post(
            "/api/clubs", json={"name": "hex  club"}, headers=api.user("bob")
        ).status_code
        == 409
    )
    assert [c["name"] for c in ok(api.client.get("/api/clubs"))] == ["Hex Club"]


def test_ladder_settings_are_validated_and_changed_by_admins(api: ApiHelper, ladder: dict) -> None:
    lid = ladder["id"]
    assert ladder["settings"]["takeback"] == "never" and ladder["settings"]["challenge_range"] == 2
    r = api.client.patch(
        f"/api/ladders/{lid}/settings", json={"takeback": "sometimes"}, headers=api.user("ann")
    )
    assert r.status_code == 400 and "takeback" in r.get_json()["details"]
    r = api.client.patch(
        f"/api/ladders/{lid}/settings", json={"takeback": "casual"}, headers=api.user("bob")
    )
    assert r.status_code == 403
    body = ok(
        api.client.patch(
            f"/api/ladders/{lid}/settings",
            json={"takeback": "casual", "disputes_pause": False},
            headers=api.user("ann"),
        )
    )
    assert body["settings"]["takeback"] == "casual" and body["settings"]["disputes_pause"] is False
    assert body["players"] == 4
    api.user("eve")  # not a club member: may not join
    assert (
        api.client.post(f"/api/ladders/{lid}/players", headers=api.user("eve")).status_code == 403
    )


def test_a_challenge_accepted_makes_a_game_whose_end_moves_the_standings(
    api: ApiHelper, app: Flask, ladder: dict
) -> None:
    lid = ladder["id"]
    ranks = [r["username"] for r in standings(api, lid)]
    low, above, far = ranks[3], ranks[2], ranks[0]
    r = api.client.post(
        f"/api/ladders/{lid}/challenges", json={"opponent": far}, headers=api.user(low)
    )
    assert r.status_code == 422 and "out of challenge range" in r.get_json()["message"]
    r = api.client.post(
        f"/api/ladders/{lid}/challenges", json={"opponent": ranks[3]}, headers=api.user(above)
    )
    assert r.status_code == 422  # only players ranked above may be challenged
    challenge = ok(
        api.client.post(
            f"/api/ladders/{lid}/challenges",
            json={"opponent": above, "side": "red", "options": {"turns": 1}},
            headers=api.user(low),
        ),
        201,
    )
    assert challenge["status"] == "open"
    assert (
        api.client.post(
            f"/api/challenges/{challenge['id']}/accept", headers=api.user(low)
        ).status_code
        == 403
    )
    accepted = ok(
        api.client.post(f"/api/challenges/{challenge['id']}/accept", headers=api.user(above)), 201
    )
    assert accepted["status"] == "accepted" and accepted["sides"] == {"red": low, "blue": above}
    game = play_to_the_end(api, accepted["game"], red_takes_the_crossroads=True)
    assert game["status"] == "ended" and game["result"]["winner"] == "red"
    assert all(r["games"] == 0 for r in standings(api, lid))  # reading records nothing
    api.work()  # the worker's step records the result
    rows = {r["username"]: r for r in standings(api, lid)}
    assert rows[low]["wins"] == 1 and rows[low]["rating"] > 1500 > rows[above]["rating"]
    assert rows[low]["rank"] == 1
    view = ok(api.client.get(f"/api/ladders/{lid}"))
    assert view["results"] == 1 and view["recent_results"][0]["source_id"] == accepted["game"]
    assert view["recent_results"][0]["level"] == "victory"
    history = ok(api.client.get(f"/api/ladders/{lid}/history/{low}"))["history"]
    assert history[-1]["provisional"] is True and history[-1]["rating"] == rows[low]["rating"]
    sides = ok(api.client.get(f"/api/ladders/{lid}/sides"))
    assert sides["scenarios"]["meeting"]["wins"]["red"] == 1
    svc = app.extensions["arbiter"]
    assert svc.ladders.settings_for_game(accepted["game"])["takeback"] == "never"
    assert svc.ladders.settings_for_game("00000000-0000-0000-0000-000000000000") is None


def test_decline_and_forfeit_after_the_deadline(api: ApiHelper, app: Flask, ladder: dict) -> None:
    lid = ladder["id"]
    ranks = [r["username"] for r in standings(api, lid)]
    low, above = ranks[3], ranks[2]

    def challenge() -> dict[str, Any]:
        return ok(
            api.client.post(
                f"/api/ladders/{lid}/challenges", json={"opponent": above}, headers=api.user(low)
            ),
            201,
        )

    first = challenge()
    r = api.client.post(
        f"/api/ladders/{lid}/challenges", json={"opponent": above}, headers=api.user(low)
    )
    assert r.status_code == 409  # one open challenge per pair
    declined = ok(
        api.client.post(
            f"/api/challenges/{first['id']}/decline",
            json={"reason": "busy"},
            headers=api.user(above),
        )
    )
    assert declined["status"] == "declined"
    second = challenge()
    r = api.client.post(f"/api/challenges/{second['id']}/forfeit", headers=api.user(low))
    assert r.status_code == 409  # the deadline has not passed
    later = datetime.now(UTC) + timedelta(hours=25)
    app.extensions["arbiter"].ladders.clock = lambda: later
    assert (
        api.client.post(
            f"/api/challenges/{second['id']}/accept", headers=api.user(above)
        ).status_code
        == 409
    )
    assert (
        api.client.post(
            f"/api/challenges/{second['id']}/forfeit", headers=api.user(above)
        ).status_code
        == 403
    )
    forfeited = ok(
        api.client.post(f"/api/challenges/{second['id']}/forfeit", headers=api.user(low))
    )
    assert forfeited["status"] == "forfeited"
    rows = {r["username"]: r for r in standings(api, lid)}
    assert (rows[low]["wins"], rows[above]["losses"]) == (1, 1)
    assert ok(api.client.get(f"/api/ladders/{lid}"))["recent_results"][0]["level"] == "forfeit"
    # a forfeit teaches the side adjustment nothing
    assert ok(api.client.get(f"/api/ladders/{lid}/sides"))["scenarios"] == {}
    statuses = sorted(c["status"] for c in ok(api.client.get(f"/api/ladders/{lid}/challenges")))
    assert statuses == ["declined", "forfeited"]


def test_face_to_face_result_counts_once_the_opponent_confirms(
    api: ApiHelper, ladder: dict
) -> None:
    lid = ladder["id"]
    body = {"sides": {"red": "bob", "blue": "cat"}, "winner": "blue", "level": "decisive"}
    r = api.client.post(f"/api/ladders/{lid}/reports", json=body, headers=api.user("dan"))
    assert r.status_code == 403  # only a player of the game reports it
    r = api.client.post(
        f"/api/ladders/{lid}/reports", json=body | {"winner": "green"}, headers=api.user("bob")
    )
    assert r.status_code == 422 and "winner" in r.get_json()["details"]
    report = ok(
        api.client.post(f"/api/ladders/{lid}/reports", json=body, headers=api.user("bob")), 201
    )
    assert report["status"] == "reported" and report["opponent"] == "cat"
    assert all(r["games"] == 0 for r in standings(api, lid))
    assert (
        api.client.post(f"/api/reports/{report['id']}/confirm", headers=api.user("bob")).status_code
        == 403
    )
    confirmed = ok(api.client.post(f"/api/reports/{report['id']}/confirm", headers=api.user("cat")))
    assert confirmed["status"] == "confirmed"
    assert (
        api.client.post(f"/api/reports/{report['id']}/confirm", headers=api.user("cat")).status_code
        == 409
    )
    rows = {r["username"]: r for r in standings(api, lid)}
    assert rows["cat"]["wins"] == 1 and rows["bob"]["losses"] == 1
    second = ok(
        api.client.post(f"/api/ladders/{lid}/reports", json=body, headers=api.user("cat")), 201
    )
    ok(
        api.client.post(
            f"/api/reports/{second['id']}/reject",
            json={"reason": "never played"},
            headers=api.user("bob"),
        )
    )
    assert {r["username"]: r["games"] for r in standings(api, lid)}["cat"] == 1
    assert [r["status"] for r in ok(api.client.get(f"/api/ladders/{lid}/reports"))] == [
        "rejected",
        "confirmed",
    ]


def test_campaign_scores_steps_by_victory_level(api: ApiHelper, club: dict) -> None:
    body = {
        "name": "Autumn campaign",
        "sides": ["red", "blue"],
        "steps": [
            {"title": "Meeting at the Mill", "system": "skirmish", "scenario": "meeting"},
            {"title": "The river crossing (played at the club)"},
        ],
        "scoring": {"victory": 3, "decisive": 5, "draw": 1},
    }
    r = api.client.post(f"/api/clubs/{club['id']}/campaigns", json=body, headers=api.user("bob"))
    assert r.status_code == 403
    campaign = ok(
        api.client.post(f"/api/clubs/{club['id']}/campaigns", json=body, headers=api.user("ann")),
        201,
    )
    cid = campaign["id"]
    r = api.client.post(
        f"/api/campaigns/{cid}/steps/1/result",
        json={"sides": {"red": "bob", "blue": "cat"}, "winner": "red", "level": "victory"},
        headers=api.user("ann"),
    )
    assert r.status_code == 409  # steps are played in order
    started = ok(
        api.client.post(
            f"/api/campaigns/{cid}/steps/0/start",
            json={"sides": {"red": "bob", "blue": "cat"}, "options": {"turns": 1}},
            headers=api.user("ann"),
        ),
        201,
    )
    play_to_the_end(api, started["game"], red_takes_the_crossroads=True)
    assert ok(api.client.get(f"/api/campaigns/{cid}"))["steps"][0]["status"] == "started"
    api.work()  # the worker's step scores it (reading records nothing)
    after = ok(api.client.get(f"/api/campaigns/{cid}"))
    assert after["steps"][0]["status"] == "scored" and after["steps"][0]["result"]["points"] == {
        "red": 3,
        "blue": 0,
    }
    ok(
        api.client.post(
            f"/api/campaigns/{cid}/steps/0/notes",
            json={"text": "Blue starts the crossing one unit short."},
            headers=api.user("ann"),
        ),
        201,
    )
    r = api.client.post(
        f"/api/campaigns/{cid}/steps/1/result",
        json={"sides": {"red": "cat", "blue": "dan"}, "winner": "blue", "level": "crushing"},
        headers=api.user("ann"),
    )
    assert r.status_code == 422 and "level" in r.get_json()["details"]
    final = ok(
        api.client.post(
            f"/api/campaigns/{cid}/steps/1/result",
            json={"sides": {"red": "cat", "blue": "dan"}, "winner": "blue", "level": "decisive"},
            headers=api.user("ann"),
        ),
        201,
    )
    assert final["steps"][0]["notes"] == ["Blue starts the crossing one unit short."]
    assert final["next_step"] is None
    assert final["standings"]["sides"] == {"red": 3, "blue": 5}
    points = {p["username"]: p["points"] for p in final["standings"]["players"]}
    assert points == {"dan": 5, "bob": 3, "cat": 0}
    assert [c["name"] for c in ok(api.client.get(f"/api/clubs/{club['id']}/campaigns"))] == [
        "Autumn campaign"
    ]


def _resigned_campaign_step(api: ApiHelper, club: dict, scoring: dict[str, int]) -> dict:
    """A one-step Backbone campaign whose game bob (spanish) resigns to cat: the step's result."""
    step = {"title": "Backbone", "system": "backbone", "scenario": "scenario-1"}
    body = {"name": "Spring", "sides": ["allied", "spanish"], "steps": [step], "scoring": scoring}
    ann = api.user("ann")
    cid = ok(api.client.post(f"/api/clubs/{club['id']}/campaigns", json=body, headers=ann), 201)[
        "id"
    ]
    sides = {"allied": "cat", "spanish": "bob"}
    url = f"/api/campaigns/{cid}/steps/0/start"
    gid = ok(api.client.post(url, json={"sides": sides}, headers=ann), 201)["game"]
    ok(
        api.client.post(
            f"/api/games/{gid}/resign", json={"side": "spanish"}, headers=api.user("bob")
        )
    )
    api.work()  # the worker's step scores the ended game (a read records nothing)
    after = ok(api.client.get(f"/api/campaigns/{cid}"))
    return dict(after["steps"][0]["result"])


def test_a_win_at_a_level_the_table_does_not_name_scores_as_victory(
    api: ApiHelper, club: dict
) -> None:
    """A rules module names its own victory levels (Backbone's "tactical", Merida's "Marginal
    victory") and a game also ends by resignation or on time: a win the table does not name
    scores the table's ``victory`` points, not nothing; a level it names scores its own."""
    unnamed = _resigned_campaign_step(api, club, {"victory": 3, "draw": 1})
    assert (unnamed["level"], unnamed["points"]) == ("resignation", {"allied": 3, "spanish": 0})
    named = _resigned_campaign_step(api, club, {"victory": 3, "resignation": 2})
    assert (named["level"], named["points"]) == ("resignation", {"allied": 2, "spanish": 0})


def test_standings_stream_announces_a_confirmed_result(api: ApiHelper, ladder: dict) -> None:
    lid = ladder["id"]
    response = api.client.get(
        f"/api/ladders/{lid}/stream", query_string={"window": 4}, buffered=False
    )
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    reader = SseReader(response)
    report = ok(
        api.client.post(
            f"/api/ladders/{lid}/reports",
            json={"sides": {"red": "bob", "blue": "cat"}, "winner": "red"},
            headers=api.user("bob"),
        ),
        201,
    )
    ok(api.client.post(f"/api/reports/{report['id']}/confirm", headers=api.user("cat")))
    message = reader.wait_for("standings")
    assert message["data"]["results"] == 1 and message["data"]["top"][0]["username"] == "bob"
    reader.close()
    assert api.client.get("/api/ladders/nope/stream").status_code == 404


def test_a_ladder_game_carries_the_ladder_policies_and_my_ladders_list_my_standing(
    api: ApiHelper, ladder: dict
) -> None:
    lid = ladder["id"]
    ranks = [r["username"] for r in standings(api, lid)]
    low, above = ranks[3], ranks[2]
    challenge = ok(
        api.client.post(
            f"/api/ladders/{lid}/challenges",
            json={"opponent": above, "side": "red"},
            headers=api.user(low),
        ),
        201,
    )
    accepted = ok(
        api.client.post(f"/api/challenges/{challenge['id']}/accept", headers=api.user(above)), 201
    )
    game = api.game(accepted["game"], low)
    assert game["labels"] == {
        "club": ladder["club"],
        "ladder": lid,
        "rated": True,
        "takeback_policy": "never",
        "pause_on_dispute": True,
    }
    api.command(accepted["game"], low, {"type": "end_phase"})
    r = api.client.post(f"/api/games/{accepted['game']}/takebacks", json={}, headers=api.user(low))
    assert r.status_code == 403 and "policy: never" in r.get_json()["details"]["takeback"]
    mine = ok(api.client.get("/api/me/ladders", headers=api.user(low)))
    assert (
        [m["id"] for m in mine] == [lid]
        and mine[0]["me"]["username"] == low
        and mine[0]["me"]["rank"] == 4
    )
    assert ok(api.client.get("/api/me/ladders", headers=api.user("stranger"))) == []


def refused(response: Any, status: int, field: str) -> str:
    """The response is an error of ``status`` naming ``field``; returns its message."""
    body = response.get_json()
    assert response.status_code == status, body
    assert field in body["details"], body
    return str(body["message"])


def test_bad_club_input_is_refused_with_its_reason(api: ApiHelper, club: dict) -> None:
    ann, bob, cid = api.user("ann"), api.user("bob"), club["id"]
    refused(api.client.post("/api/clubs", json={"name": "ab"}, headers=ann), 400, "name")
    refused(api.client.post("/api/clubs", json={"name": "hex  club"}, headers=ann), 409, "name")
    refused(api.client.get("/api/clubs/No Such Club"), 404, "club")
    r = api.client.post(f"/api/clubs/{cid}/members", json={"username": "ghost"}, headers=ann)
    assert r.status_code == 404
    refused(api.client.put(f"/api/clubs/{cid}/members/bob/roles/king", headers=ann), 400, "roles")
    refused(api.client.put(f"/api/clubs/{cid}/members/bob/roles/player", headers=ann), 409, "role")
    r = api.client.delete(f"/api/clubs/{cid}/members/eve", headers=api.user("eve"))
    refused(r, 404, "user")
    refused(api.client.delete(f"/api/clubs/{cid}/members/ann", headers=bob), 403, "club")


def test_bad_ladder_input_is_refused_with_its_reason(api: ApiHelper, ladder: dict) -> None:
    lid, cid = ladder["id"], ladder["club"]
    ann, bob = api.user("ann"), api.user("bob")
    base = {"name": "L2", "system": "skirmish"}
    url = f"/api/clubs/{cid}/ladders"
    refused(api.client.post(url, json=base | {"system": "chess"}, headers=ann), 422, "system")
    refused(api.client.post(url, json=base | {"scenario": "nope"}, headers=ann), 422, "scenario")
    refused(api.client.post(url, json=base, headers=bob), 403, "club")
    refused(
        api.client.post(url, json=base | {"settings": {"tau": 9}}, headers=ann), 400, "settings.tau"
    )
    refused(api.client.get("/api/ladders/nope"), 404, "ladder")
    refused(api.client.get(f"/api/ladders/{cid}"), 404, "ladder")  # a club, not a ladder
    refused(api.client.post(f"/api/ladders/{lid}/players", headers=bob), 409, "ladder")
    refused(
        api.client.delete(f"/api/ladders/{lid}/players", headers=api.user("eve")), 409, "ladder"
    )
    r = api.client.get(f"/api/ladders/{lid}/standings", query_string={"limit": 0})
    assert r.status_code == 400 and "limit" in r.get_json()["details"]
    assert api.client.get(f"/api/ladders/{lid}/history/ghost").status_code == 404
    for window in ("soon", "0", "601"):
        r = api.client.get(f"/api/ladders/{lid}/stream", query_string={"window": window})
        refused(r, 400, "window")

    low, above = [r["username"] for r in standings(api, lid)][3:1:-1]
    me = api.user(low)
    challenges = f"/api/ladders/{lid}/challenges"
    refused(api.client.post(challenges, json={"opponent": low}, headers=me), 422, "opponent")
    assert api.client.post(challenges, json={"opponent": "ghost"}, headers=me).status_code == 404
    body = {"opponent": above}
    refused(api.client.post(challenges, json=body | {"side": "green"}, headers=me), 422, "side")
    r = api.client.post(challenges, json=body | {"scenario": "other"}, headers=me)
    assert "one scenario" in refused(r, 422, "scenario")
    r = api.client.post(challenges, json=body | {"options": {"turns": "many"}}, headers=me)
    assert r.status_code == 422 and any(k.startswith("options") for k in r.get_json()["details"])
    r = api.client.post(challenges, json=body | {"colour": "red"}, headers=me)
    assert r.status_code == 400 and "colour" in r.get_json()["details"]
    challenge = ok(api.client.post(challenges, json=body, headers=me), 201)
    r = api.client.post(
        f"/api/challenges/{challenge['id']}/accept", headers=ann if low != "ann" else bob
    )
    refused(r, 403, "challenge")
    refused(api.client.post("/api/challenges/nope/accept", headers=me), 404, "challenge")
    refused(api.client.post(f"/api/challenges/{lid}/decline", headers=me), 404, "challenge")

    reports = f"/api/ladders/{lid}/reports"
    r = api.client.post(reports, json={"sides": {"red": "bob"}, "winner": None}, headers=bob)
    refused(r, 422, "sides")
    r = api.client.post(
        reports, json={"sides": {"red": "bob", "blue": "eve"}, "winner": None}, headers=bob
    )
    refused(r, 422, "sides")  # eve does not play the ladder
    r = api.client.post(
        reports, json={"sides": {"red": "bob", "blue": "bob"}, "winner": None}, headers=bob
    )
    refused(r, 422, "sides")  # two different players
    refused(api.client.post("/api/reports/nope/confirm", headers=bob), 404, "report")


def test_bad_campaign_input_is_refused_with_its_reason(api: ApiHelper, club: dict) -> None:
    ann, url = api.user("ann"), f"/api/clubs/{club['id']}/campaigns"
    step = {"title": "Mill", "system": "skirmish", "scenario": "meeting"}
    body = {"name": "Autumn", "sides": ["red", "blue"], "steps": [step], "scoring": {"victory": 3}}
    r = api.client.post(url, json=body | {"steps": [step | {"scenario": "nope"}]}, headers=ann)
    refused(r, 422, "steps.0.scenario")
    r = api.client.post(url, json=body | {"sides": ["red", "green"]}, headers=ann)
    assert "not the campaign's" in r.get_json()["details"]["steps.0.scenario"][0]
    offline = {"steps": [{"title": "At the club"}]}
    r = api.client.post(url, json=body | offline | {"sides": ["red", "red"]}, headers=ann)
    refused(r, 400, "sides")
    r = api.client.post(
        url, json=body | {"steps": [{"title": "x", "system": "skirmish"}]}, headers=ann
    )
    refused(r, 400, "steps.0.scenario")
    refused(api.client.post(url, json=body | {"scoring": {}}, headers=ann), 400, "scoring")
    r = api.client.post(url, json=body | {"steps": [step, {"title": "At the club"}]}, headers=ann)
    cid = ok(r, 201)["id"]
    refused(api.client.get("/api/campaigns/nope"), 404, "campaign")
    sides = {"red": "bob", "blue": "cat"}
    start = f"/api/campaigns/{cid}/steps/%d/start"
    refused(api.client.post(start % 5, json={"sides": sides}, headers=ann), 422, "step")
    r = api.client.post(start % 0, json={"sides": {"red": "bob"}}, headers=ann)
    refused(r, 422, "sides")
    refused(
        api.client.post(start % 0, json={"sides": sides}, headers=api.user("bob")), 403, "campaign"
    )
    r = api.client.post(
        f"/api/campaigns/{cid}/steps/0/result",
        json={"sides": sides, "winner": "green", "level": "victory"},
        headers=ann,
    )
    refused(r, 422, "winner")
    ok(
        api.client.post(
            f"/api/campaigns/{cid}/steps/0/result",
            json={"sides": sides, "winner": "red", "level": "victory"},
            headers=ann,
        ),
        201,
    )
    refused(api.client.post(start % 1, json={"sides": sides}, headers=ann), 422, "step")  # off-line
    r = api.client.post(f"/api/campaigns/{cid}/steps/0/notes", json={"text": ""}, headers=ann)
    refused(r, 400, "text")
