"""Fog of war as a property (issue 14): in every game that hides information, random play through
the HTTP API, and after a sample of commands every read path -- the game now and at each version,
events, the NDJSON export, the SSE stream, rulings, audit, actions and diff, dice, disputes, game
lists, previews -- read as each side, a spectator and an anonymous reader, shows nothing the game's
own probe (service/fuzz/probes.py) says is hidden from that reader.  Another side's view is refused.

Seeded: a failure names its seed; ``FOG_SEED=K`` replays a run from seed K.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURE_PLUGINS, app_of, make_config
from tests.support.api import ApiHelper
from tests.support.fog import FogGame, games

pytestmark = pytest.mark.slow(
    "random play of every game that hides information, every read path read as each side after a sample of commands"
)

SYSTEMS: dict[str, dict[str, Any]] = {
    "backbone": {
        "system": "backbone",
        "scenario": "scenario-1",
        "sides": ("allied", "spanish"),
        "options": {"limited_intelligence": True},
    },
    "barcelona": {
        "system": "barcelona",
        "scenario": "skirmish",
        "sides": ("nationalist", "republican"),
        "options": {},
    },
    "duel": {"system": "duel", "scenario": "dawn", "sides": ("red", "blue"), "options": {}},
}
#: games per system (in make test: make fuzz plays ten times as many), commands per game, read
#: every N commands
BUDGET = {"backbone": (1, 20, 7), "barcelona": (1, 24, 6), "duel": (1, 24, 6)}
SEED = int(os.environ.get("FOG_SEED", "1400"))


@pytest.fixture
def fog_app(tmp_path: Path, index_template: Path) -> Any:
    config = make_config(tmp_path, plugins=(*FIXTURE_PLUGINS, "tests.fixtures.duel"))
    with app_of(config, index_template) as app:
        yield app


def play(api: ApiHelper, app: Any, system: str, seed: int) -> FogGame:
    moves: list[str] = []
    games, commands, every = BUDGET[system]
    game = FogGame(api, app.extensions["arbiter"], SYSTEMS[system], seed, moves)
    try:
        game.play(commands, every)
    except AssertionError as exc:
        raise AssertionError(f"{system} seed {seed} after {moves}: {exc}") from exc
    assert not game.judge.problems, f"{system} seed {seed} (FOG_SEED={seed}) after {moves}: " + (
        "\n".join(game.judge.problems[:10])
    )
    return game


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_no_read_path_shows_what_the_game_hides(fog_app: Any, system: str) -> None:
    api = ApiHelper(fog_app.test_client())
    started = time.monotonic()
    totals = [0, 0, 0]
    for seed in range(SEED, SEED + games(BUDGET[system][0])):
        print(f"fog: {system} seed {seed}")
        game = play(api, fog_app, system, seed)
        totals = [totals[0] + game.commands, totals[1] + game.refused, totals[2] + game.reads]
    seconds = time.monotonic() - started
    print(
        f"fog: {system}: {totals[0]} commands, {totals[1]} refused, {totals[2]} reads, {seconds:.1f} s"
    )
    assert totals[0] > 0
