"""``GET /api/seeks`` at two store sizes, side by side: before (issue 27: the in-memory LogFollower,
whose position stayed at the last seek event, re-reading the unindexed log since on every request)
and after (the persisted ``seeks`` view, read a page at a time).

Each store is a SQLite file with 30 seeks opened through the API (users, then seeks: early in the
log, as in a real store), then ``GAME_EVENTS`` filler events per "game" appended behind them (a
topic no read model follows: the size of a log a play history makes, without playing it).
"Before" runs the statement eventsourcing's ``select_notifications`` made for the old follower
(from the last seek event, no stop, topic not indexed) on a copy without the topic index, plus the
decoding of what it found; "after" is a whole request through the Flask app (test client).  The
worker's one-time catch-up of the view over the grown log is shown as well."""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from eventsourcing.utils import get_topic

from service.app import create_app
from service.config import Config
from service.domain.seeks import Seek

SIZES = (200, 2000)  # games
GAME_EVENTS = 650  # events per played game (issue 27: 649k events at 1,000 games)
SEEKS = 30
REQUESTS = 30
FILLER = "bench.filler:Played.Event"


def _config(var: Path) -> Config:
    return Config(
        store="sqlite",
        var_dir=var,
        plugins=("tests.fixtures.skirmish",),
        secret_key="bench-secret",
        testing=True,
    )


def _grow(path: Path, events: int) -> None:
    db = sqlite3.connect(path)
    state = b'{"bench": true}'
    batch = 50_000
    for start in range(0, events, batch):
        rows = [(uuid.uuid4().hex, 1, FILLER, state) for _ in range(min(batch, events - start))]
        db.executemany("INSERT INTO stored_events VALUES (?,?,?,?)", rows)
        db.commit()
    db.close()


def _before(path: Path, store: Any) -> float:
    """The old follower's request: everything after the last seek event, topic not indexed."""
    copy = path.with_name("before.sqlite")
    shutil.copy(path, copy)
    db = sqlite3.connect(copy)
    db.execute("DROP INDEX IF EXISTS stored_events_topic")
    db.commit()
    topics = [get_topic(c) for c in (Seek.Opened, Seek.Joined, Seek.Cancelled)]
    marks = ",".join("?" * len(topics))
    last = db.execute(
        f"SELECT MAX(rowid) FROM stored_events WHERE topic IN ({marks})", topics
    ).fetchone()[0]
    times = []
    for _ in range(REQUESTS // 3):
        started = time.perf_counter()
        rows = db.execute(
            "SELECT rowid, * FROM stored_events WHERE rowid>? "
            f"AND topic IN ({marks}) ORDER BY rowid LIMIT ?",
            [last, *topics, 500],
        ).fetchall()
        for _row in rows:  # nothing new: the cost is the scan
            pass
        times.append(time.perf_counter() - started)
    db.close()
    copy.unlink()
    return statistics.median(times)


def _measure(games: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        config = _config(Path(tmp) / "var")
        app = create_app(config)
        client = app.test_client()
        token = None
        for name in ("ann", "bob"):
            client.post("/api/users", json={"username": name, "password": "bench-password"})
        token = client.post(
            "/api/tokens", json={"username": "ann", "password": "bench-password"}
        ).get_json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(SEEKS):
            r = client.post(
                "/api/seeks",
                json={"system": "skirmish", "scenario": "meeting", "side": "blue"},
                headers=headers,
            )
            assert r.status_code == 201, r.get_json()
        services = app.extensions["arbiter"]
        _grow(config.sqlite_file, games * GAME_EVENTS)
        started = time.perf_counter()
        services.projections.run()  # the worker's step: the view passes the grown log once
        catch_up = time.perf_counter() - started
        times = []
        for _ in range(REQUESTS):
            started = time.perf_counter()
            r = client.get("/api/seeks")
            times.append(time.perf_counter() - started)
            assert r.status_code == 200 and len(r.get_json()) == SEEKS
        after = statistics.median(times)
        before = _before(config.sqlite_file, services.store)
        services.close()
    return {"before": before, "after": after, "catch_up": catch_up}


def main() -> None:
    results = {games: _measure(games) for games in SIZES}
    small, large = SIZES
    print(
        f"GET /api/seeks p50, {SEEKS} open seeks, SQLite, {GAME_EVENTS} events per game "
        f"(ratio: {large} games / {small} games)"
    )
    print(f"{'':34} {small:>8} games {large:>8} games {'ratio':>8}")
    for key, label in (
        ("before", "before: LogFollower rescan (ms)"),
        ("after", "after: seeks view, whole request (ms)"),
        ("catch_up", "view's one-time catch-up (ms)"),
    ):
        a, b = results[small][key] * 1000, results[large][key] * 1000
        print(f"{label:34} {a:>14.2f} {b:>14.2f} {b / a:>8.2f}")


if __name__ == "__main__":
    main()
