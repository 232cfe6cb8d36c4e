"""The Game aggregate on its own: no store, no registry, no globals -- only the ports it is given.

Its takeback and dispute state machine, and that a game rebuilt from its events with the ports is
the live one.  The rules are the Duel of tests/fixtures/duel."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain import chain, dice, systems
from service.domain.errors import Conflict, Forbidden, Unprocessable
from service.domain.game import Game, projector
from tests.fixtures.duel import SYSTEM as DUEL
from tests.fixtures.duel.ports import SEAL_KEY, duel_ports

PORTS = duel_ports()
ALICE, BOB, CAROL = "u-alice", "u-bob", "u-carol"  # red, blue, an arbiter
CITE = [{"id": "duel:2", "heading": "2. Steps", "document": "duel", "text_hash": "0" * 64}]
#: Red Gunman 1 fires at Blue Gunman 1 (rule 3: from pace 1 or farther)
SHOT = {"type": "shoot", "shooters": ["r1"], "target": "b1"}


def new_game(**labels: Any) -> Game:
    return Game.start(
        system="duel",
        scenario="dawn",
        options={"first": "red"},
        sides={"red": ALICE, "blue": BOB},
        created_by=ALICE,
        seed=dice.new_seed(),
        initial_state=DUEL.initial_state("dawn", {"first": "red"}),
        labels=labels,
        ports=PORTS,
    )


def red(game: Game, command: dict[str, Any]) -> int:
    return game.execute(side="red", user=ALICE, command=command, seed=SEED, ports=PORTS)


def blue(game: Game, command: dict[str, Any]) -> int:
    return game.execute(side="blue", user=BOB, command=command, seed=SEED, ports=PORTS)


SEED = dice.new_seed()


def rebuilt(game: Game, version: int | None = None) -> Game:
    events = [e for e in game.pending_events if version is None or e.originator_version <= version]
    return projector(PORTS)(None, events)


def comparable(game: Game) -> dict[str, Any]:
    return {k: v for k, v in vars(game).items() if k != "_pending_events"}


def request(game: Game, **kw: Any) -> str:
    args: dict[str, Any] = {"side": "red", "user": ALICE, "from_seq": None}
    return game.request_takeback(**(args | kw), ports=PORTS)


def accept(game: Game) -> None:
    assert game.takeback is not None
    before = rebuilt(game, game.takeback["from_seq"] - 1).state
    game.answer_takeback(side="blue", user=BOB, accept=True, restored_state=before, ports=PORTS)


# -- no globals ---------------------------------------------------------------------------------------
def test_the_domain_has_no_installed_rules_nor_seal_key() -> None:
    assert not hasattr(systems, "install") and not hasattr(systems, "system")
    assert not hasattr(chain, "install_seal_key") and not hasattr(chain, "_seal_key")


def test_every_event_is_sealed_with_the_key_of_the_ports_it_was_given() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    events: list[Any] = game.pending_events
    for event in events:
        assert event.seal == chain.seal(event.hash, SEAL_KEY)
    unsealed = Game.start(
        **{k: getattr(game, k) for k in ("system", "scenario", "options", "sides", "created_by")},
        seed=SEED,
        initial_state=DUEL.initial_state("dawn", {"first": "red"}),
        ports=duel_ports(seal_key=None),
    )
    created: Any = unsealed.pending_events[0]
    assert created.seal == ""


def test_a_game_rebuilt_from_its_events_with_the_ports_is_the_live_one() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    red(game, SHOT)
    red(game, {"type": "choose", "card": "ace"})
    red(game, {"type": "reveal"})
    red(game, {"type": "pass"})
    blue(game, {"type": "step", "distance": 1})
    request(game, side="blue", user=BOB)  # 15: from 13, blue's step
    game.answer_takeback(
        side="red", user=ALICE, accept=True, restored_state=rebuilt(game, 12).state, ports=PORTS
    )
    again = rebuilt(game)
    assert game.retracted == [13, 14] and game.state["pace"]["blue"] == 0
    assert comparable(again) == comparable(game)
    assert again.tail == game.tail and again.active_sides() == ["blue"]


def test_replay_applies_a_copy_of_the_recorded_facts() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    recorded = next(e for e in game.pending_events if isinstance(e, Game.Recorded))
    game.state["pace"]["red"] = 99  # an apply that kept a reference would now corrupt the event
    assert recorded.data == {"side": "red", "to": 2}


def test_whose_turn_it_is_comes_from_the_rules_and_is_empty_once_ended() -> None:
    game = new_game()
    assert game.active_sides() == ["red"]
    red(game, {"type": "pass"})
    assert game.active_sides() == ["blue"]
    blue(game, {"type": "concede"})
    assert game.status == "ended" and game.active_sides() == []
    assert game.result == {"winner": "red", "outcome": "win", "level": "concession"}
    assert game.seed == SEED  # the seed is revealed with the end
    with pytest.raises(Conflict, match="over"):
        red(game, {"type": "pass"})


# -- takebacks ----------------------------------------------------------------------------------------
def test_an_accepted_takeback_retracts_the_commands_and_restores_the_state() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})  # 2, 3
    red(game, {"type": "step", "distance": 3})  # 4, 5
    assert request(game, from_seq=2) == "t6"
    assert game.takeback == {"request": "t6", "side": "red", "from_seq": 2}
    accept(game)
    retracted = game.pending_events[-1]
    assert isinstance(retracted, Game.Retracted) and retracted.seqs == [2, 3, 4, 5]
    assert game.state["pace"]["red"] == 0 and game.takeback is None
    assert game.retracted == [2, 3, 4, 5] and game.active_sides() == ["red"]


def test_a_takeback_defaults_to_the_last_command_only() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    red(game, {"type": "step", "distance": 3})
    request(game)
    accept(game)
    assert game.retracted == [4, 5] and game.state["pace"]["red"] == 2


def test_a_takeback_from_a_seq_that_is_not_one_of_ones_latest_commands_is_refused() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    with pytest.raises(Unprocessable, match="seq 3 is not one of your latest commands"):
        request(game, from_seq=3)  # 3 is the command's event, not the command


def test_a_declined_takeback_changes_nothing_but_the_pending_request() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    request(game)
    game.answer_takeback(side="blue", user=BOB, accept=False, restored_state=None, ports=PORTS)
    assert game.takeback is None and game.retracted == [] and game.state["pace"]["red"] == 2


def test_no_takeback_once_dice_were_rolled() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 1})
    red(game, SHOT)
    with pytest.raises(Conflict, match="dice have been rolled"):
        request(game)


def test_a_command_after_the_roll_may_still_be_taken_back() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 1})
    red(game, SHOT)
    red(game, {"type": "step", "distance": 1})
    request(game)
    accept(game)
    assert game.state["pace"]["red"] == 1


def test_no_takeback_once_hidden_information_was_revealed() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 1})
    red(game, {"type": "choose", "card": "queen"})
    red(game, {"type": "reveal"})
    with pytest.raises(Conflict, match="hidden information"):
        request(game)
    assert rebuilt(game).tail["cut"] == "reveals"  # the cut survives replay


def test_no_takeback_once_the_opponent_has_acted() -> None:
    game = new_game()
    red(game, {"type": "pass"})
    blue(game, {"type": "step", "distance": 1})
    with pytest.raises(Conflict, match="the opponent has acted"):
        request(game)


@pytest.mark.parametrize(
    ("policy", "labels"), [("never", {}), ("casual", {"rated": True})], ids=["never", "rated"]
)
def test_a_policy_may_forbid_takebacks(policy: str, labels: dict[str, Any]) -> None:
    game = new_game(takeback_policy=policy, **labels)
    red(game, {"type": "step", "distance": 1})
    with pytest.raises(Forbidden, match="not allowed"):
        request(game)


def test_a_casual_policy_allows_takebacks_in_unrated_games() -> None:
    game = new_game(takeback_policy="casual")
    red(game, {"type": "step", "distance": 1})
    assert request(game)


def test_a_takeback_is_answered_once_and_only_by_the_opponent() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 1})
    with pytest.raises(Conflict, match="no takeback request"):
        game.answer_takeback(side="blue", user=BOB, accept=True, restored_state={}, ports=PORTS)
    request(game)
    with pytest.raises(Conflict, match="already pending"):
        request(game)
    with pytest.raises(Forbidden, match="only the opponent"):
        game.answer_takeback(side="red", user=ALICE, accept=True, restored_state={}, ports=PORTS)
    with pytest.raises(Forbidden, match="you do not play blue"):
        game.answer_takeback(side="blue", user=ALICE, accept=True, restored_state={}, ports=PORTS)


def test_a_pending_takeback_lapses_when_anyone_acts() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 1})
    request(game)
    red(game, {"type": "step", "distance": 1})
    assert game.takeback is None


# -- disputes -----------------------------------------------------------------------------------------
def dispute(
    game: Game, seq: int = 3, side: str = "blue", user: str = BOB, claim: str = "no"
) -> str:
    return game.open_dispute(side=side, user=user, seq=seq, claim=claim, citations=[], ports=PORTS)


def resolve(game: Game, name: str, **kw: Any) -> None:
    args: dict[str, Any] = {
        "arbiter": CAROL,
        "verdict": "upheld",
        "remedy": None,
        "citations": CITE,
        "note": "",
        "club_ruling": None,
    }
    game.resolve_dispute(dispute=name, **(args | kw), ports=PORTS)


def test_a_dispute_opens_on_a_live_game_event_and_is_upheld() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)
    assert game.disputes == {name: {"seq": 3, "side": "blue", "status": "open"}}
    resolve(game, name)
    assert game.disputes[name]["status"] == "upheld" and game.retracted == []


@pytest.mark.parametrize(
    ("seq", "error", "message"),
    [(1, Unprocessable, "no event 1"), (9, Unprocessable, "no event 9")],
)
def test_a_dispute_needs_an_event_of_the_game(seq: int, error: type, message: str) -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    with pytest.raises(error, match=message):
        dispute(game, seq=seq)


def test_a_dispute_of_bookkeeping_a_retracted_event_or_an_open_twin_is_refused() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    red(game, {"type": "step", "distance": 1})
    request(game)  # 6: bookkeeping
    with pytest.raises(Unprocessable, match="bookkeeping"):
        dispute(game, seq=6)
    accept(game)  # retracts 4, 5
    with pytest.raises(Conflict, match="already retracted"):
        dispute(game, seq=5)
    dispute(game, seq=3)
    with pytest.raises(Conflict, match="already under dispute"):
        dispute(game, seq=3, side="red", user=ALICE)
    with pytest.raises(Unprocessable, match="say what is wrong"):
        dispute(game, seq=2, claim="  ")


def test_only_players_dispute_and_a_player_may_not_arbitrate() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    with pytest.raises(Forbidden, match="only the players"):
        dispute(game, user=CAROL)
    name = dispute(game)
    with pytest.raises(Forbidden, match="a player of this game may not arbitrate"):
        resolve(game, name, arbiter=ALICE)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"verdict": "maybe"}, "verdict must be upheld or overturned"),
        ({"remedy": "rewind"}, "an upheld event needs no remedy"),
        ({"verdict": "overturned"}, "choose rewind or rebase"),
        ({"citations": []}, "cite the rules"),
    ],
)
def test_a_resolution_is_refused_when_malformed(changes: dict[str, Any], message: str) -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)
    with pytest.raises(Unprocessable, match=message):
        resolve(game, name, **changes)
    assert game.disputes[name]["status"] == "open"


def test_a_dispute_is_resolved_once() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)
    resolve(game, name)
    with pytest.raises(Conflict, match="already upheld"):
        resolve(game, name)
    with pytest.raises(Unprocessable, match="no dispute d99"):
        resolve(game, "d99")


def test_an_overturn_retracts_and_resumes_from_the_restored_state() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})  # 2, 3
    red(game, {"type": "pass"})  # 4, 5
    name = dispute(game)  # 6
    restored = rebuilt(game, 1).state
    resolve(
        game,
        name,
        verdict="overturned",
        remedy="rewind",
        retract=[2, 3, 4, 5],
        restored_state=restored,
    )
    assert game.retracted == [2, 3, 4, 5] and game.state["pace"]["red"] == 0
    assert game.active_sides() == ["red"]  # the rules say whose turn it is again
    assert comparable(rebuilt(game)) == comparable(game)


def test_an_overturn_may_retract_only_live_game_events_with_the_disputed_one() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)  # 4
    with pytest.raises(ValueError, match="cannot retract"):
        resolve(game, name, verdict="overturned", remedy="rewind", retract=[4], restored_state={})


def test_an_ended_game_cannot_be_rewound() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)
    red(game, {"type": "concede"})
    with pytest.raises(Conflict, match="cannot be rewound"):
        resolve(game, name, verdict="overturned", remedy="rewind", retract=[3], restored_state={})


def test_an_open_dispute_pauses_the_game_when_its_labels_say_so() -> None:
    game = new_game(pause_on_dispute=True)
    red(game, {"type": "step", "distance": 2})
    name = dispute(game)
    assert game.paused_by() == name
    with pytest.raises(Conflict, match="paused"):
        red(game, {"type": "pass"})
    resolve(game, name)
    assert game.paused_by() is None
    red(game, {"type": "pass"})


def test_an_open_dispute_does_not_pause_an_ordinary_game() -> None:
    game = new_game()
    red(game, {"type": "step", "distance": 2})
    dispute(game)
    assert game.paused_by() is None
    red(game, {"type": "pass"})
