"""Deriving a notice needs no replay of the game (issue 27, "notifications that keep up"): the
notification process keeps each game it derived from at that event's version and brings it forward
in place with the events it follows, and what it derives equals, for every event, what the old way
derives (the game loaded at the event's version from its snapshot and replayed) -- over golden
games played interleaved (with room for every game; for one, so a game is loaded again on every
switch; and following only the events notified about, so the events between are read from the
store), and over a game's life (invitations, draws, clocks, a takeback, resignation)."""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.application.notifications import FOLLOWED, TOPICS, NotificationProcess
from service.application.store import ArbiterStore
from service.fuzz.runner import Harness, identity
from service.fuzz.session import read_golden
from tests.conftest import make_config

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "games"
PLUGINS = ("tests.fixtures.skirmish", "tests.fixtures.duel")
#: short golden games of four systems, played a command of each in turn
INTERLEAVED = ("duel-seed1", "skirmish-seed1", "barcelona-seed1", "backbone-seed1")


class Counting:
    """A store's repository, counting the games loaded at a version (a snapshot and a replay)."""

    def __init__(self, store: ArbiterStore) -> None:
        self.versioned = 0
        repository: Any = store.repository
        get = repository.get

        def counted(aggregate_id: Any, **kwargs: Any) -> Any:
            if kwargs.get("version") is not None:
                self.versioned += 1
            return get(aggregate_id, **kwargs)

        repository.get = counted


def derivations(
    store: ArbiterStore, topics: tuple[str, ...] = FOLLOWED, **options: Any
) -> list[tuple[int, Any]]:
    """What a notification process over ``store`` derives for each event of ``topics`` (by
    default those it follows), in the log's order, by notification id (each event decoded
    afresh: a kept game is never shared with another process)."""
    process = NotificationProcess({"PERSISTENCE_MODULE": "eventsourcing.popo"}, **options)
    process.leader = store
    notifications = store.recorder.select_notifications(start=1, limit=10**6, topics=topics)
    return [(n.id, process.derive(store.mapper.to_domain_event(n))) for n in notifications]


def assert_same_as_replay(store: ArbiterStore) -> dict[str, int]:
    """The kept way derives what the replay derives, for every event: following every game
    event with room for 512 games (none loaded at a version) and for one (a game loaded again on
    every switch), and following only the events notified about (the events between read from
    the store).  Returns the notes' kinds and how many of each (the play must say something)."""
    oracle = derivations(store, replay=True)
    counting = Counting(store)
    kept = derivations(store)
    loads = counting.versioned
    assert len(kept) == len(oracle) > 0
    for (position, ours), (_, theirs) in zip(kept, oracle, strict=True):
        assert ours == theirs, f"the event at {position}"
    assert loads == 0, "a game kept at its last derived version was loaded again"
    assert derivations(store, games_kept=1) == oracle
    positions = {p for p, _ in derivations(store, TOPICS, replay=True)}
    assert derivations(store, TOPICS) == [(p, d) for p, d in oracle if p in positions]
    kinds: dict[str, int] = {}
    for _, derived in oracle:
        for note in derived.notes:
            kinds[note.kind] = kinds.get(note.kind, 0) + 1
    return kinds


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(PLUGINS, workdir=tmp_path, snapshot_interval=5)
    yield h
    h.close()


def test_golden_games_played_interleaved_derive_the_same_notices_as_the_replay(
    harness: Harness,
) -> None:
    runs = []
    for name in INTERLEAVED:
        head, moves, _ = read_golden(GOLDEN / f"{name}.ndjson")
        rules = harness.registry.get(head["system"])
        sides = {s.id: s for s in rules.scenarios()}[head["scenario"]].sides
        seats = {side: harness.player(i) for i, side in enumerate(sides)}
        game_id, seed = identity(head["system"], int(head["seed"]))
        harness.games.create(
            system=head["system"],
            scenario=head["scenario"],
            sides={side: user.username for side, user in seats.items()},
            creator=seats[sides[0]],
            options=head.get("options") or None,
            labels={"fuzz": {"seed": head["seed"]}},
            seed=seed,
            game_id=game_id,
        )
        runs.append((game_id, seats, iter(moves)))
    for game_id, seats, moves in itertools.chain.from_iterable(itertools.repeat(runs, 2000)):
        move = next(moves, None)
        if move is None:
            continue
        version = harness.store.repository.get(game_id).version
        harness.games.execute(
            game_id,
            seats[move["side"]],
            json.loads(json.dumps(move["command"])),
            expected_version=version,
            side=move["side"],
        )
    ended = [harness.store.repository.get(game_id).status for game_id, _, _ in runs]
    assert ended == ["ended"] * len(runs)

    kinds = assert_same_as_replay(harness.store)
    assert kinds.get("turn", 0) > 20 and kinds.get("ended") == len(runs)


@pytest.fixture
def app(tmp_path: Path, index_template: Path) -> Iterator[Any]:
    config = make_config(tmp_path)
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    yield application
    application.extensions["arbiter"].close()


def test_a_games_life_derives_the_same_notices_as_the_replay(app: Any) -> None:
    svc = app.extensions["arbiter"]
    alice = svc.users.register("alice", "alice-password")
    bob = svc.users.register("bob", "bob-password")
    sides = {"red": "alice", "blue": "bob"}

    def red_plays(game_id: Any) -> None:
        game = svc.store.repository.get(game_id)
        svc.games.execute(game_id, alice, {"type": "end_phase"}, expected_version=game.version)

    invited = svc.lifecycle.create(
        system="skirmish", scenario="meeting", sides=sides, creator=alice
    )
    svc.lifecycle.accept(invited.id, bob)
    red_plays(invited.id)
    svc.lifecycle.draw(invited.id, alice, "offer")
    svc.lifecycle.draw(invited.id, bob, "decline")
    svc.lifecycle.resign(invited.id, bob)
    taken = svc.lifecycle.create(system="skirmish", scenario="meeting", sides=sides, creator=alice)
    svc.lifecycle.accept(taken.id, bob)
    red_plays(taken.id)
    svc.disputes.request_takeback(taken.id, alice, side="red", from_seq=None)
    svc.disputes.answer_takeback(taken.id, bob, accept=True, side="blue")
    red_plays(taken.id)
    declined = svc.lifecycle.create(
        system="skirmish", scenario="meeting", sides=sides, creator=alice
    )
    svc.lifecycle.decline(declined.id, bob)
    clocked = svc.lifecycle.create(
        system="skirmish",
        scenario="meeting",
        sides=sides,
        creator=alice,
        clock={"kind": "per-move", "days": 1},
    )
    svc.lifecycle.accept(clocked.id, bob)
    red_plays(clocked.id)
    now = svc.lifecycle.clock()
    svc.lifecycle.check_clocks(now + timedelta(hours=20))  # running low
    svc.lifecycle.check_clocks(now + timedelta(days=3))  # ran out

    kinds = assert_same_as_replay(svc.store)
    assert {"invitation", "turn", "draw", "ended", "clock", "takeback"} <= set(kinds), kinds
    retracted = svc.store.repository.get(taken.id)
    assert retracted.retracted, "the takeback was not accepted"
