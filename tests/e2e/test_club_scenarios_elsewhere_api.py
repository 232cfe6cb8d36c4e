"""Ladders and open games offer a club's scenarios beside the built-in ones (issue 18: "games and
ladders offer the club's scenarios"): a ladder made on a club scenario pins its version, and its
challenge games start from that version even after the scenario is republished; an open game on a
club scenario starts its game from the version it pinned; bad input names its field and writes
nothing; a private scenario is not offered to other clubs."""

from __future__ import annotations

from typing import Any

from tests.support.api import ApiHelper

PLAYERS = ("franco", "rojo")


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def refused(response: Any, status: int, field: str) -> dict[str, Any]:
    body = response.get_json()
    assert response.status_code == status, body
    assert field in body.get("details", {}), body
    return body  # type: ignore[no-any-return]


def club_with_scenario(api: ApiHelper) -> tuple[dict[str, Any], dict[str, Any]]:
    """Merida Club (ann organises; franco and rojo play) and its Merida scenario, published once
    with a mountain at AB4."""
    club = ok(
        api.client.post("/api/clubs", json={"name": "Merida Club"}, headers=api.user("ann")), 201
    )
    for name in PLAYERS:
        api.user(name)
        api.admit(
            f"/api/clubs/{club['id']}/members", {"username": name, "roles": ["player"]}, "ann"
        )
    scenario = ok(
        api.client.post(
            f"/api/clubs/{club['id']}/scenarios",
            json={"system": "merida", "base": "merida-1938", "title": "Merida, our map"},
            headers=api.user("ann"),
        ),
        201,
    )
    republish(api, scenario["id"], "mountain")
    return club, scenario


def republish(api: ApiHelper, sid: str, terrain: str) -> None:
    change = {"kind": "terrain", "hex": "AB4", "terrain": terrain}
    ok(
        api.client.post(
            f"/api/club-scenarios/{sid}/edits", json={"changes": [change]}, headers=api.user("ann")
        )
    )
    ok(
        api.client.post(f"/api/club-scenarios/{sid}/versions", json={}, headers=api.user("ann")),
        201,
    )


def terrain_at(api: ApiHelper, game: dict[str, Any], hex_id: str) -> str:
    board = ok(
        api.client.get(
            f"/api/systems/merida/scenarios/{game['scenario']}/board", headers=api.user("franco")
        )
    )
    return next(h["terrain"] for h in board["hexes"] if h["hex"] == hex_id)


def test_a_ladder_on_a_club_scenario_pins_its_version_for_challenge_games(api: ApiHelper) -> None:
    club, scenario = club_with_scenario(api)
    sid, path = scenario["id"], f"/api/clubs/{club['id']}/ladders"
    # bad input: each refused naming its field, and no ladder is made
    refused(
        api.client.post(
            path,
            json={"name": "L", "system": "merida", "scenario": sid, "scenario_version": 9},
            headers=api.user("ann"),
        ),
        422,
        "scenario_version",
    )
    refused(
        api.client.post(
            path, json={"name": "L", "system": "bizkaya", "scenario": sid}, headers=api.user("ann")
        ),
        400,
        "system",
    )
    refused(
        api.client.post(
            path,
            json={"name": "L", "system": "merida", "scenario_version": 1},
            headers=api.user("ann"),
        ),
        422,
        "scenario_version",
    )
    refused(
        api.client.post(
            path,
            json={"name": "L", "system": "merida", "scenario": "nowhere-1999"},
            headers=api.user("ann"),
        ),
        422,
        "scenario",
    )
    assert ok(api.client.get(path)) == []

    ladder = ok(
        api.client.post(
            path,
            json={"name": "Merida ladder", "system": "merida", "scenario": sid},
            headers=api.user("ann"),
        ),
        201,
    )
    assert ladder["scenario"] == f"{sid}@1"  # the latest version, pinned
    assert ladder["scenario_title"] == "Merida, our map (Merida Club, version 1)"
    assert sorted(ladder["scenario_sides"]) == ["nationalist", "republican"]
    options = {o["name"]: o for o in ladder["scenario_options"]}  # what a challenge may set
    assert options["zoc_to_zoc"]["choices"] == ["same_unit", "any"]
    for name in PLAYERS:
        ok(api.client.post(f"/api/ladders/{ladder['id']}/players", headers=api.user(name)), 201)

    republish(api, sid, "clear")  # version 2: the ladder keeps playing version 1

    ranks = [
        r["username"]
        for r in ok(api.client.get(f"/api/ladders/{ladder['id']}/standings"))["standings"]
    ]
    low, high = ranks[1], ranks[0]
    refused(
        api.client.post(
            f"/api/ladders/{ladder['id']}/challenges",
            json={"opponent": high, "scenario": "merida-1938"},
            headers=api.user(low),
        ),
        422,
        "scenario",
    )
    challenge = ok(
        api.client.post(
            f"/api/ladders/{ladder['id']}/challenges",
            json={"opponent": high, "side": "republican"},
            headers=api.user(low),
        ),
        201,
    )
    assert challenge["scenario"] == f"{sid}@1"
    assert challenge["scenario_title"] == "Merida, our map (Merida Club, version 1)"
    accepted = ok(
        api.client.post(f"/api/challenges/{challenge['id']}/accept", headers=api.user(high)), 201
    )
    game = api.game(accepted["game"], "franco")
    assert game["scenario"] == f"{sid}@1"
    assert game["labels"]["club_scenario"] == sid and game["labels"]["scenario_version"] == 1
    assert game["labels"]["ladder"] == ladder["id"]
    assert terrain_at(api, game, "AB4") == "mountain"  # version 1's map, not version 2's


def test_an_open_game_on_a_club_scenario_starts_from_its_pinned_version(api: ApiHelper) -> None:
    club, scenario = club_with_scenario(api)
    sid = scenario["id"]
    # bad input: each refused naming its field, and no open game is listed
    refused(
        api.client.post(
            "/api/seeks",
            json={"system": "merida", "scenario": sid, "scenario_version": 0},
            headers=api.user("franco"),
        ),
        400,
        "scenario_version",
    )
    refused(
        api.client.post(
            "/api/seeks",
            json={"system": "merida", "scenario": sid, "scenario_version": 5},
            headers=api.user("franco"),
        ),
        422,
        "scenario_version",
    )
    refused(
        api.client.post(
            "/api/seeks", json={"system": "bizkaya", "scenario": sid}, headers=api.user("franco")
        ),
        400,
        "system",
    )
    # a private scenario is not offered to someone outside the club: as if it did not exist
    refused(
        api.client.post(
            "/api/seeks", json={"system": "merida", "scenario": sid}, headers=api.user("eve")
        ),
        404,
        "scenario",
    )
    assert ok(api.client.get("/api/seeks", headers=api.user("franco"))) == []

    seek = ok(
        api.client.post(
            "/api/seeks",
            json={
                "system": "merida",
                "scenario": sid,
                "scenario_version": 1,
                "side": "nationalist",
                "club": club["id"],
            },
            headers=api.user("franco"),
        ),
        201,
    )
    assert seek["scenario"] == f"{sid}@1"
    assert seek["title"] == "Merida, our map (Merida Club, version 1)"
    assert ok(api.client.get("/api/seeks", headers=api.user("eve"))) == []  # a club's open game

    republish(api, sid, "clear")  # version 2: the open game keeps version 1

    game = ok(api.client.post(f"/api/seeks/{seek['id']}/join", headers=api.user("rojo")), 201)
    assert game["scenario"] == f"{sid}@1"
    assert game["labels"]["club_scenario"] == sid and game["labels"]["scenario_version"] == 1
    assert game["sides"] == {"nationalist": "franco", "republican": "rojo"}
    assert terrain_at(api, game, "AB4") == "mountain"


def test_an_open_game_on_a_private_club_scenario_is_hidden_from_other_clubs(api: ApiHelper) -> None:
    _, scenario = club_with_scenario(api)
    seek = ok(
        api.client.post(
            "/api/seeks",
            json={"system": "merida", "scenario": scenario["id"]},
            headers=api.user("franco"),
        ),
        201,
    )
    assert [s["id"] for s in ok(api.client.get("/api/seeks", headers=api.user("rojo")))] == [
        seek["id"]
    ]
    assert ok(api.client.get("/api/seeks", headers=api.user("eve"))) == []
    refused(api.client.post(f"/api/seeks/{seek['id']}/join", headers=api.user("eve")), 403, "seek")
    # shared with every club's members, and public for everyone: then eve may join
    ok(
        api.client.put(
            f"/api/club-scenarios/{scenario['id']}/sharing",
            json={"sharing": "public"},
            headers=api.user("ann"),
        )
    )
    game = ok(api.client.post(f"/api/seeks/{seek['id']}/join", headers=api.user("eve")), 201)
    assert game["labels"]["club_scenario"] == scenario["id"]
