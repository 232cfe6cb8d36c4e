"""Both scenarios (18.1, 18.2) played end to end through the HTTP API with the server's dice."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import ApiHelper

PLAYERS = {"allied": "monty", "spanish": "varela"}
LANDING = {"scenario-1": "4,22", "scenario-2": "4,2"}


def next_command(game: dict[str, Any], side: str, scenario: str) -> dict[str, Any]:
    state, step = game["state"], game["phase"]["phase"]
    if state.get("pending"):  # 18.1: where the German units arrive
        item = state["pending"]["units"][0]
        return {"type": "place_arrival", "unit": item["unit"], "hex": item["places"][-1]}
    if step in ("deployment", "allied_deployment"):
        return {"type": "deploy"}
    if step == "administrative":
        return {"type": "begin_turn"}
    if step == "events":
        if "tunisia" in state["events"]["hands"][side]:
            return {"type": "play_event", "chit": "tunisia", "units": ["us-70tk", "us-601td"]}
        return {"type": "pass"}
    if step == "strait":
        return {"type": "roll_strait"}
    if step == "replacements":
        return {"type": "replace", "steps": []}
    if step == "amphibious":
        return {"type": "land", "hex": LANDING[scenario], "units": ["uk-21tk", "uk-commando"]}
    return {"type": "end_phase"}


@pytest.mark.parametrize("scenario", ["scenario-1", "scenario-2"])
def test_18_scenario_plays_to_the_end_through_the_api(api: ApiHelper, scenario: str) -> None:
    game = api.create_game("backbone", scenario, PLAYERS)
    for _ in range(400):
        game = api.game(game["id"])
        if game["result"]:
            break
        side = game["active_sides"][0]
        mine = api.game(game["id"], PLAYERS[side])
        r = api.command(game["id"], PLAYERS[side], next_command(mine, side, scenario), side=side)
        assert r.status_code == 201, r.get_json()
    assert game["result"]["winner"] == "spanish"
    assert game["phase"]["turn"] == 10
    events = api.events(game["id"], "varela", limit=1000)
    assert any(e["type"] == "LandingSucceeded" for e in events)
