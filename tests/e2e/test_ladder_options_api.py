"""Per-ladder game options (issue 19: "A club may set, per game or ladder, that the old automatic
preference applies (for quick games), and it is recorded in the game's options"): a ladder's
``options`` are checked against the rules system's options and every game of the ladder is
created with them; the ladder's options win over a challenge's."""

from __future__ import annotations

from typing import Any

from flask import Flask

from tests.support.api import ApiHelper

PLAYERS = ("bob", "cat")


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def club(api: ApiHelper) -> str:
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
    return str(body["id"])


def ladders_of(api: ApiHelper, cid: str) -> list[dict[str, Any]]:
    return list(ok(api.client.get(f"/api/clubs/{cid}/ladders")))


def test_a_merida_ladder_with_automatic_decisions_gives_games_with_that_option(
    api: ApiHelper, app: Flask
) -> None:
    cid = club(api)
    ladder = ok(
        api.client.post(
            f"/api/clubs/{cid}/ladders",
            json={
                "name": "Quick Merida",
                "system": "merida",
                "options": {"decisions": "automatic"},
            },
            headers=api.user("ann"),
        ),
        201,
    )
    lid = ladder["id"]
    assert ladder["settings"]["options"] == {"decisions": "automatic"}
    for name in PLAYERS:
        ok(api.client.post(f"/api/ladders/{lid}/players", headers=api.user(name)), 201)
    ranks = [
        r["username"] for r in ok(api.client.get(f"/api/ladders/{lid}/standings"))["standings"]
    ]
    low, above = ranks[-1], ranks[-2]
    # the challenger asks for the players' decisions: the ladder's option wins
    challenge = ok(
        api.client.post(
            f"/api/ladders/{lid}/challenges",
            json={
                "opponent": above,
                "scenario": "merida-1938",
                "options": {"decisions": "players"},
            },
            headers=api.user(low),
        ),
        201,
    )
    accepted = ok(
        api.client.post(f"/api/challenges/{challenge['id']}/accept", headers=api.user(above)), 201
    )
    game = api.game(accepted["game"], above)
    assert game["options"]["decisions"] == "automatic"
    # recorded in the game's own creation event: a replay gives the same
    svc = app.extensions["arbiter"]
    assert svc.games.get(accepted["game"]).options["decisions"] == "automatic"

    # a ladder game created directly gets the ladder's options too
    direct = ok(
        api.client.post(
            "/api/games",
            json={
                "system": "merida",
                "scenario": "merida-1938",
                "sides": {"nationalist": low, "republican": above},
                "ladder": lid,
            },
            headers=api.user(low),
        ),
        201,
    )
    assert direct["options"]["decisions"] == "automatic"

    # the admins change the ladder's options later; a bad value is refused, nothing written
    r = api.client.patch(
        f"/api/ladders/{lid}/settings",
        json={"options": {"decisions": "sometimes"}},
        headers=api.user("ann"),
    )
    assert r.status_code == 400 and "options.decisions" in r.get_json()["details"], r.get_json()
    shown = ok(api.client.get(f"/api/ladders/{lid}"))
    assert shown["settings"]["options"] == {"decisions": "automatic"}
    changed = ok(
        api.client.patch(
            f"/api/ladders/{lid}/settings",
            json={"options": {"decisions": "players"}},
            headers=api.user("ann"),
        )
    )
    assert changed["settings"]["options"] == {"decisions": "players"}


def test_a_ladder_with_an_unknown_option_or_a_bad_value_is_refused(api: ApiHelper) -> None:
    cid = club(api)
    for options, field in (
        ({"decisions": "sometimes"}, "options.decisions"),
        ({"tea_break": True}, "options.tea_break"),
    ):
        r = api.client.post(
            f"/api/clubs/{cid}/ladders",
            json={"name": "Quick Merida", "system": "merida", "options": options},
            headers=api.user("ann"),
        )
        assert r.status_code == 400, r.get_json()
        assert field in r.get_json()["details"], r.get_json()
    r = api.client.post(
        f"/api/clubs/{cid}/ladders",
        json={
            "name": "Quick Merida",
            "system": "merida",
            "settings": {"options": {"decisions": 3}},
        },
        headers=api.user("ann"),
    )
    assert r.status_code == 400 and "settings.options.decisions" in r.get_json()["details"]
    assert ladders_of(api, cid) == []  # nothing written


def test_a_challenge_with_a_bad_option_is_refused_at_its_name(api: ApiHelper) -> None:
    """A challenge's own options are checked as a new game's are: 422 at ``options.<name>``, and
    no challenge is issued."""
    cid = club(api)
    lid = ok(
        api.client.post(
            f"/api/clubs/{cid}/ladders",
            json={"name": "Merida", "system": "merida", "scenario": "merida-1938"},
            headers=api.user("ann"),
        ),
        201,
    )["id"]
    for name in PLAYERS:
        ok(api.client.post(f"/api/ladders/{lid}/players", headers=api.user(name)), 201)
    ranks = [
        r["username"] for r in ok(api.client.get(f"/api/ladders/{lid}/standings"))["standings"]
    ]
    r = api.client.post(
        f"/api/ladders/{lid}/challenges",
        json={"opponent": ranks[0], "options": {"zoc_to_zoc": "never"}},
        headers=api.user(ranks[1]),
    )
    assert r.status_code == 422, r.get_json()
    assert list(r.get_json()["details"]) == ["options.zoc_to_zoc"]
    assert ok(api.client.get(f"/api/ladders/{lid}/challenges")) == []


def test_a_listing_by_an_unknown_status_is_a_4xx_naming_it(api: ApiHelper) -> None:
    """``?status=`` of challenges and reports takes only their statuses (before: 200 and [])."""
    lid = "00000000-0000-0000-0000-000000000001"
    for path, good in (("challenges", "open"), ("reports", "confirmed")):
        r = api.client.get(f"/api/ladders/{lid}/{path}?status=bogus", headers=api.user("ann"))
        assert r.status_code in (400, 422), r.status_code
        assert "status" in r.get_json()["details"], r.get_json()
        r = api.client.get(f"/api/ladders/{lid}/{path}?status={good}", headers=api.user("ann"))
        assert r.status_code == 404  # a known status goes on to the ladder (here: none)
