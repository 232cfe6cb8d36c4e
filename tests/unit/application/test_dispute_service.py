"""DisputeService on the in-memory store: takebacks, disputes and their remedies (rewind, rebase),
the arbiter's queue, club rulings, and a stale save."""

from __future__ import annotations

from typing import Any

import pytest

from service.application.disputes import DisputeService
from service.domain.errors import Forbidden, NotFound, StaleVersion, Unprocessable
from service.domain.game import Game
from service.domain.rulings import ClubRuling
from tests.unit.application.conftest import SHOT, FakeKnowledge, World


def step(world: World, game: Game, distance: int, side: str = "red") -> None:
    user = world.alice if side == "red" else world.bob
    world.play(game, user, {"type": "step", "distance": distance})


def open_on(world: World, game: Game, seq: int) -> str:
    _, name = world.disputes.open(
        game.id, world.bob, seq=seq, claim="that is not what rule 2 says", cite=[], side=None
    )
    return name


def overturn(world: World, game: Game, name: str, remedy: str) -> dict[str, Any]:
    return world.disputes.resolve(
        game.id, world.carol, dispute=name, verdict="overturned", remedy=remedy, cite=["duel:2"]
    )


# -- takebacks ----------------------------------------------------------------------------------------
def test_a_takeback_through_the_service_restores_the_state_before_the_command(
    world: World,
) -> None:
    game = world.start()
    step(world, game, 2)
    step(world, game, 3)
    world.disputes.request_takeback(game.id, world.alice, side=None, from_seq=None)
    with pytest.raises(Forbidden, match="only the opponent"):
        world.disputes.answer_takeback(game.id, world.alice, accept=True, side=None)
    world.broker.published.clear()
    answered = world.disputes.answer_takeback(game.id, world.bob, accept=True, side=None)
    assert answered.state["pace"]["red"] == 2 and answered.retracted == [4, 5]
    assert world.game(game).state == answered.state
    assert world.broker.published[0][1] | {"game": None} == {
        "game": None,
        "version": 8,
        "from": 7,
        "to": 8,
        "status": "active",
    }


def test_a_game_whose_labels_say_never_refuses_takebacks(world: World) -> None:
    game = world.start(takeback_policy="never")
    step(world, game, 2)
    with pytest.raises(Forbidden, match="not allowed"):
        world.disputes.request_takeback(game.id, world.alice, side=None, from_seq=None)


# -- opening, the queue, resolving --------------------------------------------------------------------
def test_only_players_open_disputes_and_the_queue_names_the_event_in_words(world: World) -> None:
    game = world.start()
    step(world, game, 2)
    with pytest.raises(Forbidden, match="only the players"):
        world.disputes.open(game.id, world.carol, seq=3, claim="no", cite=[], side=None)
    name = open_on(world, game, 3)
    queue = world.disputes.queue(world.carol)
    assert [(q["dispute"], q["seq"], q["by"]) for q in queue] == [(name, 3, "bob")]
    assert queue[0]["event"]["text"] == "red steps to pace 2"
    assert world.disputes.queue(world.alice) == []  # a player of the game may not arbitrate it


def test_only_an_arbiter_who_plays_no_side_resolves(world: World) -> None:
    game = world.start()
    step(world, game, 2)
    name = open_on(world, game, 3)
    dave = world.users.register("dave", "a long password")
    for user, message in [(world.alice, "a player of this game"), (dave, "only an arbiter")]:
        with pytest.raises(Forbidden, match=message):
            world.disputes.resolve(
                game.id, user, dispute=name, verdict="upheld", remedy=None, cite=["duel:2"]
            )


@pytest.mark.parametrize(
    ("cite", "dispute", "error"),
    [([], None, Unprocessable), (["duel:9"], None, Unprocessable), (["duel:2"], "d99", NotFound)],
    ids=["uncited", "unknown-entry", "unknown-dispute"],
)
def test_a_resolution_cites_known_entries_of_a_known_dispute(
    world: World, cite: list[str], dispute: str | None, error: type
) -> None:
    game = world.start()
    step(world, game, 2)
    name = open_on(world, game, 3)
    with pytest.raises(error):
        world.disputes.resolve(
            game.id, world.carol, dispute=dispute or name, verdict="upheld", remedy=None, cite=cite
        )
    assert world.game(game).disputes[name]["status"] == "open"


def test_an_upheld_event_stands_and_the_resolution_is_listed(world: World) -> None:
    game = world.start()
    step(world, game, 2)
    name = open_on(world, game, 3)
    done = world.disputes.resolve(
        game.id, world.carol, dispute=name, verdict="upheld", remedy=None, cite=["duel:2"]
    )
    assert done["report"] == [] and done["citations"][0]["heading"] == "2. Steps"
    [listed] = world.disputes.of_game(game.id)
    assert listed["status"] == "upheld" and listed["resolution"]["arbiter"] == "carol"
    assert world.game(game).retracted == [] and world.disputes.queue(world.carol) == []


# -- remedies -----------------------------------------------------------------------------------------
def test_a_rewind_retracts_the_disputed_command_and_everything_after(world: World) -> None:
    game = world.start()
    step(world, game, 2)  # 2, 3
    step(world, game, 1)  # 4, 5
    world.play(game, world.alice, {"type": "pass"})  # 6, 7
    step(world, game, 3, side="blue")  # 8, 9
    name = open_on(world, game, 5)  # 10
    overturn(world, game, name, "rewind")
    rewound = world.game(game)
    assert rewound.retracted == [4, 5, 6, 7, 8, 9]
    assert rewound.state["pace"] == {"red": 2, "blue": 0} and rewound.active_sides() == ["red"]


def test_a_rebase_keeps_the_later_commands_that_stay_legal(world: World) -> None:
    game = world.start()
    step(world, game, 1)  # 2, 3
    step(world, game, 2)  # 4, 5: disputed
    world.play(game, world.alice, {"type": "pass"})  # 6, 7
    name = open_on(world, game, 5)
    done = overturn(world, game, name, "rebase")
    assert [(r["origin"], r["command"], r["status"]) for r in done["report"]] == [
        (6, "pass", "kept")
    ]
    rebased = world.game(game)
    assert rebased.state["pace"]["red"] == 1 and rebased.active_sides() == ["blue"]


def test_a_rebase_rerolls_with_new_indexes(world: World) -> None:
    game = world.start()
    step(world, game, 1)  # 2, 3
    step(world, game, 2)  # 4, 5: disputed
    world.play(game, world.alice, SHOT)  # 6, 7, 8: die 0
    name = open_on(world, game, 5)
    [entry] = overturn(world, game, name, "rebase")["report"]
    assert entry["status"] == "re-rolled"
    rerolled = [e for e in world.store.events.get(game.id) if isinstance(e, Game.DiceRolled)]
    assert [e.rolls[0]["index"] for e in rerolled] == [0, 1]  # an index is never reused
    assert world.games.verify_dice(game.id)["ok"]


def test_a_rebase_drops_what_became_illegal_citing_the_rule(world: World) -> None:
    game = world.start()
    step(world, game, 1)  # 2, 3: disputed
    world.play(game, world.alice, SHOT)  # legal from pace 1 only
    name = open_on(world, game, 3)
    [entry] = overturn(world, game, name, "rebase")["report"]
    assert entry["status"] == "dropped" and "(rule 3)" in entry["reason"]
    assert world.game(game).state["pace"]["red"] == 0
    assert world.disputes.of_game(game.id)[0]["resolution"]["report"] == [entry]


def test_a_club_ruling_is_saved_with_the_resolution_and_announced(world: World) -> None:
    made: list[ClubRuling] = []
    disputes = DisputeService(
        world.store, world.games, knowledge=lambda: FakeKnowledge(), on_club_ruling=made.append
    )
    game = world.start()
    step(world, game, 2)
    _, name = disputes.open(game.id, world.bob, seq=3, claim="too far", cite=[], side=None)
    ruling = {
        "heading": "Paces",
        "text": "Count from 0.",
        "rule_refs": ["2"],
        "event_types": ["Stepped"],
    }
    done = disputes.resolve(
        game.id,
        world.carol,
        dispute=name,
        verdict="upheld",
        remedy=None,
        cite=["duel:2"],
        club_ruling=ruling,
    )
    [saved] = made
    assert done["club_ruling"] == str(saved.id)
    assert world.store.repository.get(saved.id).heading == "Paces"


def test_a_resolution_saved_on_a_game_that_moved_on_is_stale_and_writes_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = world.start()
    step(world, game, 2)
    name = open_on(world, game, 3)
    stale = world.games.get(game.id)
    step(world, game, 1)
    monkeypatch.setattr(world.games, "get", lambda *a, **k: stale)
    with pytest.raises(StaleVersion) as lost:
        world.disputes.resolve(
            game.id, world.carol, dispute=name, verdict="upheld", remedy=None, cite=["duel:2"]
        )
    assert lost.value.details == {"game": ["changed meanwhile"]}
    monkeypatch.undo()
    assert world.game(game).disputes[name]["status"] == "open"
