"""A command starts from the worker's cached game when the cache holds exactly the version the
command was decided on (no store read), and stays as safe as a read: when another worker has
appended meanwhile, the command is refused (409) and nothing is written; a command decided on a
version the cache has not seen yet reads the store first.  Two service stacks on one store are two
workers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.application.services import Services
from service.bootstrap import build_services, migrate
from service.config import Config
from service.domain.errors import Invalid, StaleVersion
from tests.conftest import make_config
from tests.support.services import postgres_database

END = {"type": "end_phase"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Services]]:
    def stacks(config: Config) -> Iterator[list[Services]]:
        migrate(config)
        both = [build_services(config), build_services(config)]
        try:
            yield both
        finally:
            for svc in both:
                svc.close()

    if request.param == "sqlite":
        yield from stacks(make_config(tmp_path))
    else:
        with postgres_database() as dbname:
            yield from stacks(make_config(tmp_path, store="postgres", postgres_dbname=dbname))


def reads(svc: Services, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every read of a game's events by ``svc``'s store, from now on."""
    seen: list[Any] = []
    get = svc.store.events.get

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args or kwargs)
        return get(*args, **kwargs)

    monkeypatch.setattr(svc.store.events, "get", counting)
    return seen


def start(svc: Services) -> tuple[Any, Any]:
    alice = svc.users.register("alice", "alice-password")
    svc.users.register("bob", "bob-password")
    game = svc.games.create(
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "alice"},
        creator=alice,
    )
    return alice, game


def b_moves_past_a(a: Services, b: Services) -> tuple[Any, Any, int, int]:
    """A game in which worker A played version v1 (and so caches it), then worker B played v2."""
    alice, game = start(a)
    v1 = a.games.execute(game.id, alice, END, expected_version=game.version).game.version
    v2 = b.games.execute(game.id, alice, END, expected_version=v1).game.version
    return alice, game, v1, v2


def test_a_command_on_the_cached_version_reads_nothing_from_the_store(
    workers: list[Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = workers
    alice, game = start(a)
    version = a.games.execute(game.id, alice, END, expected_version=game.version).game.version
    seen = reads(a, monkeypatch)
    for _ in range(3):
        version = a.games.execute(game.id, alice, END, expected_version=version).game.version
    assert seen == []
    assert a.games.get(game.id).version == version  # a read still fast-forwards from the store


def test_a_refused_command_leaves_the_cached_game_to_the_next_command(
    workers: list[Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command takes the game out of the cache; refused before it changed anything, it puts
    the game back, so the next command still reads nothing."""
    a, _ = workers
    alice, game = start(a)
    version = a.games.execute(game.id, alice, END, expected_version=game.version).game.version
    seen = reads(a, monkeypatch)
    with pytest.raises(Invalid):
        a.games.execute(game.id, alice, {"type": "no_such_order"}, expected_version=version)
    done = a.games.execute(game.id, alice, END, expected_version=version)
    assert seen == []
    assert done.game.version > version
    assert a.games.get(game.id).state == done.game.state


def test_a_command_decided_on_a_version_another_worker_has_passed_is_refused(
    workers: list[Services],
) -> None:
    a, b = workers
    alice, game, v1, v2 = b_moves_past_a(a, b)
    with pytest.raises(StaleVersion):  # A's cache still holds v1: its append at v1 + 1 is refused
        a.games.execute(game.id, alice, END, expected_version=v1)
    assert [a.games.get(game.id).version, b.games.get(game.id).version] == [v2, v2]
    after = a.games.execute(game.id, alice, END, expected_version=v2)  # A reads, then plays on
    assert after.game.version > v2
    events = b.games.events(game.id, full=True)
    assert [e["seq"] for e in events] == list(range(1, after.game.version + 1))


def test_a_command_decided_on_a_version_this_worker_has_not_seen_reads_it_first(
    workers: list[Services],
) -> None:
    a, b = workers
    alice, game, _, v2 = b_moves_past_a(a, b)
    done = a.games.execute(game.id, alice, END, expected_version=v2)  # the client saw B's move
    assert done.game.version > v2
    assert b.games.get(game.id).state == done.game.state


def test_a_reader_never_moves_the_game_a_command_is_deciding_on(
    workers: list[Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lost update of concurrent commands: a reader that had found the cached game just
    before a command took it out must not fast-forward the command's game in place, or the command
    decided on v1 is stored after v2 (both answered 201) -- the command is refused instead.

    The reader is held between finding the game and locking it, the command between taking it and
    deciding; then the reader catches up with the store (another worker's v2) while the command
    decides."""
    a, b = workers
    alice, game, v1, v2 = b_moves_past_a(a, b)  # A's cache holds v1, the store v2
    repository = a.store.repository
    holding, release = threading.Event(), threading.Event()
    hold = repository.locks.hold

    def reader_pauses(aggregate_id: Any) -> Any:
        if threading.current_thread().name == "reader" and not release.is_set():
            holding.set()
            release.wait(10)
        return hold(aggregate_id)

    monkeypatch.setattr(repository.locks, "hold", reader_pauses)
    read: list[Any] = []
    reader = threading.Thread(target=lambda: read.append(a.games.get(game.id)), name="reader")
    reader.start()
    assert holding.wait(10)
    acting_side = a.games.acting_side

    def decides_while_the_reader_reads(*args: Any, **kwargs: Any) -> Any:
        release.set()
        reader.join(10)
        return acting_side(*args, **kwargs)

    monkeypatch.setattr(a.games, "acting_side", decides_while_the_reader_reads)
    with pytest.raises(StaleVersion):
        a.games.execute(game.id, alice, END, expected_version=v1)
    monkeypatch.undo()
    assert [g.version for g in read] == [v2]
    events = b.games.events(game.id, full=True)
    assert [e["seq"] for e in events] == list(range(1, v2 + 1))
    assert a.games.get(game.id).version == v2
