"""The notification worker heeds its stop flag between events (issue 27): told to stop in the
middle of a long log, it returns after the event it is on, not after the whole log; the next
pull resumes from the position recorded with the last event processed."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.bootstrap import build_worker
from tests.conftest import make_config


@pytest.fixture
def app(tmp_path: Path, index_template: Path) -> Iterator[Any]:
    config = make_config(tmp_path)
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    yield application
    application.extensions["arbiter"].close()


def test_the_worker_stops_between_events_not_after_the_log(app: Any) -> None:
    svc = app.extensions["arbiter"]
    alice = svc.users.register("alice", "alice-password")
    svc.users.register("bob", "bob-password")
    for _ in range(40):
        svc.games.create(
            system="skirmish",
            scenario="meeting",
            sides={"red": "alice", "blue": "bob"},
            creator=alice,
        )
    derived = threading.Event()

    def slow_names(user: str) -> str:  # each event takes a while to derive: 40 of them, 8 s
        derived.set()
        time.sleep(0.2)
        return user

    worker = build_worker(svc, process=svc.notifications.process)
    worker.process.names = slow_names
    worker.start(interval=0.05, delay=0)
    assert derived.wait(10)
    began = time.monotonic()
    worker.stop(timeout=5)
    assert worker._thread is not None and not worker._thread.is_alive()
    assert time.monotonic() - began < 2
    position = worker.process.recorder.max_tracking_id(svc.store.name) or 0
    assert 0 < position < svc.store.recorder.max_notification_id()

    build_worker(svc, process=svc.notifications.process).step()  # the next carries on, to the end
    after = worker.process.recorder.max_tracking_id(svc.store.name) or 0
    assert after > position
    notices = svc.notifications.process.views["notices"].view
    turns = notices.page(str(alice.id), ["turn"], limit=1000)
    assert len(turns) == 40  # red moves first: one "your turn" per game, none lost or twice
