"""The reviews' view (issue 31): fuzz-played games of every system, the view run in stretches (a
worker's steps, with few games kept in memory) equals its rebuild, and each measured roll equals
what the rules' own tables give when the game is replayed independently from its log."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from service.application.games import with_states_before
from service.config import Config
from service.domain.game import Game, copy_json
from service.fuzz.runner import Harness
from service.fuzz.session import play_random
from service.rules.base import RulesEvent
from service.views import reviews
from service.views.catalog import VIEWS, Projections
from tests.conftest import app_of
from tests.e2e.test_review_api import play_until_combat
from tests.support.api import ApiHelper

pytestmark = pytest.mark.slow(
    "fuzz-played games of every system, the view run in stretches and rebuilt"
)

SYSTEMS = ("merida", "backbone", "bizkaya", "barcelona")
#: a fuzz game of each system (seeds whose games fight: Merida's second attacks once, Backbone's
#: second fights three combats)
PLAYED = (("merida", 2), ("backbone", 2), ("backbone", 1), ("bizkaya", 1), ("barcelona", 1))


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Harness, list[str]]]:
    harness = Harness(systems=SYSTEMS)
    games = []
    try:
        for system, seed in PLAYED:
            outcome = play_random(harness, system, seed, 160, checked=False)
            assert not outcome.failed, outcome.problems
            games.append(str(outcome.game_id))
        yield harness, games
    finally:
        harness.close()


def snapshot(view: Any, games: list[str]) -> dict[str, Any]:
    return {
        gid: {
            "game": view.game(gid),
            "rolls": [r | {"value": r["value"] and r["value"].as_dict()} for r in view.rolls(gid)],
            "turns": view.turns(gid),
            "figures": view.figures([gid]),
        }
        for gid in games
    }


def test_the_view_in_stretches_equals_its_rebuild_and_the_rules_tables(
    played: tuple[Harness, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    harness, games = played
    monkeypatch.setattr(reviews, "GAMES_KEPT", 2)  # most events find their game not kept
    views = Projections(harness.store, create_tables=True, views={"reviews": VIEWS["reviews"]})
    runner = views["reviews"]
    head = harness.store.recorder.max_notification_id() or 0
    for upto in range(0, head + 400, 400):
        runner.run(upto=upto)
    assert runner.status()["lag"] == 0
    live = snapshot(runner.view, games)
    views.rebuild("reviews")
    assert snapshot(views["reviews"].view, games) == live

    measured = 0
    for gid in games:
        game = harness.games.get(gid)
        rules = harness.registry.get(game.system)
        stored = list(harness.store.events.get(game.id))
        rolled = {r["index"] for e in stored if isinstance(e, Game.DiceRolled) for r in e.rolls}
        rows = {r["idx"]: r for r in live[gid]["rolls"]}
        assert set(rows) == rolled  # every die, measured or not
        expected: dict[int, dict[str, Any]] = {}
        for event, state in with_states_before(rules, stored, None):
            if isinstance(event, Game.Recorded) and event.originator_version not in game.retracted:
                shown = RulesEvent(event.kind, copy_json(event.data))
                for value in rules.review.roll_values(shown, copy_json(state)):
                    expected[value.index] = value.as_dict()
        assert {i: r["value"] for i, r in rows.items() if r["value"]} == expected
        measured += len(expected)
        figures = {f["side"]: f for f in live[gid]["figures"]}
        if expected:
            sides = list(game.sides)
            total = {
                side: sum(
                    (Fraction(str(v["faces"][v["die"] - 1])) - _mean(v["faces"]))
                    * (1 if v["side"] == side else -1)
                    for v in expected.values()
                )
                for side in sides
            }
            for side in sides:
                assert figures[side]["figure"] == pytest.approx(float(total[side]))
                assert 0.0 <= figures[side]["p_at_least"] <= 1.0
        if game.status == "ended":
            assert live[gid]["game"]["status"] == "ended" and live[gid]["turns"]
    assert measured > 0  # some combat was measured in these games


def _mean(faces: list[Any]) -> Fraction:
    return sum((Fraction(str(f)) for f in faces), Fraction(0)) / len(faces)


def test_the_review_on_both_stores_and_after_a_rebuild(
    store_config: Config, index_template: Path
) -> None:
    """On SQLite and PostgreSQL: a Merida game's attack measured by the worker's step, the review
    read from the view, the same after ``arbiter projections rebuild reviews``."""
    with app_of(store_config, index_template) as app:
        api = ApiHelper(app.test_client())
        sides = {"republican": "alice", "nationalist": "bob"}
        gid = str(api.create_game("merida", "merida-1938", sides)["id"])
        play_until_combat(api, gid, sides, combats=1)
        api.work()
        first = api.client.get(f"/api/games/{gid}/review", headers=api.user("alice")).get_json()
        assert first["luck"]["republican"]["measured"] >= 1
        services = app.extensions["arbiter"]
        services.projections.rebuild("reviews")
        again = api.client.get(f"/api/games/{gid}/review", headers=api.user("alice")).get_json()
        assert again == first
