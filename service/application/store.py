"""The eventsourcing Application that stores every aggregate of Arbiter."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.application import Application

from service.config import Config
from service.domain.game import Game


class ArbiterStore(Application):
    """One application, one event store: games, their dice seeds, users (and later clubs ...)."""

    name = "arbiter"


def open_store(config: Config, *, snapshots: bool | None = None) -> ArbiterStore:
    """Open the configured store.  ``snapshots=False`` turns snapshotting off (benchmarks)."""
    interval = config.snapshot_interval if snapshots is not False else 0
    attrs: dict[str, Any] = {
        "name": "arbiter",
        "snapshotting_intervals": {Game: interval} if interval else {},
    }
    cls = type("ArbiterStore", (ArbiterStore,), attrs)
    env = config.eventsourcing_env()
    if interval:
        env["IS_SNAPSHOTTING_ENABLED"] = "y"
    return cls(env=env)


class LogFollower:
    """Reads the shared notification log's ``topics`` on from where it stopped last: the reader of
    an incremental projection (every worker follows the same log, so it sees every worker's events).

    Hold ``lock`` while consuming :meth:`new_events` and updating what it projects."""

    def __init__(self, store: ArbiterStore, topics: Sequence[str], batch: int = 500) -> None:
        self.store = store
        self.topics = list(topics)
        self.batch = batch
        self.position = 0
        self.lock = threading.Lock()

    def new_events(self) -> Iterator[Any]:
        while True:
            notes = self.store.recorder.select_notifications(
                start=self.position, limit=self.batch, topics=self.topics, inclusive_of_start=False
            )
            for note in notes:
                yield self.store.mapper.to_domain_event(note)
                self.position = note.id
            if len(notes) < self.batch:
                return
