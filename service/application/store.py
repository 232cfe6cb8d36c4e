"""The eventsourcing Application that stores every aggregate of Arbiter."""

from __future__ import annotations

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
