"""Notification lag under the throughput bench's load (issue 27, "notifications that keep up").

The throughput bench's PostgreSQL + Redis set-up (a fresh database, ``arbiter db migrate``,
gunicorn with 4 ``ArbiterWorker`` workers, 16 keep-alive clients playing 64 games of
``bench-tally``: ``bench/bench_throughput.py``, whose helpers this reuses) with one
``arbiter worker`` beside it, the notification process of that set-up.  While the clients play, a
sampler reads every 0.1 s the newest event of the log the process follows (its topics) and the
process's tracking position (``notifications_tracking``), both in the database.  Reported:

- commands/s of the load, and notified events/s the worker processed meanwhile;
- lag in events: how many of the followed events were recorded and not yet processed (the
  median and the most while loaded, and at the end of the load);
- lag in seconds: the age of the oldest event not yet processed (0 when caught up): median,
  most while loaded, and at the end of the load; then how long after the load the worker caught up
  (or, if not within ``DRAIN`` seconds, how many events it still had to go);
- capacity: the worker paused (SIGSTOP) for ``BURST`` seconds of load, then let go: the followed
  events/s it works that backlog off at (for at most ``DRAIN`` seconds).  The load this machine
  lets 16 clients make varies (about 1,000 commands/s on a quiet machine, far less on a busy one);
  the capacity says whether the worker would keep up with more.

The web workers and the players are set up once; then each mode's notification worker runs in
turn, first caught up with the log, then measured under ``BENCH_SECONDS`` of load:
``ARBITER_NOTIFY_REPLAY=1`` (before: each event's game loaded at that event's version from its
snapshot and replayed) and the default (after), side by side in one run.  The bench-tally games'
sides are both one user's, so no "your turn" notice is written: the figures are the derivation's
(every ``Game.Recorded`` is derived), to which a notice only adds a row.

Environment: ``BENCH_SECONDS`` (load time per mode, default 6), ``BENCH_NOTIFY_MODES``
(``cached,replay``), and the throughput bench's ``TEST_POSTGRES_*``, ``BENCH_REDIS_URL``."""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_throughput import (
    BIN,
    PG_HOST,
    PG_PORT,
    PG_USER,
    REDIS_URL,
    ROOT,
    WORKERS,
    Player,
    Wire,
    base_env,
    free_port,
    fresh_database,
    load_average,
    reference_seconds,
    running,
    set_up_players,
)
from service.application.notifications import TOPICS

SAMPLE = 0.1  # seconds between samples
DRAIN = 4.0  # seconds the worker is given after the load to catch up
BURST = 3.0  # seconds of load while the worker is paused, for its capacity
CATCH_UP = 20.0  # seconds a worker is given to catch up with the log before its load
TARGET = 2.0  # seconds (the bound on the lag)
MODES = {"replay": "before: load and replay the game at each event", "cached": "after"}


@dataclass
class Sample:
    at: float  # seconds since the load began
    head: int  # the newest followed event's notification id
    tracked: int  # the process's position
    behind: int  # followed events recorded and not yet processed


@dataclass
class Lag:
    mode: str
    commands: int = 0
    seconds: float = 0.0
    processed: int = 0  # followed events processed while loaded
    samples: list[Sample] = field(default_factory=list)
    drained: float | None = None  # seconds after the load until caught up
    left: int = 0  # followed events still to process when the bench stopped waiting
    backlog: int = 0  # followed events recorded while the worker was paused
    capacity: float = 0.0  # followed events/s the worker processed that backlog at
    backlog_seconds: float = 0.0  # how long it took (at most DRAIN)
    errors: list[str] = field(default_factory=list)


class Sampler:
    """Reads the log's newest followed event and the process's position every ``SAMPLE`` s, from
    :meth:`start` to :meth:`stop` (again for each mode)."""

    def __init__(self, dbname: str) -> None:
        import psycopg

        self.conn = psycopg.connect(
            dbname=dbname, host=PG_HOST, port=PG_PORT, user=PG_USER, autocommit=True
        )
        self.began = time.perf_counter()
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def read(self) -> Sample:
        # the newest event of each followed topic, through the (topic, id) index
        heads = " UNION ALL ".join(
            "(SELECT notification_id FROM arbiter_events WHERE topic = %s "
            "ORDER BY notification_id DESC LIMIT 1)"
            for _ in TOPICS
        )
        head = self.conn.execute(f"SELECT max(notification_id) FROM ({heads}) h", TOPICS)
        tracked = self.conn.execute(
            "SELECT max(notification_id) FROM notifications_tracking WHERE application_name = %s",
            ("arbiter",),
        )
        at = time.perf_counter() - self.began
        newest = int(head.fetchone()[0] or 0)  # type: ignore[index]
        position = int(tracked.fetchone()[0] or 0)  # type: ignore[index]
        return Sample(at, newest, position, self.count(position, newest))

    def count(self, after: int, upto: int) -> int:
        """Followed events with ids in (after, upto]."""
        row = self.conn.execute(
            "SELECT count(*) FROM arbiter_events WHERE notification_id > %s "
            "AND notification_id <= %s AND topic = ANY(%s)",
            (after, upto, list(TOPICS)),
        ).fetchone()
        return int(row[0]) if row else 0

    def caught_up(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = self.read()
            if now.tracked >= now.head:
                return True
            time.sleep(SAMPLE)
        return False

    def start(self) -> None:
        self.began = time.perf_counter()
        self.samples = []
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(self.read())
            self._stop.wait(SAMPLE)

    def stop(self) -> list[Sample]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return self.samples

    def close(self) -> None:
        self.conn.close()


def seconds_behind(samples: list[Sample], upto: int) -> list[float]:
    """For each sample, the age of the oldest followed event not yet processed: the time since the
    first sample that saw an event beyond the position (0 when caught up)."""
    ages = []
    first = 0  # the first sample whose head is beyond the current position
    for sample in samples[:upto]:
        while first < len(samples) and samples[first].head <= sample.tracked:
            first += 1
        if sample.tracked >= sample.head or first >= len(samples):
            ages.append(0.0)
        else:
            ages.append(max(0.0, sample.at - samples[first].at))
    return ages


async def load(players: list[Player], seconds: float, sampler: Sampler) -> tuple[int, float]:
    """Every client plays for ``seconds`` (the sampler runs meanwhile): commands, and seconds."""
    wires = [await Wire.open(p.port, p.token) for p in players]
    try:
        before = sum(p.done for p in players)
        sampler.start()
        began = time.perf_counter()
        await asyncio.gather(
            *(p.play(w, None, began + seconds) for p, w in zip(players, wires, strict=True))
        )
        return sum(p.done for p in players) - before, time.perf_counter() - began
    finally:
        for wire in wires:
            await wire.close()


def notifier(mode: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``arbiter worker``, the old way (``replay``) or the new."""
    env = dict(env)
    if mode == "replay":
        env["ARBITER_NOTIFY_REPLAY"] = "1"
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(BIN / "arbiter"), "worker", "--interval", "0.1"],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=out,
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGCONT)  # a paused worker heeds SIGTERM only once let go
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def booted(log: Path, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait for ``arbiter worker`` to say it runs (its services built, the log followed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the notification worker exited: {log.read_text()[-500:]}")
        if log.exists() and "notification worker" in log.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the notification worker did not start in {timeout:.0f} s")


def measure_mode(
    mode: str,
    env: dict[str, str],
    players: list[Player],
    sampler: Sampler,
    tmp: Path,
    seconds: float,
) -> Lag:
    """One notification worker of ``mode``, caught up with the log first, then under the load;
    then paused (SIGSTOP) while ``BURST`` seconds of load build a backlog, and let go: how fast
    it works a backlog off (its capacity, whatever the load the machine lets the clients make)."""
    lag = Lag(mode)
    log = tmp / f"{mode}-worker.log"
    worker = notifier(mode, env, log)
    try:
        booted(log, worker)
        if not sampler.caught_up(CATCH_UP):
            lag.errors.append(f"the worker did not catch up with the log in {CATCH_UP:.0f} s")
        for p in players:
            p.errors.clear()
        lag.commands, lag.seconds = asyncio.run(load(players, seconds, sampler))
        loaded = len(sampler.samples)
        deadline = time.perf_counter() + DRAIN
        while time.perf_counter() < deadline:
            if sampler.samples and sampler.samples[-1].tracked >= sampler.samples[-1].head:
                break
            time.sleep(SAMPLE)
        samples = sampler.stop()
        last = samples[-1]
        if last.tracked >= last.head:
            lag.drained = last.at - samples[loaded - 1].at
        lag.samples = samples[:loaded]
        lag.processed = sampler.count(samples[0].tracked, samples[loaded - 1].tracked)
        lag.left = last.behind

        worker.send_signal(signal.SIGSTOP)
        asyncio.run(load(players, BURST, sampler))
        sampler.stop()
        before = sampler.read()
        lag.backlog = before.behind
        worker.send_signal(signal.SIGCONT)
        began = time.perf_counter()
        now = before
        while time.perf_counter() - began < DRAIN and now.tracked < now.head:
            time.sleep(0.05)
            now = sampler.read()
        lag.backlog_seconds = time.perf_counter() - began
        lag.capacity = sampler.count(before.tracked, now.tracked) / lag.backlog_seconds
    finally:
        stop(worker)
    lag.errors += [e for p in players for e in p.errors]
    return lag


def run(tmp: Path, modes: list[str], seconds: float) -> list[Lag]:
    """The web workers and the players once; then each mode's notification worker in turn."""
    results = []
    with fresh_database() as dbname:
        env = base_env(tmp)
        env.update(
            ARBITER_STORE="postgres",
            POSTGRES_DBNAME=dbname,
            POSTGRES_HOST=PG_HOST,
            POSTGRES_PORT=PG_PORT,
            POSTGRES_USER=PG_USER,
            REDIS_URL=REDIS_URL,
        )
        env.pop("ARBITER_NOTIFY_REPLAY", None)
        migrate = [str(BIN / "arbiter"), "db", "migrate"]
        subprocess.run(migrate, env=env, cwd=ROOT, check=True, capture_output=True)
        port = free_port()
        command = [
            str(BIN / "gunicorn"),
            "-w",
            str(WORKERS),
            "-k",
            "service.worker.ArbiterWorker",
            "--graceful-timeout",
            "5",
            "-b",
            f"127.0.0.1:{port}",
            "service.asgi:create_asgi()",
        ]
        with running(command, env, port, tmp / "web.log"):
            players = set_up_players(port)
            sampler = Sampler(dbname)
            try:
                for mode in modes:
                    print(f"{mode} ({MODES[mode]}): load average {load_average()}", flush=True)
                    results.append(measure_mode(mode, env, players, sampler, tmp, seconds))
            finally:
                sampler.close()
    return results


def report(lag: Lag, counts: list[int], ages: list[float]) -> None:
    end_events, end_age = counts[-1], ages[-1]
    after = (
        f"caught up {lag.drained:.1f} s after"
        if lag.drained is not None
        else f"{lag.left} to go {DRAIN:.0f} s after"
    )
    print(
        f"{lag.mode:<7} {lag.commands / lag.seconds:5.0f} cmd/s  worker "
        f"{lag.processed / lag.seconds:5.0f} ev/s  lag events p50 {statistics.median(counts):5.0f} "
        f"max {max(counts):5d} end {end_events:5d}  lag s p50 {statistics.median(ages):4.1f} "
        f"max {max(ages):4.1f} end {end_age:4.1f}  {after}  capacity {lag.capacity:6.0f} ev/s "
        f"({lag.backlog} in {lag.backlog_seconds:.1f} s)"
    )


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "6"))
    modes = [m.strip() for m in os.environ.get("BENCH_NOTIFY_MODES", "cached,replay").split(",")]
    print(f"machine reference (5M additions, median of 5): {reference_seconds():.2f} s")
    print(
        f"PostgreSQL + Redis, {WORKERS} web workers and one `arbiter worker`; 16 clients, 64 "
        f"games of bench-tally, {seconds:.0f} s of load per mode; lag target < {TARGET:.0f} s"
    )
    results: dict[str, tuple[Lag, list[int], list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lag in run(Path(tmp), modes, seconds):
            if not lag.samples:
                raise RuntimeError(f"{lag.mode}: no sample taken")
            counts = [s.behind for s in lag.samples]
            results[lag.mode] = (lag, counts, seconds_behind(lag.samples, len(lag.samples)))
    print("(lag events: followed events recorded and not yet processed; lag s: the age of the")
    print(" oldest of them; both sampled every 0.1 s while loaded)")
    for lag, counts, ages in results.values():
        report(lag, counts, ages)
        for error in lag.errors[:3]:
            print(f"   error: {error}")
    if "replay" in results and "cached" in results:
        old, new = results["replay"][0], results["cached"][0]
        most = max(results["cached"][2])
        print(
            f"capacity after/before: {new.capacity / max(old.capacity, 0.01):.0f}x; "
            f"max lag after: {most:.1f} s (target < {TARGET:.0f} s: "
            f"{'met' if most < TARGET else 'MISSED'} at {new.commands / new.seconds:.0f} cmd/s)"
        )
