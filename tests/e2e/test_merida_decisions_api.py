"""Issue 19 through the HTTP API: a Merida combat whose result forces losses and a retreat with
several paths waits for the defender, who chooses a unit that is not the weakest for the loss and
the second retreat path.  Rule 8: "the retreating player may displace units instead of
overstacking"; the choices are the owner's.

The game is Closing the Merida Pocket's own rules module on the test scenario of
``tests.fixtures.merida_drill`` (a 6-1 attack with armour: every roll of the server's real dice is
a D1-D4 on a stack of five)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from tests.conftest import FIXTURE_PLUGINS, make_config
from tests.support.api import ApiHelper, build

SIDES = {"nationalist": "franco", "republican": "rojo"}
WEAKEST = "r-xi"  # XI Bde, strength 1


@pytest.fixture
def api(tmp_path: Path, index_template: Path) -> Iterator[ApiHelper]:
    config = make_config(tmp_path, plugins=(*FIXTURE_PLUGINS, "tests.fixtures.merida_drill"))
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    client: FlaskClient = application.test_client()
    yield ApiHelper(client)
    application.extensions["arbiter"].close()


def _send(api: ApiHelper, game_id: str, side: str, command: dict[str, Any]) -> Any:
    return api.command(game_id, SIDES[side], command, side=side)


def _to_combat(api: ApiHelper, game_id: str) -> None:
    """End every phase up to the Nationalist combat phase, then attack Guarena with both units."""
    for _ in range(10):
        game = api.game(game_id, "franco")
        if game["phase"]["phase"] == "combat":
            break
        side = game["active_sides"][0]
        assert _send(api, game_id, side, {"type": "end_phase"}).status_code == 201
    attack = api.template(game_id, "franco", "attack", side="nationalist", hex="E5")
    command = build(attack, attackers=attack["choose"]["attackers"]["some_of"])
    assert _send(api, game_id, "nationalist", command).status_code == 201


def test_a_forced_retreat_waits_for_the_defender_who_chooses_loss_and_path(
    api: ApiHelper,
) -> None:
    game = api.create_game("merida-drill", "decisions-drill", SIDES)
    game_id = game["id"]
    assert game["options"]["decisions"] == "players"  # the default, recorded in the game
    _to_combat(api, game_id)

    # The result forces losses: the game waits for the Republican player.
    game = api.game(game_id, "franco")
    assert game["active_sides"] == ["republican"]
    assert api.actions(game_id, "franco", side="nationalist")["actions"] == []
    waiting = _send(api, game_id, "nationalist", {"type": "end_phase"})
    assert waiting.status_code == 403, waiting.get_json()  # not the side that acts now
    [loss] = api.actions(game_id, "rojo", side="republican")["actions"]
    assert loss["type"] == "choose_loss" and loss["kinds"] == {"units": "units"}
    options = loss["choose"]["units"]["one_of"]
    assert options[0][0] == WEAKEST  # the fixed preference is listed first
    assert all("Bde" in label or "Art" in label for label in loss["choose"]["units"]["labels"])

    # An illegal answer is refused citing the rule, and nothing is written.
    version = api.game(game_id, "rojo")["version"]
    bad = _send(api, game_id, "republican", {"type": "choose_loss", "units": ["n-tercio"]})
    assert bad.status_code == 422 and bad.get_json()["details"]["rule"] == ["8"]
    assert api.game(game_id, "rojo")["version"] == version

    # The defender keeps the weakest unit and loses another.
    chosen = next(o for o in options if WEAKEST not in o)
    assert (
        _send(api, game_id, "republican", {"type": "choose_loss", "units": chosen}).status_code
        == 201
    )
    taken = [e for e in api.events(game_id, "rojo") if e["type"] == "DecisionTaken"]
    assert taken[-1]["payload"]["data"]["units"] == chosen
    assert taken[-1]["payload"]["data"]["how"] == "chosen"

    # The retreat: several paths, the defender takes the second.
    game = api.game(game_id, "franco")
    assert game["active_sides"] == ["republican"]
    retreat = api.template(game_id, "rojo", "choose_retreat", side="republican")
    paths = retreat["choose"]["path"]["one_of"]
    labels = retreat["choose"]["path"]["labels"]
    assert len(paths) >= 2 and all(p[0] == "E5" and len(p) == 2 for p in paths)
    assert "Don Benito (E6)" in labels or "Villanueva (F6)" in labels  # printed place names
    sent = _send(api, game_id, "republican", build(retreat, path=paths[1]))
    assert sent.status_code == 201

    counters = {u["id"]: u for u in api.game(game_id, "franco")["state"]["units"].values()}
    assert counters[WEAKEST]["hex"] == paths[1][-1]
    assert all(counters[u]["status"] == "eliminated" for u in chosen)
    game = api.game(game_id, "franco")
    assert game["active_sides"] == ["nationalist"]
    assert api.template(game_id, "franco", "advance", side="nationalist")


def test_the_automatic_option_is_recorded_and_nothing_waits(api: ApiHelper) -> None:
    game = api.create_game(
        "merida-drill", "decisions-drill", SIDES, options={"decisions": "automatic"}
    )
    assert game["options"]["decisions"] == "automatic"
    _to_combat(api, game["id"])
    assert api.game(game["id"], "franco")["active_sides"] == ["nationalist"]
    combat = [e for e in api.events(game["id"], "franco") if e["type"] == "CombatResolved"][-1]
    assert WEAKEST in combat["payload"]["data"]["eliminated"]  # weakest first
    bad = api.client.post(
        "/api/games",
        json={
            "system": "merida-drill",
            "scenario": "decisions-drill",
            "sides": SIDES,
            "options": {"decisions": "sometimes"},
        },
        headers=api.user("franco"),
    )
    assert bad.status_code in (400, 422) and "options.decisions" in bad.get_json()["details"]
