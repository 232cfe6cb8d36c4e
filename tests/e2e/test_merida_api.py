"""Closing the Merida Pocket through the HTTP API with the server's real dice: tables, combat
preview, refusals citing the rule, and a scripted game from the set-up to the victory level.  The
dice are not scripted, so the game is driven by the action templates the server lists (commands
built from them are sent as built) and the assertions are on structure and legality (rolled values
are read back from the events)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.support.api import ApiHelper

SIDES = {"nationalist": "franco", "republican": "rojo"}


def test_merida_crt_table_and_combat_preview(client: FlaskClient) -> None:
    crt = client.get("/api/systems/merida/tables/crt").get_json()
    assert crt["columns"] == ["1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1"]
    assert [r["roll"] for r in crt["rows"]] == list(range(8))
    assert crt["rows"][7]["results"] == ["EX", "DR", "DR", "D1", "D2", "D2", "D2", "D3", "D4"]
    situation = {
        "attackers": [{"type": "infantry", "strength": 6}, {"type": "armor", "strength": 2}],
        "defenders": [{"type": "infantry", "strength": 2}],
        "settlement": "town",
        "roll": 3,
    }
    preview = client.post("/api/systems/merida/combat-preview", json=situation).get_json()
    assert preview["column"] == "4-1" and preview["result"] == "DR"
    assert [(m["value"], m["rule"]) for m in preview["modifiers"]] == [(1, "8"), (-1, "TEC")]
    bad = client.post("/api/systems/merida/combat-preview", json={"attackers": [], "defenders": []})
    assert bad.status_code == 400 and "attackers" in bad.get_json()["details"]


def _acting(api: ApiHelper, game_id: str) -> tuple[str, dict[str, Any]]:
    game = api.game(game_id, "franco")
    side = game["active_sides"][0]
    return side, game


def _send(api: ApiHelper, game_id: str, side: str, command: dict[str, Any]) -> Any:
    return api.command(game_id, SIDES[side], command, side=side)


def _command(template: dict[str, Any]) -> dict[str, Any]:
    """The command a listed template makes with the first option of each ``one_of`` and every
    option of each ``some_of``."""
    command = {"type": template["type"], **template["fixed"]}
    for name, choice in template["choose"].items():
        command[name] = choice["one_of"][0] if "one_of" in choice else choice["some_of"]
    return command


def _next_command(api: ApiHelper, game_id: str, side: str, phase: str) -> dict[str, Any]:
    """The scripted player: place and remove what is due, answer a pending loss or retreat, move
    units that must regain their line (rule 10), make every attack offered, else end."""
    listed = api.actions(game_id, SIDES[side], side=side)
    for template in listed["actions"]:
        assert set(template["kinds"]) == set(template["fixed"]) | set(template["choose"])
        if template["type"] in ("place_reinforcement", "remove", "choose_loss", "choose_retreat"):
            return _command(template)  # a pending decision (issue 19): its first answer
        if template["type"] == "move" and "regain" in template["label"]:
            return _command(template)
        if template["type"] == "attack" and phase == "combat":
            return _command(template)
    ending = [t for t in listed["actions"] if t["type"] == "end_phase"]
    assert ending, listed["blocked"]  # a side that must act always can
    return _command(ending[0])


@pytest.mark.slow("a Merida game played through the API to its victory level")
def test_merida_game_through_the_api_to_the_victory_level(api: ApiHelper) -> None:
    game = api.create_game("merida", "merida-1938", SIDES)
    game_id = game["id"]
    assert game["active_sides"] == ["republican"] and game["phase"]["phase"] == "deployment"

    refused = _send(api, game_id, "republican", {"type": "end_phase"})
    assert refused.status_code == 422 and "6" in refused.get_json()["details"]["rule"]
    wrong_side = _send(api, game_id, "nationalist", {"type": "end_phase"})
    assert wrong_side.status_code in (403, 422)
    malformed = _send(
        api, game_id, "republican", {"type": "deploy", "unit": "nobody", "hex": "AC10"}
    )
    assert malformed.status_code == 400 and "command.unit" in malformed.get_json()["details"]
    blocked = api.actions(game_id, "rojo", side="republican")["blocked"]
    assert [(b["type"], b["rule"]) for b in blocked] == [("end_phase", "6")]

    for unit, hex_ in (
        ("r-68-div-4", "AC10"),
        ("r-37-div-4", "Y7"),
    ):
        assert (
            _send(
                api, game_id, "republican", {"type": "deploy", "unit": unit, "hex": hex_}
            ).status_code
            == 201
        )
    assert _send(api, game_id, "republican", {"type": "end_phase"}).status_code == 201

    # Turn 1: the Nationalist 21 Div closes on the guerrilla at Medellin (X3); skipping a hex is refused.
    skip = _send(
        api,
        game_id,
        "nationalist",
        {"type": "move", "units": ["n-1-21-div"], "path": ["AA3", "Y3"]},
    )
    assert skip.status_code == 422 and skip.get_json()["details"]["rule"] == ["5"]
    move = {"type": "move", "units": ["n-1-21-div", "n-2-21-div"], "path": ["AA3", "Z3", "Y3"]}
    assert _send(api, game_id, "nationalist", move).status_code == 201
    overrun = {"type": "declare_overrun", "hex": "X3", "attackers": ["n-1-21-div", "n-2-21-div"]}
    assert _send(api, game_id, "nationalist", overrun).status_code == 201

    commands = 0
    while True:
        side, game = _acting_or_over(api, game_id)
        if side is None:
            break
        command = _next_command(api, game_id, side, game["phase"]["phase"])
        response = _send(api, game_id, side, command)
        assert response.status_code == 201, (command, response.get_json())
        commands += 1
        assert commands < 400

    final = api.game(game_id, "franco")
    result = final["result"]
    assert result["level"] in {
        "Absolute victory",
        "Substantial victory",
        "Marginal victory",
        "Draw",
        "Marginal defeat",
        "Substantial defeat",
        "Absolute defeat",
    }
    assert set(result["points"]) == {"nationalist", "republican"} and result["rule"] == "11"
    assert final["phase"]["turn"] == 15
    events = _all_events(api, game_id)
    combats = [e for e in events if e["type"] == "CombatResolved"]
    assert (
        combats
        and combats[0]["payload"]["data"]["hex"] == "X3"
        and combats[0]["payload"]["data"]["column"] == "6-1"
    )
    for combat in combats:
        if "die" in combat["payload"]["data"]:
            assert 1 <= combat["payload"]["data"]["die"]["value"] <= 6
    assert events[-1]["type"] == "GameEnded"


def _acting_or_over(api: ApiHelper, game_id: str) -> tuple[str | None, dict[str, Any]]:
    game = api.game(game_id, "franco")
    return (game["active_sides"][0] if game["active_sides"] else None), game


def _all_events(api: ApiHelper, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        page = api.events(game_id, "franco", after=events[-1]["seq"] if events else 0, limit=1000)
        events.extend(page)
        if len(page) < 1000:
            return events
