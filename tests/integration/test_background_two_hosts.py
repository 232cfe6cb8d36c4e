"""Background work on two hosts at once (issue 53): the views' runners and the clock checks of two
applications on one PostgreSQL store, run at the same moment, do each event's work once -- the
views end equal to one runner's rebuild, each clock runs out once.  (The notification worker and
its deliveries: tests/integration/test_worker_concurrency.py.)"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.app import create_app
from service.bootstrap import migrate
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.kb import seed_index
from tests.support.services import postgres_database

pytestmark = pytest.mark.postgres

CLOCK = {"kind": "per-move", "days": 1}
END = {"type": "end_phase"}


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[tuple[Flask, Flask]]:
    with postgres_database() as dbname:
        apps: list[Flask] = []
        try:
            for name in ("a", "b"):
                config = make_config(
                    tmp_path / name, store="postgres", postgres_dbname=dbname,
                    var_dir=tmp_path / name / "var", keys_dir=tmp_path / "keys",
                )  # fmt: skip
                if not apps:
                    migrate(config)
                seed_index(str(config.var_dir))
                apps.append(create_app(config))
            yield apps[0], apps[1]
        finally:
            for app in apps:
                app.extensions["arbiter"].close()


def at_once(*work: Callable[[], Any]) -> None:
    """Each of ``work`` in its own thread, started together; their exceptions raised."""
    start, failures = threading.Barrier(len(work)), []

    def run(job: Callable[[], Any]) -> None:
        start.wait()
        try:
            job()
        except Exception as exc:  # noqa: BLE001 - raised below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []


def rows(svc: Any, name: str) -> dict[str, list[dict[str, Any]]]:
    view = svc.projections[name].view
    return {
        table.name: sorted(
            (dict(r) for r in view.query(f"SELECT * FROM {{{table.name}}}")),
            key=lambda r: sorted((k, repr(v)) for k, v in r.items()),
        )
        for table in view.TABLES
    }


def timed_games(api: ApiHelper, count: int) -> list[str]:
    games = []
    for _ in range(count):
        body = {
            "system": "skirmish", "scenario": "meeting", "clock": CLOCK,
            "sides": {"red": "alice", "blue": "bob"},
        }  # fmt: skip
        api.user("bob")
        r = api.client.post("/api/games", json=body, headers=api.user("alice"))
        assert r.status_code == 201, r.get_json()
        gid = r.get_json()["id"]
        accepted = api.client.post(f"/api/games/{gid}/accept", json={}, headers=api.user("bob"))
        assert accepted.status_code == 200, accepted.get_json()
        assert api.command(gid, "alice", END).status_code == 201
        games.append(gid)
    return games


def test_two_hosts_views_runners_at_once_end_equal_to_one_rebuild(
    hosts: tuple[Flask, Flask],
) -> None:
    a, b = (app.extensions["arbiter"] for app in hosts)
    timed_games(ApiHelper(hosts[0].test_client()), 8)
    names = list(a.projections.runners)
    for name in names:  # every view emptied: both hosts' runners start from the first event
        view = a.projections[name].view
        view.drop()
        view.create_table()
    at_once(a.projections.run, b.projections.run)
    raced = {name: rows(a, name) for name in names}
    assert any(any(tables.values()) for tables in raced.values())
    for name in names:
        a.projections.rebuild(name)
    assert {name: rows(a, name) for name in names} == raced


def test_two_hosts_clock_checks_at_once_record_each_expiry_once(
    hosts: tuple[Flask, Flask],
) -> None:
    a, b = (app.extensions["arbiter"] for app in hosts)
    api = ApiHelper(hosts[0].test_client())
    games = timed_games(api, 6)
    late = datetime.now(UTC) + timedelta(days=3)
    before = {g: len(api.events(g, "alice", limit=1000)) for g in games}
    at_once(lambda: a.lifecycle.check_clocks(late), lambda: b.lifecycle.check_clocks(late))
    at_once(lambda: a.lifecycle.check_clocks(late), lambda: b.lifecycle.check_clocks(late))
    for gid in games:
        new = api.events(gid, "alice", limit=1000)[before[gid] :]
        kinds = Counter(event["type"] for event in new)
        assert kinds["ClockExpired"] == 1, (gid, kinds)
        assert all(n == 1 for n in kinds.values()), (gid, kinds)  # nothing recorded twice
