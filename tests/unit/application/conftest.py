"""The application services on eventsourcing's in-memory store, with fakes around them: a broker
that records what is published, a knowledge base of two entries, and the rules of the Duel
(tests/fixtures/duel)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.sqlite import SQLiteDatastore

from service.application.disputes import DisputeService
from service.application.games import GameService
from service.application.store import ArbiterStore
from service.application.users import UserService
from service.bootstrap import open_store
from service.domain.game import Game
from service.domain.systems import GamePorts
from service.domain.users import User
from service.rules.registry import Registry
from service.views.base import on_datastore
from service.views.catalog import Projections
from service.views.disputes import DisputesProjection
from service.views.disputes import DisputesView as DisputesTables
from service.views.runner import ProjectionRunner
from tests.conftest import make_config
from tests.fixtures.duel import SYSTEM as DUEL
from tests.fixtures.duel.ports import duel_ports

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
#: red's shot: Red Gunman 1 fires at Blue Gunman 1 (rule 3: from pace 1 or farther)
SHOT = {"type": "shoot", "shooters": ["r1"], "target": "b1"}


class FakeBroker:
    """Records every publish; delivers nothing."""

    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, channel: str, message: dict[str, Any]) -> bool:
        self.published.append((channel, message))
        return True

    def subscribe(self, channel: str) -> Any:
        raise NotImplementedError

    def healthy(self) -> bool:
        return True


class FakeKnowledge:
    ENTRIES = {
        "duel:1": {"heading": "1. Turns", "document": "duel", "text": "The sides take turns."},
        "duel:2": {"heading": "2. Steps", "document": "duel", "text": "Never beyond pace 6."},
    }

    def get(self, entry_id: str) -> dict[str, Any]:
        return dict(self.ENTRIES[entry_id])


def open_memory_store(
    ports: GamePorts, broker: FakeBroker | None = None, *, snapshot_every: int = 0, cache: int = 0
) -> ArbiterStore:
    env = dict(MEMORY)
    if snapshot_every:
        env["IS_SNAPSHOTTING_ENABLED"] = "y"
    if cache:
        env["AGGREGATE_CACHE_MAXSIZE"] = str(cache)
    return ArbiterStore(env=env, ports=ports, broker=broker, snapshot_interval=snapshot_every)


@dataclass
class World:
    store: ArbiterStore
    broker: FakeBroker
    users: UserService
    games: GameService
    disputes: DisputeService
    alice: User
    bob: User
    carol: User  # a site arbiter

    def start(self, **labels: Any) -> Game:
        return self.games.create(
            system="duel",
            scenario="dawn",
            sides={"red": "alice", "blue": "bob"},
            creator=self.alice,
            labels=labels,
        )

    def play(self, game: Game, user: User, command: dict[str, Any]) -> list[dict[str, Any]]:
        version = self.games.get(game.id).version
        return self.games.execute(game.id, user, command, expected_version=version).events

    def game(self, game: Game) -> Game:
        return self.games.get(game.id)


@pytest.fixture
def broker() -> FakeBroker:
    return FakeBroker()


def disputes_view(store: ArbiterStore, path: Path) -> ProjectionRunner:
    """The persisted disputes view (the arbiter's queue) of an in-memory store, in a SQLite file
    at ``path``, brought up to each commit (read-your-writes, as in the app)."""
    datastore = SQLiteDatastore(str(path))
    tables: Any = DisputesTables  # a view's tables, as the catalog holds them
    view: Any = on_datastore(tables, datastore)(datastore)
    view.create_table()
    runner = ProjectionRunner(store, DisputesProjection(view))

    def seen(events: list[Any], position: int) -> None:
        runner.run(upto=position)

    store.on_commit = seen
    return runner


@pytest.fixture
def world(broker: FakeBroker, tmp_path: Path) -> World:
    store = open_memory_store(duel_ports(), broker)
    registry = Registry()
    registry.register(DUEL)
    users = UserService(store)
    games = GameService(store, registry, users, broker)  # type: ignore[arg-type]
    runner = disputes_view(store, tmp_path / "views.sqlite")
    disputes = DisputeService(store, games, knowledge=lambda: FakeKnowledge(), runner=runner)
    alice, bob, carol = (users.register(n, "a long password") for n in ("alice", "bob", "carol"))
    carol.grant("arbiter")
    store.commit(carol)
    broker.published.clear()
    return World(store, broker, users, games, disputes, alice, bob, carol)


@pytest.fixture
def sqlite_users(tmp_path: Path) -> Iterator[Callable[..., UserService]]:
    """User services (``sqlite_users(**options)``) over one store in a SQLite file, with the
    persisted views a user service reads (the tokens') kept up to date by each commit, as in the
    app: the in-memory store has no views."""
    config = make_config(tmp_path)
    config.var_dir.mkdir(parents=True, exist_ok=True)
    store = open_store(config, duel_ports())
    projections = Projections(store, create_tables=True)
    store.on_commit = projections.seen
    try:
        yield lambda **options: UserService(store, tokens=projections["tokens"], **options)
    finally:
        store.close()
