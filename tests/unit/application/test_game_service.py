"""GameService on the in-memory store: create, execute, stale versions, sides, entropy, and what is
published -- each through the one save-and-publish path (ArbiterStore.commit)."""

from __future__ import annotations

from typing import Any

import pytest

from service.application.games import RuleRefused
from service.domain.errors import (
    Conflict,
    Forbidden,
    Invalid,
    StaleVersion,
    Unprocessable,
)
from service.domain.game import DiceSeed, Game, seed_vault_id
from tests.unit.application.conftest import SHOT, World


def stored(world: World, game: Game) -> list[Any]:
    return list(world.store.events.get(game.id))


def test_create_records_the_game_keeps_its_seed_apart_and_announces_it(world: World) -> None:
    game = world.start(rated=False)
    events = stored(world, game)
    assert [type(e).__name__ for e in events] == ["Created"]
    assert game.sides == {"red": str(world.alice.id), "blue": str(world.bob.id)}
    assert game.labels == {"title": "Duel at dawn", "rated": False}
    assert game.options == {"first": "red"} and game.active_sides() == ["red"]
    vault: DiceSeed = world.store.repository.get(seed_vault_id(game.id))
    assert vault.seed not in str(events[0].__dict__)  # only its commitment is in the game's log
    assert world.broker.published == [
        (
            f"game:{game.id}",
            {"game": str(game.id), "version": 1, "from": 1, "to": 1, "status": "active"},
        )
    ]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"system": "chess"}, "system"),
        ({"scenario": "noon"}, "scenario"),
        ({"sides": {"red": "alice"}}, "sides.blue"),
        ({"sides": {"red": "alice", "blue": "nobody"}}, "sides.blue"),
        ({"sides": {"red": "alice", "blue": "bob", "green": "carol"}}, "sides.green"),
        ({"options": {"first": "green"}}, "options.first"),
    ],
)
def test_create_refuses_what_does_not_fit(world: World, args: dict[str, Any], field: str) -> None:
    base: dict[str, Any] = {
        "system": "duel",
        "scenario": "dawn",
        "sides": {"red": "alice", "blue": "bob"},
        "creator": world.alice,
    }
    with pytest.raises(Unprocessable) as refused:
        world.games.create(**(base | args))
    assert field in refused.value.details
    assert world.broker.published == []


def test_execute_records_the_command_and_its_facts_and_publishes_them(world: World) -> None:
    game = world.start()
    world.broker.published.clear()
    done = world.games.execute(
        game.id, world.alice, {"type": "step", "distance": 2}, expected_version=1
    )
    assert done.game.version == 3 and done.game.state["pace"]["red"] == 2
    assert [e["kind"] for e in done.events] == ["Game.CommandAccepted", "Game.Recorded"]
    assert done.events[1]["type"] == "Stepped"
    assert world.broker.published == [
        (
            f"game:{game.id}",
            {"game": str(game.id), "version": 3, "from": 2, "to": 3, "status": "active"},
        )
    ]
    assert world.game(game).state == done.game.state


def test_a_command_on_a_stale_version_is_refused_before_any_rule_runs(world: World) -> None:
    game = world.start()
    world.play(game, world.alice, {"type": "step", "distance": 2})
    world.broker.published.clear()
    with pytest.raises(StaleVersion, match="at version 3, not 1"):
        world.games.execute(game.id, world.alice, {"type": "bogus"}, expected_version=1)
    assert len(stored(world, game)) == 3 and world.broker.published == []


def test_a_save_that_loses_the_race_is_stale_and_writes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = world.start()
    stale = world.games.get(game.id)  # another worker read version 1 too ...
    world.play(game, world.alice, {"type": "step", "distance": 2})  # ... and lost the race
    world.broker.published.clear()
    monkeypatch.setattr(world.games, "get", lambda *a, **k: stale)
    with pytest.raises(StaleVersion, match="another command was recorded first") as lost:
        world.games.execute(
            game.id, world.alice, {"type": "step", "distance": 3}, expected_version=1
        )
    assert lost.value.details == {"expected_version": ["stale: the game moved on"]}
    monkeypatch.undo()
    assert len(stored(world, game)) == 3 and world.game(game).state["pace"]["red"] == 2
    assert world.broker.published == []


def test_only_the_player_of_a_side_acts_for_it_and_only_in_its_turn(world: World) -> None:
    game = world.start()
    with pytest.raises(Forbidden, match="you are not a player"):
        world.play(game, world.carol, {"type": "pass"})
    with pytest.raises(Forbidden, match="you do not play red"):
        world.games.execute(game.id, world.bob, {"type": "pass"}, expected_version=1, side="red")
    with pytest.raises(Forbidden, match="not Blue's turn"):
        world.play(game, world.bob, {"type": "pass"})
    assert len(stored(world, game)) == 1


def test_a_rule_violation_cites_the_rule_and_a_malformed_command_names_the_field(
    world: World,
) -> None:
    game = world.start()
    with pytest.raises(RuleRefused) as refused:
        world.play(game, world.alice, SHOT)
    assert refused.value.rule == "3" and refused.value.details["rule"] == ["3"]
    with pytest.raises(Invalid) as invalid:
        world.play(game, world.alice, {"type": "step", "distance": 9})
    assert "command.distance" in invalid.value.details
    assert len(stored(world, game)) == 1


def test_dice_are_recorded_with_their_index_and_verify_against_the_seed(world: World) -> None:
    game = world.start()
    world.play(game, world.alice, {"type": "step", "distance": 1})
    events = world.play(game, world.alice, SHOT)
    assert [e["kind"] for e in events] == [
        "Game.CommandAccepted",
        "Game.DiceRolled",
        "Game.Recorded",
    ]
    roll = events[1]["payload"]["rolls"][0]
    assert roll["index"] == 0 and events[2]["payload"]["data"]["rolls"] == [roll["value"]]
    report = world.games.verify_dice(game.id)
    assert report["ok"] and report["seed_revealed"] is False


def test_entropy_is_added_before_a_sides_first_roll_only(world: World) -> None:
    game = world.start()
    world.broker.published.clear()
    world.games.add_entropy(game.id, world.bob, "blue's own noise")
    assert world.game(game).entropy == ["blue:blue's own noise"]
    assert world.broker.published[0][1] | {"game": None} == {
        "game": None,
        "version": 2,
        "from": 2,
        "to": 2,
        "status": "active",
    }
    with pytest.raises(Unprocessable, match="1 to 256"):
        world.games.add_entropy(game.id, world.alice, "x" * 257)
    with pytest.raises(Forbidden):
        world.games.add_entropy(game.id, world.carol, "noise")
    world.play(game, world.alice, {"type": "step", "distance": 1})
    world.play(game, world.alice, SHOT)
    with pytest.raises(Conflict, match="before the side's first roll"):
        world.games.add_entropy(game.id, world.alice, "too late")


def test_entropy_changes_the_dice_of_later_rolls(world: World) -> None:
    game = world.start()
    world.games.add_entropy(game.id, world.alice, "noise")
    world.play(game, world.alice, {"type": "step", "distance": 1})
    rolls = world.play(game, world.alice, SHOT)[1]["payload"]["rolls"]
    assert rolls[0]["entropy"] != "" and world.games.verify_dice(game.id)["ok"]


def test_the_end_of_the_game_reveals_the_seed_and_stops_play(world: World) -> None:
    game = world.start()
    events = world.play(game, world.alice, {"type": "concede"})
    assert events[-1]["kind"] == "Game.Ended"
    ended = world.game(game)
    assert ended.status == "ended" and ended.result is not None
    assert ended.result["winner"] == "blue" and ended.seed == world.games.seed_of(ended)
    assert world.broker.published[-1][1]["status"] == "ended"
    with pytest.raises(Conflict, match="the game is over"):
        world.play(game, world.bob, {"type": "pass"})
