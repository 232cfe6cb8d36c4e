"""The worker's clock check at two numbers of running correspondence games, side by side: before
(issue 27: every active timed game listed from the games view and loaded, each step) and after (the
``clocks`` view: only the rows due are read, and only those games loaded).

Each store is a SQLite file with ``n`` games on a one-day per-move clock, started at once (both
sides one player's).  "After" is ``LifecycleService.check_clocks`` at a moment nothing is due (the
worker's every step but the few at a deadline), once the first check has written every game's
deadline; "before" is the old loop over the same games at the same moment.  Games loaded are
counted around ``GameService.get``."""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from service.bootstrap import build_services
from service.config import Config
from service.views.games import GameQuery

SIZES = (200, 1000)
ROUNDS = 20


def _config(var: Path) -> Config:
    return Config(
        store="sqlite",
        var_dir=var,
        plugins=("tests.fixtures.skirmish",),
        secret_key="bench-secret",
        testing=True,
    )


def _old_check(svc: Any, now: datetime) -> list[str]:
    """check_clocks as it was: every running timed game, loaded."""
    moment = now.timestamp()
    touched = []
    query = GameQuery(everything=True, status="active", timed=True)
    for row in svc.index.every(query):
        game = svc.games.get(row["id"])
        ports = svc.games.ports
        expired = game.expire_clock(now=moment, seed=svc.games.seed_of(game), ports=ports)
        low = game.warn_low_clock(now=moment, ports=ports)
        if expired or low:
            touched.append(row["id"])
    return touched


def _timed(fn: Any) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def run(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        svc = build_services(_config(Path(tmp)))
        try:
            svc.users.register("alice", "alice-password-1")
            alice = svc.users.by_name("alice")
            for _ in range(n):
                svc.lifecycle.create(
                    creator=alice,
                    system="skirmish",
                    scenario="meeting",
                    sides={"red": "alice", "blue": "alice"},
                    clock={"kind": "per-move", "days": 1},
                )
            svc.projections.run()
            loads: list[str] = []
            real = svc.games.get

            def get(game_id: Any, *args: Any, **kwargs: Any) -> Any:
                loads.append(str(game_id))
                return real(game_id, *args, **kwargs)

            svc.games.get = get  # type: ignore[method-assign]
            now = datetime.now(UTC) + timedelta(hours=1)
            started = time.perf_counter()
            svc.lifecycle.check_clocks(now)
            first = (time.perf_counter() - started) * 1000
            first_loads = len(loads)
            loads.clear()
            after = _timed(lambda: svc.lifecycle.check_clocks(now))
            after_loads = len(loads) // ROUNDS
            loads.clear()
            before = _timed(lambda: _old_check(svc, now))
            before_loads = len(loads) // ROUNDS
            print(
                f"{n:>5} games: before {before:8.1f} ms/step ({before_loads} loaded), "
                f"after {after:6.2f} ms/step ({after_loads} loaded), "
                f"x{before / after:,.0f}; the first check after a (re)build {first:.0f} ms "
                f"({first_loads} loaded)"
            )
        finally:
            svc.close()


def main() -> None:
    for n in SIZES:
        run(n)


if __name__ == "__main__":
    main()
