"""Back to Barcelona through the HTTP API with the server's real dice: two generated columns play a
skirmish on a table measured in inches to a result; written orders stay hidden from the other side
until revealed; and the Game aggregate's audit, disputes and rulings work as for the hex games."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.support.api import ApiHelper

SIDES = {"nationalist": "franco", "republican": "rojo"}


def _ok(response: Any, status: int = 201) -> Any:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def _command(template: dict[str, Any]) -> dict[str, Any]:
    """The scripted player: a template the server offers, with the first option of each choice."""
    command = {"type": template["type"], **template["fixed"]}
    for name, choice in template["choose"].items():
        if "one_of" in choice:
            command[name] = choice["one_of"][0]
        else:
            command[name] = choice["some_of"][: max(choice["min"], 1)]
    return command


def _play(api: ApiHelper, game_id: str, limit: int = 600) -> set[str]:
    """Play to the end; the command types that were offered along the way."""
    sent, offered = 0, set()
    while True:
        game = api.game(game_id, "franco")
        if not game["active_sides"]:
            return offered
        side = game["active_sides"][0]
        actions = api.actions(game_id, SIDES[side], side=side)["actions"]
        assert actions, f"{side} must act and is offered nothing"
        offered |= {a["type"] for a in actions}
        # a shot whenever one is offered: the game's dice are the server's, so a player who
        # took the first action only might end the game without firing (the test needs a shot)
        action = next((a for a in actions if a["type"] == "shoot"), actions[0])
        _ok(api.command(game_id, SIDES[side], _command(action), side=side))
        sent += 1
        assert sent < limit


def _events(api: ApiHelper, game_id: str, user: str | None) -> list[dict[str, Any]]:
    return api.events(game_id, user, limit=1000)


def test_barcelona_tables_board_and_preview(client: FlaskClient) -> None:
    board = _ok(client.get("/api/systems/barcelona/scenarios/skirmish/board"), 200)
    assert board["kind"] == "table" and (board["width"], board["height"]) == (48, 36)
    weapons = _ok(client.get("/api/systems/barcelona/tables/weapons"), 200)
    assert weapons["weapons"]["HMG"]["range"] == 40
    preview = _ok(
        client.post(
            "/api/systems/barcelona/combat-preview",
            json={
                "weapon": "Field Gun",
                "distance": 50,
                "target": {"kind": "figures", "works": True},
            },
        ),
        200,
    )
    assert preview["modifier_total"] == -3


def test_two_generated_columns_play_a_skirmish_to_a_result(api: ApiHelper) -> None:
    game = api.create_game("barcelona", "skirmish", SIDES)
    gid = game["id"]
    assert (
        sorted(game["active_sides"]) == ["nationalist", "republican"]
        and game["phase"]["phase"] == "muster"
    )
    refused = api.command(gid, "franco", {"type": "end_deployment"}, side="nationalist")
    assert refused.status_code == 422 and refused.get_json()["details"]["rule"] == [
        "SEQUENCE OF PLAY"
    ]
    unknown = api.command(
        gid, "franco", {"type": "deploy", "unit": "nat1", "x": 1, "y": 1}, side="nationalist"
    )  # no column yet: nat1 names nothing in the game
    assert unknown.status_code == 400 and "command.unit" in unknown.get_json()["details"]

    # the muster and deployment, then turn 1's orders: the Nationalist writes first
    while api.game(gid, "franco")["phase"]["phase"] != "orders":
        game = api.game(gid, "franco")
        side = game["active_sides"][0]
        action = api.actions(gid, SIDES[side], side=side)["actions"][0]
        _ok(api.command(gid, SIDES[side], _command(action), side=side))
    columns = [e for e in _events(api, gid, "franco") if e["type"] == "ColumnGenerated"]
    assert len(columns) == 2 and all(len(e["payload"]["data"]["rolls"]) >= 3 for e in columns)
    order = {"type": "write_orders", "orders": {"nat1": {"text": "seize the masia", "move": True}}}
    written = _ok(api.command(gid, "franco", order, side="nationalist"))
    seq = next(e["seq"] for e in written["events"] if e["type"] == "OrdersWritten")
    seen_by_rojo = next(e for e in _events(api, gid, "rojo") if e["seq"] == seq)
    assert seen_by_rojo["payload"]["data"] == {"side": "nationalist", "units": 1, "hidden": True}
    assert "seize" not in str(api.game(gid, "rojo")["state"])
    assert "seize" in str(api.game(gid, "franco")["state"])

    offered = _play(api, gid)
    final = api.game(gid, "franco")
    assert final["status"] == "ended" and final["result"]["outcome"] in ("win", "draw")
    assert set(final["result"]["points"]) == set(SIDES)
    events = _events(api, gid, "rojo")
    kinds = {e["type"] for e in events}
    assert {
        "TransmissionRolled",
        "MovementRolled",
        "UnitMoved",
        "OrdersRevealed",
        "GameEnded",
    } <= kinds
    # the dice are the server's: the columns may never come within range of each other; when a
    # shot was offered the player took it, and it was resolved
    assert ("ShotResolved" in kinds) == ("shoot" in offered)
    revealed = next(e for e in events if e["type"] == "OrdersRevealed")
    assert revealed["payload"]["data"]["orders"]["nationalist"]["nat1"]["text"] == "seize the masia"
    for moved in (e for e in events if e["type"] == "UnitMoved"):
        assert moved["payload"]["data"]["length"] <= moved["payload"]["data"]["distance"] + 1e-6
    assert all("x" in c and "hex" not in c for c in final["counters"])


def test_audit_disputes_and_rulings_work_the_same(
    app: Flask, api: ApiHelper, client: FlaskClient
) -> None:
    gid = api.create_game("barcelona", "skirmish", SIDES)["id"]
    made = _ok(
        api.command(
            gid, "franco", {"type": "generate_column", "troop_type": "Moors"}, side="nationalist"
        )
    )
    seq = next(e["seq"] for e in made["events"] if e["type"] == "ColumnGenerated")
    assert _ok(client.get(f"/api/games/{gid}/audit", headers=api.reader(None)), 200)["ok"]
    rulings = _ok(
        client.get(f"/api/games/{gid}/events/{seq}/rulings", headers=api.user("franco")), 200
    )
    assert rulings["sections"][0] == "GENERATING A COLUMN"
    assert rulings["governing"][0]["id"] == "barcelona:chart-generating-a-column"
    dispute = _ok(
        client.post(
            f"/api/games/{gid}/disputes",
            json={"seq": seq, "claim": "the MG die was a 4"},
            headers=api.user("rojo"),
        )
    )["dispute"]
    arbiter = api.user("carol")
    svc = app.extensions["arbiter"]
    user = svc.users.by_name("carol")
    user.grant("arbiter")
    svc.store.save(user)
    body = {"verdict": "upheld", "citations": ["barcelona:chart-generating-a-column"]}
    resolved = _ok(
        client.post(f"/api/games/{gid}/disputes/{dispute}/resolution", json=body, headers=arbiter)
    )
    assert resolved["verdict"] == "upheld"
    assert _ok(client.get(f"/api/games/{gid}/audit", headers=api.reader(None)), 200)["ok"]
