"""Issue 19 done-when for Operation Backbone, through the HTTP API: with the Strait of Gibraltar
under Spanish control the game waits for the Spanish player to choose where the German units arrive
and offers Ceuta, Tangier and Tetouan (18.1: "If the Strait of Gibraltar is under Spanish control,
the player can choose to have the German units deploy in Ceuta, Tangier or Tetouan (or hex adjacent
to this last city)").  The Allies see that the game waits and on whom; a place outside the rule is a
422 citing 18.1 and nothing is written; the chosen (non-preferred) Tangier is a recorded fact.

The server's dice are scripted by purpose (``ServerDice.roll`` is patched, nothing else): the
Strait roll is 6 (the Allies fail to open it), every other die is 1."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.game import Roll, ServerDice
from tests.support.api import ApiHelper, build

PLAYERS = {"allied": "monty", "spanish": "varela"}


def scripted_roll(self: ServerDice, sides: int = 6, purpose: str = "") -> Roll:
    value = 6 if purpose == "strait" else 1
    roll = Roll(self._next, sides, value, purpose, "scripted")
    self._next += 1
    self.rolled.append(roll)
    return roll


@pytest.fixture
def strait_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ServerDice, "roll", scripted_roll)


def step_command(api: ApiHelper, game: dict[str, Any], side: str) -> dict[str, Any]:
    """The cheapest command of the step (as the playthrough); in a combat, the first template."""
    state, phase = game["state"], game["phase"]
    if phase.get("combat_stage"):
        return build(api.actions(game["id"], PLAYERS[side], side)["actions"][0])
    step = phase["phase"]
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
    if step == "amphibious":
        return {"type": "land", "hex": "4,22", "units": ["uk-21tk", "uk-commando"]}
    if step == "replacements":
        return {"type": "replace", "steps": []}
    return {"type": "end_phase"}


def until_the_arrival_waits(api: ApiHelper, game_id: str) -> dict[str, Any]:
    for _ in range(200):
        game = api.game(game_id)
        if game["state"].get("pending"):
            return game
        side = game["active_sides"][0]
        mine = api.game(game_id, PLAYERS[side])
        r = api.command(game_id, PLAYERS[side], step_command(api, mine, side), side=side)
        assert r.status_code == 201, r.get_json()
    raise AssertionError("the German arrival never waited for the Spanish player")


def test_18_1_strait_spanish_offers_ceuta_tangier_and_tetouan(
    api: ApiHelper, strait_holds: None
) -> None:
    game = api.create_game("backbone", "scenario-1", PLAYERS)
    assert game["state"]["options"]["decisions"] == "players"  # recorded in the game's options
    game = until_the_arrival_waits(api, game["id"])
    assert game["phase"]["turn"] == 2 and game["phase"]["strait_open"] is False
    assert game["active_sides"] == ["spanish"]  # the game waits on the Spanish player
    assert game["phase"]["decision"] == "arrival"
    allied = api.actions(game["id"], "monty")
    assert allied["actions"] == []
    early = api.command(game["id"], "monty", {"type": "replace", "steps": []}, side="allied")
    assert early.status_code == 403  # the Allies wait: the game names on whom
    # sides by name, not their ids (issue 51, finding 7)
    assert early.get_json()["details"]["side"] == ["Allied may not act now; active: Spanish"]
    assert early.get_json()["message"] == "it is not Allied's turn or phase (now: Spanish)"
    assert api.game(game["id"])["version"] == game["version"]
    [offer] = api.actions(game["id"], "varela")["actions"]
    assert offer["type"] == "place_arrival" and offer["fixed"] == {"unit": "de-5fjr"}
    labels = dict(
        zip(offer["choose"]["hex"]["labels"], offer["choose"]["hex"]["one_of"], strict=True)
    )
    assert {"Ceuta (1,7)", "Tangier (1,4)", "Tetouan (4,7)"} <= set(labels)
    assert offer["kinds"]["hex"] == "hex"
    waiting = [
        e for e in api.events(game["id"], "monty", limit=1000) if e["type"] == "ArrivalAwaited"
    ]
    assert "The Spanish player chooses where" in waiting[-1]["text"]

    version = game["version"]
    refused = api.command(game["id"], "varela", build(offer, hex="10,10"), side="spanish")
    assert refused.status_code == 422
    body = refused.get_json()
    assert "18.1" in str(body) and "Ceuta, Tangier or Tetouan" in str(body)
    assert api.game(game["id"])["version"] == version  # nothing written

    chosen = api.command(
        game["id"], "varela", build(offer, hex=labels["Tangier (1,4)"]), side="spanish"
    )
    assert chosen.status_code == 201, chosen.get_json()
    after = api.game(game["id"])
    assert after["state"]["units"]["de-5fjr"]["hex"] == "1,4"
    assert not after["state"].get("pending")
    assert after["phase"]["phase"] == "replacements"
    texts = [e.get("text", "") for e in chosen.get_json()["events"]]
    assert any("Tangier" in t for t in texts)


def test_decisions_automatic_is_recorded_and_places_at_tetouan(
    api: ApiHelper, strait_holds: None
) -> None:
    game = api.create_game("backbone", "scenario-1", PLAYERS, options={"decisions": "automatic"})
    assert game["state"]["options"]["decisions"] == "automatic"
    bad = api.client.post(
        "/api/games",
        json={
            "system": "backbone",
            "scenario": "scenario-1",
            "sides": PLAYERS,
            "options": {"decisions": "sometimes"},
        },
        headers=api.user("monty"),
    )
    assert bad.status_code in (400, 422) and "decisions" in str(bad.get_json())
