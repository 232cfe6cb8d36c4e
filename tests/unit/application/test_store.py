"""The store: one save-and-publish path (commit), and games rebuilt with the ports it was given --
from events, from snapshots and from its cache -- with no global set-up."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from service.application.clubs import ClubService
from service.domain.chain import seal
from service.domain.clubs import Club
from service.domain.errors import Conflict, StaleVersion
from service.domain.game import Game, projector
from service.domain.users import User
from tests.fixtures.duel import SYSTEM as DUEL
from tests.fixtures.duel.ports import duel_ports
from tests.unit.application.conftest import SHOT, FakeBroker, World, open_memory_store


def new_duel(ports: Any) -> Game:
    """A duel at dawn, red first, between users ``a`` and ``b``, with a fixed seed."""
    return Game.start(
        system="duel",
        scenario="dawn",
        options={"first": "red"},
        sides={"red": "a", "blue": "b"},
        created_by="a",
        seed="0" * 64,
        initial_state=DUEL.initial_state("dawn", {"first": "red"}),
        ports=ports,
    )


def test_commit_maps_a_lost_race_to_the_callers_conflict_and_writes_nothing(world: World) -> None:
    first, second, third = (world.users.by_name("alice") for _ in range(3))
    first.grant("admin")
    world.store.commit(first)
    second.grant("arbiter")
    with pytest.raises(StaleVersion, match="changed meanwhile"):
        world.store.commit(second)
    third.grant("arbiter")
    with pytest.raises(Conflict, match="mine"):
        world.store.commit(third, conflict=Conflict("mine"))
    assert world.users.by_name("alice").roles == ["admin"]


def test_commit_writes_all_or_nothing_of_several_aggregates(world: World) -> None:
    game = world.start()
    stale = world.games.get(game.id)
    world.play(game, world.alice, {"type": "pass"})
    stale.add_entropy(side="red", user=str(world.alice.id), entropy="x", ports=world.store.ports)
    newcomer = User.register("dave", "a long password")
    with pytest.raises(StaleVersion):
        world.store.commit(newcomer, stale)
    with pytest.raises(Exception, match="not found"):
        world.store.repository.get(newcomer.id)


def test_commit_returns_the_new_events_and_announces_only_what_has_a_channel(
    world: World,
) -> None:
    club = Club.found("Dawn Club", str(world.alice.id))
    assert [type(e).__name__ for e in world.store.commit(club)] == ["Founded"]
    assert world.broker.published == []  # a club has no channel


def test_registering_a_taken_name_or_founding_a_taken_club_is_a_conflict(world: World) -> None:
    with pytest.raises(Conflict, match="already exists"):
        world.users.register("alice", "another password")
    clubs = ClubService(world.store, world.users)
    clubs.create("Dawn Club", world.alice)
    with pytest.raises(Conflict, match="already exists"):
        clubs.create("dawn club", world.bob)


def play_some(world: World, game: Game) -> None:
    world.play(game, world.alice, {"type": "step", "distance": 2})
    world.play(game, world.alice, SHOT)
    world.play(game, world.alice, {"type": "pass"})
    world.play(game, world.bob, {"type": "step", "distance": 3})
    world.play(game, world.bob, {"type": "choose", "card": "king"})
    world.play(game, world.bob, {"type": "reveal"})


def test_a_game_rebuilt_from_stored_events_with_the_ports_equals_the_live_one(
    world: World,
) -> None:
    game = world.start()
    play_some(world, game)
    live = world.game(game)
    rebuilt = projector(duel_ports())(None, world.store.events.get(game.id))
    assert vars(rebuilt) == vars(live)
    assert rebuilt.active_sides() == ["blue"] and rebuilt.tail["cut"] == "reveals"


def test_snapshots_give_the_state_of_a_full_replay_at_every_version() -> None:
    ports = duel_ports()
    with_snapshots = open_memory_store(ports, FakeBroker(), snapshot_every=3)
    world_game = new_duel(ports)
    with_snapshots.commit(world_game)
    for side, user in [("red", "a"), ("blue", "b")] * 4:
        game: Game = with_snapshots.repository.get(world_game.id)
        game.execute(
            side=side,
            user=user,
            command={"type": "step", "distance": 1},
            seed="0" * 64,
            ports=ports,
        )
        game.execute(side=side, user=user, command={"type": "pass"}, seed="0" * 64, ports=ports)
        with_snapshots.commit(game)
    assert with_snapshots.snapshots is not None
    snapshots = list(with_snapshots.snapshots.get(world_game.id))
    assert len(snapshots) >= 5 and all("_rules" not in s.state for s in snapshots)
    events = list(with_snapshots.events.get(world_game.id))
    for version in range(1, len(events) + 1):
        replayed = projector(ports)(None, events[:version])
        assert vars(with_snapshots.repository.get(world_game.id, version=version)) == vars(replayed)


def test_a_cached_game_is_fast_forwarded_with_its_rules() -> None:
    ports = duel_ports()
    store = open_memory_store(ports, FakeBroker(), cache=10)
    game = new_duel(ports)
    store.commit(game)
    store.repository.get(game.id)  # cached at version 1
    game.execute(side="red", user="a", command={"type": "pass"}, seed="0" * 64, ports=ports)
    store.events.put(list(game.collect_events()))  # written by "another worker"
    cached: Game = store.repository.get(game.id)
    assert cached.version == 3 and cached.active_sides() == ["blue"]


def test_two_stores_in_one_process_seal_with_their_own_keys() -> None:
    one, two = duel_ports(b"key one"), duel_ports(b"key two")
    assert one.seal("ab" * 32) == seal("ab" * 32, b"key one") != two.seal("ab" * 32)
    stores = [open_memory_store(p) for p in (one, two)]
    assert stores[0].ports is one and stores[1].ports is two


# -- an event is stored only at the version it was decided and hashed for (lost updates) ---------
def stale_game_moved_on(world: World) -> tuple[Game, Game]:
    """A game as a command took it at version v (``stale``), and the store moved on by another
    command; the stale copy then decides red's pass of its own, hashed for v + 1."""
    game = world.start()
    stale = world.games.get(game.id)
    world.play(game, world.alice, {"type": "pass"})
    stale.execute(
        side="red",
        user=str(world.alice.id),
        command={"type": "pass"},
        seed="0" * 64,
        ports=world.store.ports,
    )
    return game, stale


def renumbered(stale: Game, by: int) -> None:
    """Move ``stale``'s new events ``by`` versions up, as a reader's fast-forward of the object a
    command was deciding on did (eventsourcing's cache, before the fix): hashed for v + 1, stored
    after the other command's events."""
    moved = [
        dataclasses.replace(e, originator_version=e.originator_version + by)
        for e in stale.pending_events
    ]
    stale._pending_events[:] = moved
    object.__setattr__(stale, "_version", stale.version + by)


def test_a_stale_game_is_refused_and_nothing_is_written(world: World) -> None:
    game, stale = stale_game_moved_on(world)
    before = world.games.get(game.id).version
    with pytest.raises(StaleVersion):
        world.store.commit(stale)
    assert world.games.get(game.id).version == before


def test_a_stale_game_renumbered_past_the_store_head_is_refused_not_stored(world: World) -> None:
    """Stored at the next free version, its events would break the chain; the store refuses."""
    game, stale = stale_game_moved_on(world)
    head = world.games.get(game.id).version
    renumbered(stale, head - (stale.pending_events[0].originator_version - 1))
    assert stale.pending_events[0].originator_version == head + 1  # the unique version allows it
    with pytest.raises(StaleVersion):
        world.store.commit(stale)
    assert world.games.get(game.id).version == head


def test_a_game_decided_on_an_older_version_is_refused(world: World) -> None:
    """A command decided at v whose new events start after v + 1 was decided on a state it never
    saw: refused, whatever the hashes say."""
    game = world.start()
    decided = world.games.get(game.id).version
    world.play(game, world.alice, {"type": "pass"})
    fresh = world.games.get(game.id)
    fresh.execute(
        side="blue",
        user=str(world.bob.id),
        command={"type": "pass"},
        seed="0" * 64,
        ports=world.store.ports,
    )
    with pytest.raises(StaleVersion):
        world.store.commit(fresh, decided_at=decided)
    assert (
        world.games.get(game.id).version
        == decided + len(world.games.events(game.id, full=True)) - decided
    )


def test_every_aggregate_commits_only_consecutive_new_events(world: World) -> None:
    user = world.users.by_name("alice")
    user.grant("admin")
    user.grant("arbiter")
    first, second = user.pending_events
    user._pending_events[:] = [
        first,
        dataclasses.replace(second, originator_version=second.originator_version + 1),
    ]
    with pytest.raises(StaleVersion):
        world.store.commit(user)
    assert world.users.by_name("alice").roles == []


class AnchoredHeads:
    """Heads as ``service.adapters.heads`` anchors them: each game's last version and hash."""

    def __init__(self) -> None:
        self.heads: dict[str, dict[str, Any]] = {}

    def get(self, game: str) -> dict[str, Any] | None:
        return self.heads.get(game)

    def anchor(self, game: str, version: int, digest: str) -> None:
        self.heads[game] = {"game": game, "version": version, "hash": digest}


def test_a_game_whose_new_events_do_not_chain_from_its_anchored_head_is_refused(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's last event for the game (anchored on every commit) is not the one the game's
    new events were chained from: refused, nothing written."""
    heads = AnchoredHeads()
    monkeypatch.setattr(world.store, "heads", heads)
    game = world.start()
    world.play(game, world.alice, {"type": "pass"})
    head = heads.get(str(game.id))
    assert head is not None and head["version"] == world.games.get(game.id).version
    world.play(game, world.bob, {"type": "pass"})  # chains from the anchored head: stored
    version = world.games.get(game.id).version
    heads.anchor(str(game.id), version, "0" * 64)  # the event at `version` is not this one
    with pytest.raises(StaleVersion):
        world.play(game, world.alice, {"type": "pass"})
    assert world.games.get(game.id).version == version
