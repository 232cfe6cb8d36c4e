"""Throughput (issue 14, item 10): on PostgreSQL an append holds the events table's EXCLUSIVE lock
only inside the database (one statement: lock, notify, insert, commit), never while the worker
that sent it waits for its interpreter lock -- under load every other worker's append queued
behind such a wait.  Same lock, same transaction: a lost race still writes nothing."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from service.adapters.postgres_recorder import SCALAR_APPEND
from service.application.services import Services
from service.bootstrap import build_services, migrate
from service.config import Config
from service.domain.errors import Conflict
from tests.conftest import make_config
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.postgres

LOCKED = """
SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
WHERE c.relname = 'arbiter_events' AND l.mode = 'ExclusiveLock' AND l.granted"""


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[tuple[Config, Services]]:
    with postgres_database() as dbname:
        config = make_config(tmp_path, store="postgres", postgres_dbname=dbname)
        migrate(config)
        svc = build_services(config)
        try:
            yield config, svc
        finally:
            svc.close()


def admin(dbname: str) -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=dbname,
        host=str(PG["host"]),
        port=str(PG["port"]),
        user=str(PG["user"]),
        autocommit=True,
        connect_timeout=3,
    )


def test_the_table_lock_is_not_held_while_the_worker_reads_the_results(
    pg: tuple[Config, Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    config, svc = pg
    reading, seen = threading.Event(), []
    fetchall = psycopg.Cursor.fetchall

    def slow_fetchall(self: psycopg.Cursor[Any]) -> Any:
        if threading.current_thread().name == "appender":
            reading.set()  # the worker has the results; its thread now stalls (as on a busy GIL)
            time.sleep(0.5)
        return fetchall(self)

    monkeypatch.setattr(psycopg.Cursor, "fetchall", slow_fetchall)
    appender = threading.Thread(
        target=svc.users.register, args=("ann", "correct horse"), name="appender"
    )
    appender.start()
    assert reading.wait(10)
    time.sleep(0.1)
    with admin(config.postgres_dbname) as probe:
        seen.append(probe.execute(LOCKED).fetchone()[0])  # type: ignore[index]
    appender.join(10)
    assert seen == [0], "the events table stayed locked while the worker read its results"
    assert svc.users.by_name("ann").username == "ann"


def test_a_lost_race_writes_nothing_and_the_ids_stay_in_order(pg: tuple[Config, Services]) -> None:
    config, svc = pg
    svc.users.register("ann", "correct horse")
    with pytest.raises(Conflict):
        svc.users.register("ann", "another horse")  # the same aggregate id: version 1 again
    svc.users.register("bob", "battery staple")
    notes = svc.store.recorder.select_notifications(start=None, limit=100)
    ids = [n.id for n in notes]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    names = [n.originator_id for n in notes]
    assert names.count(svc.users.by_name("ann").id) == 1
    with admin(config.postgres_dbname) as probe:
        assert probe.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone() == (0,)


def test_migrate_makes_the_append_function_and_a_database_without_it_still_appends(
    pg: tuple[Config, Services], caplog: pytest.LogCaptureFixture
) -> None:
    config, svc = pg
    with admin(config.postgres_dbname) as probe:
        functions = probe.execute(
            "SELECT proname FROM pg_proc WHERE proname = 'arbiter_events_append_rows'"
        ).fetchall()
        assert functions == [("arbiter_events_append_rows",)]
        probe.execute("DROP FUNCTION arbiter_events_append_rows")  # a database migrated before it
    with caplog.at_level(logging.WARNING):
        svc.users.register("ann", "correct horse")
        svc.users.register("bob", "battery staple")
    assert "arbiter db migrate" in caplog.text
    assert [svc.users.by_name(n).username for n in ("ann", "bob")] == ["ann", "bob"]
    migrate(config)  # idempotent, and it brings the function back
    with admin(config.postgres_dbname) as probe:
        assert probe.execute(
            "SELECT count(*) FROM pg_proc WHERE proname = 'arbiter_events_append_rows'"
        ).fetchone() == (1,)


@pytest.mark.parametrize("count", [1, 3, SCALAR_APPEND, SCALAR_APPEND + 1, 400])
def test_an_append_of_any_size_stores_every_event_in_order(
    pg: tuple[Config, Services], count: int
) -> None:
    """Up to SCALAR_APPEND events go as a parameter per value, more as an array per column: both
    store exactly what was given, in order, with the ids the notification log reads."""
    _, svc = pg
    recorder = svc.store.recorder
    originator = uuid.uuid4()
    events = [
        StoredEvent(originator, v, f"tests:Event{v % 3}", bytes([v % 256]) * (v % 50))
        for v in range(1, count + 1)
    ]
    ids = recorder.insert_events(events)
    assert recorder.one_trip, "the append function was not used"
    assert ids is not None and len(ids) == count and ids == sorted(ids)
    assert list(recorder.select_events(originator)) == events
    with pytest.raises(IntegrityError):  # a version already stored: nothing of the batch is kept
        recorder.insert_events([*events[-1:], StoredEvent(originator, count + 1, "tests:X", b"")])
    assert len(recorder.select_events(originator)) == count
