"""The same contract on SQLite and PostgreSQL: durability, snapshots, time travel, concurrency."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from service.application.services import Services
from service.bootstrap import build_services
from service.config import Config
from service.domain.chain import GENESIS
from service.domain.errors import StaleVersion
from service.domain.users import User
from service.views.games import GameQuery
from tests.support.games import alice_and_bob


def setup_game(svc: Services, turns: int = 4) -> tuple[Any, User, User]:
    alice, bob, game = alice_and_bob(svc, options={"turns": turns})
    return game, alice, bob


def play_phases(svc: Services, game_id: Any, alice: User, bob: User, count: int) -> None:
    for _ in range(count):
        game = svc.games.get(game_id)
        user = alice if game.active_sides() == ["red"] else bob
        svc.games.execute(game_id, user, {"type": "end_phase"}, expected_version=game.version)


def chain_ok(events: list[dict[str, Any]]) -> bool:
    previous = GENESIS
    for seq, event in enumerate(events, start=1):
        if event["seq"] != seq or event["prev_hash"] != previous:
            return False
        previous = event["hash"]
    return True


def test_a_game_survives_a_restart(store_config: Config) -> None:
    svc = build_services(store_config)
    game, alice, bob = setup_game(svc)
    svc.games.execute(
        game.id, alice, {"type": "move", "unit": "r2", "path": ["D3", "D4"]}, expected_version=1
    )
    play_phases(svc, game.id, alice, bob, 3)
    before = svc.games.get(game.id)
    events_before = list(svc.games.iter_all_events(game.id))
    svc.close()

    again = build_services(store_config)
    after = again.games.get(game.id)
    assert (after.version, after.state, after.last_hash) == (
        before.version,
        before.state,
        before.last_hash,
    )
    assert list(again.games.iter_all_events(game.id)) == events_before
    assert [g["id"] for g in list(again.index.every(GameQuery(everything=True)))] == [str(game.id)]
    again.close()


def test_snapshots_give_the_same_state_as_a_full_replay(store_config: Config) -> None:
    config = replace(store_config, snapshot_interval=4, cache_size=0)
    svc = build_services(config)
    game, alice, bob = setup_game(svc)
    play_phases(svc, game.id, alice, bob, 10)
    assert svc.store.snapshots is not None
    assert len(list(svc.store.snapshots.get(game.id))) >= 2
    with_snapshots = svc.games.get(game.id)
    svc.close()
    plain = build_services(config, snapshots=False)
    replayed = plain.games.get(game.id)
    assert replayed.state == with_snapshots.state and replayed.version == with_snapshots.version
    for version in (1, 4, 6, 9):  # on, after and before snapshot versions
        assert (
            plain.games.get(game.id, version=version).state
            == build_services(config).games.get(game.id, version=version).state
        )
    plain.close()


def test_time_travel_rebuilds_each_past_state(store_config: Config) -> None:
    svc = build_services(store_config)
    game, alice, bob = setup_game(svc)
    svc.games.execute(
        game.id, alice, {"type": "move", "unit": "r2", "path": ["D3", "D4"]}, expected_version=1
    )
    svc.games.execute(
        game.id, alice, {"type": "move", "unit": "r1", "path": ["C3"]}, expected_version=3
    )
    # 1 created; 2 command accepted, 3 r2 moved; 4 command accepted, 5 r1 moved
    assert svc.games.get(game.id, version=2).state["units"]["r2"]["hex"] == "D2"
    assert svc.games.get(game.id, version=3).state["units"]["r2"]["hex"] == "D4"
    assert svc.games.get(game.id, version=3).state["units"]["r1"]["hex"] == "C2"
    assert svc.games.get(game.id, version=5).state["units"]["r1"]["hex"] == "C3"
    svc.close()


def test_two_workers_never_lose_or_duplicate_an_event(store_config: Config) -> None:
    """Two processes' worth of services (each its own store connection) race the same game."""
    first = build_services(store_config)
    game, alice, bob = setup_game(first, turns=8)
    second = build_services(store_config)
    outcomes: dict[str, list[int]] = {"ok": [], "stale": []}
    lock = threading.Lock()

    def worker(svc: Services) -> None:
        while True:
            current = svc.games.get(game.id)
            if current.status != "active":
                return
            user = alice if current.active_sides() == ["red"] else bob
            try:
                done = svc.games.execute(
                    game.id, user, {"type": "end_phase"}, expected_version=current.version
                )
            except StaleVersion:
                with lock:
                    outcomes["stale"].append(current.version)
                continue
            with lock:
                outcomes["ok"].append(len(done.events))

    threads = [threading.Thread(target=worker, args=(svc,)) for svc in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    events = list(first.games.iter_all_events(game.id))
    assert len(events) == 1 + sum(outcomes["ok"])
    assert chain_ok(events)
    phases = [e for e in events if e["type"] == "PhaseEnded"]
    assert len(phases) == len(outcomes["ok"])
    assert first.games.get(game.id).status == "ended"
    first.close()
    second.close()


def test_a_save_that_loses_the_race_is_a_stale_version(store_config: Config) -> None:
    """Both decide on version 1; the second save hits the store's uniqueness and becomes a 409."""
    svc = build_services(store_config)
    game, alice, _ = setup_game(svc)
    other = build_services(store_config)
    real_get = other.games.get
    stale_copy = other.games.get(game.id)
    svc.games.execute(game.id, alice, {"type": "end_phase"}, expected_version=1)
    other.games.get = lambda *a, **k: stale_copy  # type: ignore[method-assign]
    try:
        other.games.execute(game.id, alice, {"type": "end_phase"}, expected_version=1)
    except StaleVersion as exc:
        assert "another command" in exc.message
    else:
        raise AssertionError("the losing save must be refused")
    other.games.get = real_get  # type: ignore[method-assign]
    assert len(list(svc.games.iter_all_events(game.id))) == 3  # created, accepted, phase ended
    svc.close()
    other.close()
