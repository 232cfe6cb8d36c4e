"""Read costs against history size (issue 27): a real ``arbiter serve`` on stores of 1,000 and 10,000
games grown from played games (``bench/history.py``), side by side in one run.

For each size, on a copy of the cached store: the server is started (as ``bench/serve.py`` does)
and timed from the process's start to the first answered ``GET /api/games`` (signed in as a user
with the median number of games: its bearer token is issued before the start), then it answers
the common reads (``GET /api/games``, ``?mine=true``, ``/api/seeks``, ``/api/me/notifications``)
and the worker's memory is read (``VmRSS`` of gunicorn's worker process).  With both sizes'
servers up, ``REQUESTS`` requests of each of those four are sent alternating between the two
servers (so the machine's other load falls on both alike), for p50 and p99 (each endpoint's
default page, where it has pages).  Then a second start of each, on the same copy, times a new
worker's first ``GET /api/me/notifications`` (it has answered nothing else).  Printed: both sizes, the ratio (large / small) and the
bounds of the issue's done-when, met or missed (at 10k games: the first ``GET /api/games`` within
1.5x its time at 1k, memory within 1.3x, and ``/api/seeks``, ``/api/games`` and notifications p99
within 1.5x and under 50 ms).

Environment: ``BENCH_HISTORY_SIZES`` (games, default ``1000,10000``; e.g. ``100,300`` for a quick
run), ``BENCH_HISTORY_REQUESTS`` (per endpoint, default 100), ``BENCH_HISTORY_CACHE`` and
``BENCH_HISTORY_REBUILD`` (``bench/history.py``).  The first run builds the stores (about 30 s
of play, then the copies: a few minutes for 10,000 games); later runs find them in
``bench/.cache``."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests

from bench import history
from bench.bench_throughput import load_average, percentile, reference_seconds
from bench.serve import free_port

BIN = Path(sys.executable).parent
SIZES = tuple(int(s) for s in os.environ.get("BENCH_HISTORY_SIZES", "1000,10000").split(","))
REQUESTS = int(os.environ.get("BENCH_HISTORY_REQUESTS", "100"))
TIMEOUT = 600.0  # seconds a first request may take
ENDPOINTS = {
    "games": "/api/games",
    "mine": "/api/games?mine=true",
    "seeks": "/api/seeks",
    "notifications": "/api/me/notifications",
}
#: (figure, label, unit, bound): the done-when's bound on the ratio, and on the large size's value
ROWS: tuple[tuple[str, str, str, float | None, float | None], ...] = (
    ("first_games", "first GET /api/games after start", "s", 1.5, None),
    ("first_games_alone", "  of which the request itself", "s", None, None),
    ("first_notifications", "first GET /api/me/notifications (new worker)", "s", None, None),
    ("first_notifications_alone", "  of which the request itself", "s", None, None),
    ("rss", "worker RSS after the common reads", "MB", 1.3, None),
    ("games_p50", "GET /api/games p50", "ms", None, None),
    ("games_p99", "GET /api/games p99", "ms", 1.5, 50),
    ("mine_p50", "GET /api/games?mine=true p50", "ms", None, None),
    ("mine_p99", "GET /api/games?mine=true p99", "ms", None, None),
    ("seeks_p50", "GET /api/seeks p50", "ms", None, None),
    ("seeks_p99", "GET /api/seeks p99", "ms", 1.5, 50),
    ("notifications_p50", "GET /api/me/notifications p50", "ms", None, None),
    ("notifications_p99", "GET /api/me/notifications p99", "ms", 1.5, 50),
)


def typical_user(meta: dict[str, Any]) -> str:
    """A user with the median number of games of those who play."""
    counts = meta["games_of"]
    middle = statistics.median_low(n for n in counts.values() if n)
    return next(name for name, n in sorted(counts.items()) if n == middle)


def prepare(root: Path, username: str) -> str:
    """Before the timed start: the rules knowledge base opened (``arbiter serve`` builds it before
    serving when it is missing or stale), and a bearer token for ``username``."""
    from service.bootstrap import build_services
    from service.config import Config

    svc = build_services(Config.from_env(history.env_for(root)))
    try:
        svc.knowledge.kb  # noqa: B018 - build or open the index
        return svc.users.sign_in(username, history.PASSWORD).token
    finally:
        svc.close()


def worker_pid(pid: int) -> int:
    """gunicorn's (one) worker process of the master ``pid`` (the master itself if none)."""
    with contextlib.suppress(OSError, ValueError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if children:
            return int(children[0])
    return pid


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def serving(root: Path, log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], float]]:
    """``arbiter serve`` on the store at ``root``: its URL, process and start time (once up)."""
    port = free_port()
    env = history.env_for(root)
    with log.open("ab") as out:
        started = time.perf_counter()
        server = subprocess.Popen(
            [str(BIN / "arbiter"), "serve", "--port", str(port)],
            env=env,
            cwd=history.ROOT,
            stdout=out,
            stderr=out,
        )
        try:
            yield f"http://127.0.0.1:{port}", server, started
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def first_answer(
    http: requests.Session, base: str, path: str, server: subprocess.Popen[bytes], started: float
) -> tuple[float, float]:
    """Wait for the server to answer ``/healthz``, then ``GET path``: the seconds from the process's
    start to the answer, and those of the request alone."""
    deadline = time.monotonic() + 120
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            if http.get(base + "/healthz", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not answer /healthz in 120 s")
        time.sleep(0.02)
    sent = time.perf_counter()
    answer = http.get(base + path, timeout=TIMEOUT)
    answer.raise_for_status()
    done = time.perf_counter()
    return done - started, done - sent


class Size:
    """One store size: its cached store, the copy served, the user and the figures."""

    def __init__(self, games: int, work: Path) -> None:
        self.games = games
        store = history.build(games, progress=lambda line: print(line, flush=True))
        self.meta = history.meta_of(store)
        self.root = history.copy_to(store, work / f"store-{games}")
        self.user = typical_user(self.meta)
        self.log = work / f"serve-{games}.log"
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {prepare(self.root, self.user)}"
        self.base = ""
        self.figures: dict[str, Any] = {}
        self.rows: dict[str, int] = {}

    def first_start(self, stack: contextlib.ExitStack) -> None:
        """Start the server (kept up by ``stack``): the first ``GET /api/games``, then the common
        reads, then the worker's memory."""
        self.base, server, started = stack.enter_context(serving(self.root, self.log))
        self.figures["first_games"], self.figures["first_games_alone"] = first_answer(
            self.http, self.base, ENDPOINTS["games"], server, started
        )
        for name, path in ENDPOINTS.items():
            answer = self.http.get(self.base + path, timeout=TIMEOUT)
            answer.raise_for_status()
            body = answer.json()
            self.rows[name] = len(body["notifications"] if name == "notifications" else body)
        self.figures["rss"] = rss_mb(worker_pid(server.pid))

    def get(self, path: str) -> float:
        """The seconds ``GET path`` takes.  Sent again, and timed again, if the server had just
        closed the kept-alive connection: idle while the other size's server answered, it may have
        passed uvicorn's keep-alive timeout (5 s)."""
        for attempt in (1, 2):
            sent = time.perf_counter()
            try:
                answer = self.http.get(self.base + path, timeout=TIMEOUT)
            except requests.ConnectionError:
                if attempt == 2:
                    raise
                continue
            took = time.perf_counter() - sent
            answer.raise_for_status()
            return took
        raise AssertionError("unreachable")

    def second_start(self) -> None:
        """A new worker on the same store: its first ``GET /api/me/notifications``."""
        with serving(self.root, self.log) as (base, server, started):
            self.figures["first_notifications"], self.figures["first_notifications_alone"] = (
                first_answer(self.http, base, ENDPOINTS["notifications"], server, started)
            )

    def describe(self) -> str:
        meta = self.meta
        per_game = meta["game_events"] / meta["games"]
        return (
            f"{self.games} games: {meta['events']} events ({per_game:.0f} per game), signed in as "
            f"{self.user} ({meta['games_of'][self.user]} games); rows answered: "
            + ", ".join(f"{k} {v}" for k, v in self.rows.items())
        )


def measure(sizes: list[Size]) -> None:
    """Each size's first start in turn (its server kept up), then every endpoint's requests
    alternating between the sizes' servers (the machine's load falls on both alike), then each
    size's second start in turn."""
    with contextlib.ExitStack() as stack:
        for size in sizes:
            size.first_start(stack)
        print(f"started; load average {load_average()}", flush=True)
        for name, path in ENDPOINTS.items():
            times: dict[int, list[float]] = {size.games: [] for size in sizes}
            for _ in range(REQUESTS):
                for size in sizes:
                    times[size.games].append(size.get(path))
            for size in sizes:
                size.figures[f"{name}_p50"] = percentile(times[size.games], 50) * 1000
                size.figures[f"{name}_p99"] = percentile(times[size.games], 99) * 1000
        print(f"timed; load average {load_average()}", flush=True)
    for size in sizes:
        size.second_start()


def verdict(small: float, large: float, ratio_bound: float | None, at_most: float | None) -> str:
    if ratio_bound is None and at_most is None:
        return ""
    met = (ratio_bound is None or large <= ratio_bound * small) and (
        at_most is None or large < at_most
    )
    bounds = [f"<= {ratio_bound:g}x"] if ratio_bound is not None else []
    bounds += [f"< {at_most:g} ms"] if at_most is not None else []
    return f"{' and '.join(bounds):<18} {'met' if met else 'MISSED'}"


def main() -> None:
    small, large = SIZES
    print(
        f"reference loop: {reference_seconds():.2f} s (this machine's speed now; lower is faster)"
    )
    with tempfile.TemporaryDirectory(prefix="arbiter-history-") as tmp:
        sizes = [Size(games, Path(tmp)) for games in (small, large)]
        try:
            measure(sizes)
        except Exception:
            for size in sizes:  # what the servers said last
                lines = (
                    size.log.read_text(errors="replace").splitlines() if size.log.exists() else []
                )
                print(f"-- the end of the {size.games} games server's log:", *lines[-15:], sep="\n")
            raise
        finally:
            for size in sizes:
                size.http.close()
    for size in sizes:
        print(size.describe())
    print(
        f"load average {load_average()}; {REQUESTS} requests per endpoint, alternating between "
        f"the sizes; SQLite; reference loop now {reference_seconds():.2f} s"
    )
    print(f"{'':46} {small:>9} g {large:>9} g {'ratio':>7}   bound (done-when)")
    for key, label, unit, ratio_bound, at_most in ROWS:
        a, b = sizes[0].figures[key], sizes[1].figures[key]
        ratio = b / a if a else float("nan")
        print(
            f"{label + ' (' + unit + ')':46} {a:>11.3f} {b:>11.3f} {ratio:>7.2f}   "
            f"{verdict(a, b, ratio_bound, at_most)}"
        )


if __name__ == "__main__":
    main()
