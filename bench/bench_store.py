"""Loading a 5,000-event game: cold with snapshots, cold without, and the raw SQLite read + JSON
decode of the same rows, side by side (target: with snapshots within 2x of the raw read)."""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from service.bootstrap import build_ports, build_services, open_store
from service.config import Config

EVENTS = 5000
REPEATS = 15


def build_game(config: Config) -> str:
    svc = build_services(config)
    user = svc.users.register("bench", "benchmark-password")
    game = svc.games.create(
        system="bench-tally", scenario="race", sides={"a": "bench", "b": "bench"}, creator=user
    )
    version = game.version
    i = 0
    svc.games.add_entropy(
        game.id, user, "bench entropy", side="b"
    )  # one event, so the total is even
    version += 1
    while version < EVENTS:
        done = svc.games.execute(
            game.id,
            user,
            {"type": "advance", "unit": f"u{i % 20}", "path": ["A1", "B2", "C3", "D4"]},
            expected_version=version,
            side="a",
        )
        version = done.game.version
        i += 1
    svc.close()
    return str(game.id)


def timed(func, repeats: int = REPEATS) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeats):
        started = time.perf_counter()
        func()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            store="sqlite",
            var_dir=Path(tmp),
            plugins=("bench.systems",),
            secret_key="bench",
            cache_size=0,
        )
        started = time.perf_counter()
        game_id = build_game(config)
        print(f"built a game of {EVENTS} events in {time.perf_counter() - started:.1f} s")
        from uuid import UUID

        gid = UUID(game_id)
        ports = build_ports(config)
        with_snap = open_store(config, ports)
        without = open_store(replace(config), ports, snapshots=False)

        def load_with() -> None:
            with_snap.repository.get(gid)

        def load_without() -> None:
            without.repository.get(gid)

        def load_worst() -> None:  # the farthest from a snapshot: 99 events to replay after it
            with_snap.repository.get(gid, version=EVENTS - 1)

        db = sqlite3.connect(config.sqlite_file)
        table = "stored_events"

        def raw() -> None:
            rows = db.execute(
                f"SELECT originator_version, state FROM {table} WHERE originator_id = ? ORDER BY originator_version",
                (gid.hex,),
            ).fetchall()
            if not rows:
                rows = db.execute(
                    f"SELECT originator_version, state FROM {table} WHERE originator_id = ? ORDER BY originator_version",
                    (str(gid),),
                ).fetchall()
            assert len(rows) >= EVENTS, len(rows)
            for _, state in rows:
                json.loads(state)

        load_with()
        load_without()
        raw()
        t_with = statistics.median(timed(load_with))
        t_without = statistics.median(timed(load_without, 5))
        t_raw = statistics.median(timed(raw))
        t_worst = statistics.median(timed(load_worst))
        print(f"{'load':40} {'median ms':>10} {'x raw':>8}")
        for label, value in (
            ("cold load, snapshots every 100", t_with),
            ("cold load, 99 events past a snapshot", t_worst),
            ("cold load, no snapshots (full replay)", t_without),
            ("raw SQLite read + JSON decode of all rows", t_raw),
        ):
            print(f"{label:40} {value * 1000:10.2f} {value / t_raw:8.2f}")
        verdict = "meets" if max(t_with, t_worst) <= 2 * t_raw else "MISSES"
        print(
            f"snapshots vs raw read: {t_with / t_raw:.2f}x ({verdict} the 2x target); "
            f"snapshots speed-up over full replay: {t_without / t_with:.1f}x"
        )
        db.close()
        with_snap.close()
        without.close()


if __name__ == "__main__":
    main()
