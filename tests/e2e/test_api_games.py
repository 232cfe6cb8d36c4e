"""Games through the HTTP API: create, play with dice, stale commands, bad input, time travel, export."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.domain import dice
from service.domain.chain import GENESIS, event_hash
from tests.support.api import ApiHelper, every

pytestmark = pytest.mark.slow("whole games played through the HTTP API")

SIDES = {"red": "alice", "blue": "bob"}


def new_game(api: ApiHelper) -> dict[str, Any]:
    return api.create_game("skirmish", "meeting", SIDES)


def event_count(api: ApiHelper, game_id: str) -> int:
    return len(api.events(game_id, "alice", limit=1000))


def attack_once(api: ApiHelper, game_id: str) -> dict[str, Any]:
    """Red moves 2nd Foot up the road next to the Blue Line, ends movement and attacks."""
    r = api.command(
        game_id, "alice", {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}
    )
    assert r.status_code == 201, r.get_json()
    assert api.command(game_id, "alice", {"type": "end_phase"}).status_code == 201
    attacks = [a for a in api.actions(game_id, "alice")["actions"] if a["type"] == "attack"]
    assert attacks, "the fixture should offer an attack from D6"
    r = api.command(game_id, "alice", every(attacks[0]))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_health_and_openapi(client: FlaskClient) -> None:
    health = client.get("/healthz").get_json()
    assert (
        health["status"] == "ok"
        and health["store"]["kind"] == "sqlite"
        and "skirmish" in health["systems"]
    )
    spec = client.get("/api/openapi.json").get_json()
    for path in ("/api/games", "/api/games/{game_id}/commands", "/api/systems", "/api/scenarios"):
        assert path in spec["paths"], path


def test_systems_and_scenarios_are_listed(client: FlaskClient) -> None:
    systems = {s["name"]: s for s in client.get("/api/systems").get_json()}
    assert systems["skirmish"]["scenarios"][0]["id"] == "meeting"
    scenarios = client.get("/api/scenarios").get_json()
    assert {"id": "meeting", "system": "skirmish"}.items() <= next(
        s for s in scenarios if s["id"] == "meeting"
    ).items()
    assert client.get("/api/systems/nope").status_code == 404


def test_create_game_binds_sides_and_publishes_the_dice_commitment(api: ApiHelper) -> None:
    game = new_game(api)  # bob accepted alice's invitation (tests/support/api.py)
    assert game["status"] == "active" and game["version"] == event_count(api, game["id"])
    assert game["sides"] == SIDES
    assert game["active_sides"] == ["red"] and game["phase"]["phase"] == "movement"
    assert len(game["dice"]["commitment"]) == 64 and game["dice"]["seed"] is None
    assert game["viewer_side"] == "red"


def test_play_moves_with_dice_and_verify_them(api: ApiHelper, client: FlaskClient) -> None:
    game = new_game(api)
    done = attack_once(api, game["id"])
    rolled = [e for e in done["events"] if e["type"] == "DiceRolled"]
    assert rolled, "an attack rolls a die and records it"
    roll = rolled[0]["payload"]["rolls"][0]
    assert roll["index"] == 0 and 1 <= roll["value"] <= roll["sides"]
    combat = next(e for e in done["events"] if e["type"] == "CombatResolved")
    assert combat["side"] == "red" and combat["user"] == "alice"
    report = client.get(f"/api/games/{game['id']}/dice", headers=api.user("alice")).get_json()
    assert report["ok"] and report["rolls"] == 1 and report["seed"] is None


def test_a_stale_command_gets_409_and_writes_nothing(api: ApiHelper) -> None:
    game = new_game(api)
    version = game["version"]
    assert (
        api.command(
            game["id"], "alice", {"type": "end_phase"}, expected_version=version
        ).status_code
        == 201
    )
    before = event_count(api, game["id"])
    r = api.command(game["id"], "alice", {"type": "end_phase"}, expected_version=version)
    assert r.status_code == 409
    body = r.get_json()
    assert body["error"] == "stale_version" and "expected_version" in body["details"]
    assert event_count(api, game["id"]) == before


def test_only_the_side_whose_turn_it_is_may_act(api: ApiHelper) -> None:
    game = new_game(api)
    r = api.command(game["id"], "bob", {"type": "end_phase"})
    assert r.status_code == 403
    assert "not Blue's turn" in r.get_json()["message"]
    api.user("mallory")  # a stranger to a private game: it is not there for them
    r = api.command(game["id"], "mallory", {"type": "end_phase"}, expected_version=game["version"])
    assert r.status_code == 404 and r.get_json()["details"] == {"game": ["unknown game"]}
    assert event_count(api, game["id"]) == game["version"]


def test_an_illegal_move_is_refused_citing_the_rule(api: ApiHelper) -> None:
    game = new_game(api)
    r = api.command(game["id"], "alice", {"type": "move", "unit": "r2", "path": ["D2", "D4"]})
    assert r.status_code == 422
    body = r.get_json()
    assert body["error"] == "rule_violation" and body["details"]["rule"] == ["S4.2"]
    assert "rule S4.2" in body["message"]
    assert event_count(api, game["id"]) == game["version"]


def test_bad_input_gets_400_with_the_field_and_nothing_is_written(
    api: ApiHelper, client: FlaskClient
) -> None:
    game = new_game(api)
    headers = api.user("alice")
    url = f"/api/games/{game['id']}/commands"
    v = game["version"]
    cases = [
        ({"command": {"type": "end_phase"}}, "expected_version"),
        ({"expected_version": str(v), "command": {"type": "end_phase"}}, "expected_version"),
        ({"expected_version": v, "command": "end"}, "command"),
        ({"expected_version": v, "command": {"type": "end_phase"}, "extra": 1}, "extra"),
        ({"expected_version": v, "command": {"type": "fly"}}, "command.type"),
        (
            {"expected_version": v, "command": {"type": "move", "unit": "zz", "path": ["A1"]}},
            "command.unit",
        ),
    ]
    for body, field in cases:
        r = client.post(url, json=body, headers=headers)
        assert r.status_code == 400, (body, r.get_json())
        payload = r.get_json()
        assert payload["error"] == "invalid" and field in payload["details"], (field, payload)
    r = client.post(url, data="{not json", headers={**headers, "Content-Type": "application/json"})
    assert r.status_code == 400
    assert event_count(api, game["id"]) == game["version"]


def test_creating_a_game_validates_everything(api: ApiHelper, client: FlaskClient) -> None:
    headers = api.user("alice")
    api.user("bob")
    cases = [
        ({"system": "chess", "scenario": "x", "sides": SIDES}, 422, "system"),
        ({"system": "skirmish", "scenario": "nowhere", "sides": SIDES}, 422, "scenario"),
        (
            {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice"}},
            422,
            "sides.blue",
        ),
        (
            {"system": "skirmish", "scenario": "meeting", "sides": {**SIDES, "green": "bob"}},
            422,
            "sides.green",
        ),
        (
            {
                "system": "skirmish",
                "scenario": "meeting",
                "sides": {"red": "alice", "blue": "nobody"},
            },
            422,
            "sides.blue",
        ),
        ({"system": "skirmish", "scenario": "meeting", "sides": "alice"}, 400, "sides"),
        (
            {"system": "skirmish", "scenario": "meeting", "sides": SIDES, "options": {"turns": 99}},
            422,
            "options.turns",
        ),
    ]
    for body, status, field in cases:
        r = client.post("/api/games", json=body, headers=headers)
        assert r.status_code == status, (body, r.get_json())
        assert field in r.get_json()["details"], (field, r.get_json())
    assert (
        client.post(
            "/api/games", json={"system": "skirmish", "scenario": "meeting", "sides": SIDES}
        ).status_code
        == 401
    )
    assert client.get("/api/games").get_json() == []


def test_users_tokens_and_auth_errors(client: FlaskClient, api: ApiHelper) -> None:
    api.user("alice")
    r = client.post("/api/users", json={"username": "ALICE", "password": "another password"})
    assert r.status_code == 409 and r.get_json()["details"]["username"]
    r = client.post("/api/users", json={"username": "bad name!", "password": "long enough"})
    assert r.status_code == 400 and "username" in r.get_json()["details"]
    r = client.post("/api/tokens", json={"username": "alice", "password": "wrong password"})
    assert r.status_code == 401
    assert client.get("/api/me", headers={"Authorization": "Bearer nonsense"}).status_code == 401
    assert client.get("/api/me", headers={"Authorization": "Basic abc"}).status_code == 401
    assert client.get("/api/me", headers=api.user("alice")).get_json()["username"] == "alice"


def test_web_session_needs_the_csrf_header_for_writes(client: FlaskClient, api: ApiHelper) -> None:
    api.user("alice")
    api.user("bob")
    r = client.post("/api/session", json={"username": "alice", "password": "correct horse battery"})
    assert r.status_code == 201
    csrf = r.get_json()["csrf"]
    assert client.get("/api/me").get_json()["username"] == "alice"
    body = {"system": "skirmish", "scenario": "meeting", "sides": SIDES}
    assert client.post("/api/games", json=body).status_code == 403
    assert client.post("/api/games", json=body, headers={"X-CSRF-Token": csrf}).status_code == 201
    assert client.delete("/api/session", headers={"X-CSRF-Token": csrf}).status_code == 204
    assert client.get("/api/me").status_code == 401


def test_time_travel_returns_the_state_at_any_version(api: ApiHelper) -> None:
    game = new_game(api)
    api.command(game["id"], "alice", {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    now = api.game(game["id"], "alice")
    then = api.game(game["id"], "alice", version=1)
    assert now["state"]["units"]["r2"]["hex"] == "D4"
    assert then["state"]["units"]["r2"]["hex"] == "D2" and then["version"] == 1
    alice = api.user("alice")
    r = api.client.get(f"/api/games/{game['id']}", query_string={"version": 99}, headers=alice)
    assert r.status_code == 404 and "version" in r.get_json()["details"]
    r = api.client.get(f"/api/games/{game['id']}", query_string={"version": 0}, headers=alice)
    assert r.status_code == 400
    assert api.client.get("/api/games/not-a-game").status_code == 404


def test_legal_actions_for_the_side_to_act_and_none_for_the_other(api: ApiHelper) -> None:
    game = new_game(api)
    red = api.actions(game["id"], "alice")
    assert red["side"] == "red" and {a["type"] for a in red["actions"]} == {"move", "end_phase"}
    assert all({"type", "label", "fixed", "choose", "kinds"} <= set(a) for a in red["actions"])
    bob = api.actions(game["id"], "bob")
    assert bob["actions"] == [] and bob["blocked"] == []
    api.user("carol")  # a stranger to a private game
    r = api.client.get(f"/api/games/{game['id']}/actions", headers=api.user("carol"))
    assert r.status_code == 404


def test_events_are_paged_chained_and_exported(api: ApiHelper, client: FlaskClient) -> None:
    game = new_game(api)
    attack_once(api, game["id"])
    events = api.events(game["id"], "alice")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["prev_hash"] == GENESIS
    for prev, event in zip(events, events[1:], strict=False):
        assert event["prev_hash"] == prev["hash"]
    for event in events:  # every hash can be recomputed from what the API shows
        payload = {**event["payload"], "prev_hash": event["prev_hash"]}
        at = datetime.fromisoformat(event["at"])
        assert event_hash(event["game"], event["seq"], event["kind"], at, payload) == event["hash"]
    alice = api.user("alice")
    page = client.get(
        f"/api/games/{game['id']}/events", query_string={"after": 2, "limit": 2}, headers=alice
    ).get_json()
    assert [e["seq"] for e in page["events"]] == [3, 4] and page["next_after"] == 4
    assert (
        client.get(
            f"/api/games/{game['id']}/events", query_string={"limit": 0}, headers=alice
        ).status_code
        == 400
    )
    r = client.get(f"/api/games/{game['id']}/events.ndjson", headers=alice)
    *lines, head = [json.loads(line) for line in r.get_data(as_text=True).splitlines()]
    assert head["head"]["hash"] == events[-1]["hash"]  # the anchored head ends the export
    assert r.mimetype == "application/x-ndjson" and [e["hash"] for e in lines] == [
        e["hash"] for e in events
    ]


def test_entropy_only_before_the_sides_first_roll(api: ApiHelper, client: FlaskClient) -> None:
    game = new_game(api)
    url = f"/api/games/{game['id']}/entropy"
    r = client.post(url, json={"entropy": "alice's lucky socks"}, headers=api.user("alice"))
    assert r.status_code == 201 and r.get_json()["entropy_count"] == 1
    assert client.post(url, json={"entropy": ""}, headers=api.user("alice")).status_code == 400
    done = attack_once(api, game["id"])
    rolls = [e for e in done["events"] if e["type"] == "DiceRolled"][0]["payload"]["rolls"]
    assert rolls[0]["entropy"] == dice.entropy_digest(["red:alice's lucky socks"])
    r = client.post(url, json={"entropy": "too late"}, headers=api.user("alice"))
    assert r.status_code == 409 and "entropy" in r.get_json()["details"]
    assert (
        client.post(
            url, json={"entropy": "blue is still in time"}, headers=api.user("bob")
        ).status_code
        == 201
    )


def test_a_finished_game_reveals_its_seed_and_every_roll_rederives(
    api: ApiHelper, client: FlaskClient
) -> None:
    game = api.create_game("skirmish", "meeting", SIDES, options={"turns": 1})
    attack_once(api, game["id"])
    for user in ("alice", "bob", "bob"):
        r = api.command(game["id"], user, {"type": "end_phase"})
        assert r.status_code == 201, r.get_json()
    final = api.game(game["id"], "alice")
    assert final["status"] == "ended" and final["result"] is not None
    seed = final["dice"]["seed"]
    assert dice.commitment(seed) == final["dice"]["commitment"]
    for event in api.events(game["id"]):
        for roll in event["payload"].get("rolls", []) if event["type"] == "DiceRolled" else []:
            assert (
                dice.derive_roll(seed, game["id"], roll["index"], roll["entropy"], roll["sides"])
                == roll["value"]
            )
    r = api.command(game["id"], "alice", {"type": "end_phase"})
    assert r.status_code == 409 and r.get_json()["error"] == "conflict"


def test_games_list_and_mine(api: ApiHelper, client: FlaskClient) -> None:
    first = new_game(api)
    r = client.post(
        "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "public": True,
            "sides": {"red": "carol", "blue": "carol"},
        },
        headers=api.user("carol"),
    )
    public = r.get_json()["id"]
    assert [g["id"] for g in client.get("/api/games").get_json()] == [public]  # a visitor
    listed = client.get("/api/games", headers=api.user("bob")).get_json()
    assert [g["id"] for g in listed] == [public, first["id"]]
    mine = client.get(
        "/api/games", query_string={"mine": "true"}, headers=api.user("alice")
    ).get_json()
    assert [g["id"] for g in mine] == [first["id"]] and mine[0]["sides"] == SIDES


def test_the_board_and_counters_come_from_the_server(api: ApiHelper, client: FlaskClient) -> None:
    board = client.get("/api/systems/skirmish/scenarios/meeting/board").get_json()
    assert len(board["hexes"]) == 48 and board["coordinates"] == "letter-number"
    assert {
        "hex": "C5",
        "x": 7.0,
        "y": 5.3301,
        "terrain": "hill",
    }  # col 5 (odd, shifted), row C in board["hexes"]
    assert any(p["name"] == "Mill" for p in board["places"])
    assert client.get("/api/systems/skirmish/scenarios/nowhere/board").status_code == 404
    game = new_game(api)
    counters = {c["id"]: c for c in game["counters"]}
    assert counters["r2"]["hex"] == "D2" and counters["r2"]["values"]["attack"] == 4
    assert "r4" not in counters  # a reinforcement not yet on the map


def test_an_attack_is_previewed_with_its_rules_before_it_is_sent(
    api: ApiHelper, client: FlaskClient
) -> None:
    game = new_game(api)
    api.command(
        game["id"], "alice", {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}
    )
    api.command(game["id"], "alice", {"type": "end_phase"})
    attack = every(api.template(game["id"], "alice", "attack"))
    before = api.game(game["id"], "alice")["version"]
    r = client.post(
        f"/api/games/{game['id']}/preview", json={"command": attack}, headers=api.user("alice")
    )
    assert r.status_code == 200, r.get_json()
    preview = r.get_json()
    assert preview["attack"] == 4 and preview["odds"]["column"]
    assert api.game(game["id"], "alice")["version"] == before  # nothing written
    bad = client.post(
        f"/api/games/{game['id']}/preview",
        json={"command": {"type": "end_phase"}},
        headers=api.user("alice"),
    )
    assert bad.status_code == 400 and "command.type" in bad.get_json()["details"]


def test_my_games_say_whose_turn_it_is(api: ApiHelper, client: FlaskClient) -> None:
    game = new_game(api)
    mine = client.get(
        "/api/games", query_string={"mine": "true"}, headers=api.user("bob")
    ).get_json()
    assert (
        mine[0]["active_sides"] == ["red"]
        and mine[0]["version"] == game["version"]
        and mine[0]["phase"]["phase"] == "movement"
    )


def test_rules_events_come_with_the_rules_modules_words(api: ApiHelper) -> None:
    game = new_game(api)
    api.command(game["id"], "alice", {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    moved = next(e for e in api.events(game["id"], "alice") if e["type"] == "UnitMoved")
    assert moved["text"] == "2nd Foot moves from D2 to Crossroads (D4) for 1 MP"
    assert (
        "text" not in api.events(game["id"], "alice")[0]
    )  # GameCreated is the core's, not the rules'


def test_a_view_is_of_a_known_side_and_ones_own_while_the_game_lasts(
    api: ApiHelper, client: FlaskClient
) -> None:
    game = new_game(api)
    url = f"/api/games/{game['id']}"
    r = client.get(url, query_string={"side": "green"}, headers=api.user("alice"))
    assert r.status_code == 422 and "side" in r.get_json()["details"]  # issue 46
    r = client.get(url, query_string={"side": "blue"}, headers=api.user("alice"))
    assert r.status_code == 403 and r.get_json()["details"]["side"] == [
        "you may only see your own side's view"
    ]
    assert api.game(game["id"], "alice", side="red")["viewer_side"] == "red"
    r = client.post(
        f"{url}/commands",
        json={
            "expected_version": game["version"],
            "command": {"type": "end_phase"},
            "side": "blue",
        },
        headers=api.user("alice"),
    )
    assert r.status_code == 403 and r.get_json()["details"]["side"] == [
        "blue is bound to another user"
    ]
    api.user("mallory")  # a stranger to a private game: it is not there for them
    r = api.command(game["id"], "mallory", {"type": "end_phase"}, expected_version=game["version"])
    assert r.status_code == 404
