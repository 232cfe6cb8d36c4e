"""Command throughput under concurrent load: the README's PostgreSQL + Redis set-up with 4 workers
(``arbiter db migrate``, then gunicorn with 4 ``service.worker.ArbiterWorker`` workers on
``service.asgi:create_asgi()``) on a fresh PostgreSQL database made and dropped here, and beside it
the SQLite single-process default (``arbiter serve``), in the same run.  16 clients (each with one
keep-alive connection, all on one asyncio loop: :class:`Wire`) play 64 games (4 each, in turn)
for a fixed time; reported: commands/s, p50 and p99 latency, server CPU per command, and the
PostgreSQL/SQLite ratios; and a command's whole CPU on this machine -- the server's, PostgreSQL's
and Redis's processes', the client's -- with the rate that caps on its cores (the bench is
CPU-bound: the measured rate sits near that cap).  Targets (issue 52), with PostgreSQL + 4 workers: >= 1,000 commands/s
with p99 < 30 ms, and <= 1.5 ms of server CPU a command at a 0.14 s machine reference (scaled by
the run's own reference).

The games are of ``bench-tally`` (``bench/systems.py``, loaded with ``ARBITER_PLUGINS``), whose
rules cost next to nothing, so the figures measure the server (HTTP, auth, the input gate, the
aggregate cache, the hash chain, the append, the publish) rather than a game's rules.  Each
command is still taken from the game's own ``GET /api/games/<id>/actions`` (the one action
vocabulary): the tally offers the same actions in every state, so one read per game is enough and
the load is commands only.

The machine's own speed varies between sessions (the same code measured 2.5x apart), so the run
starts and ends with a reference figure: a fixed pure-Python loop's time on this machine now.
Compare throughputs across runs with it beside them, and server CPU per command most of all.

Environment: ``BENCH_SECONDS`` (measured time per set-up, default 15), ``BENCH_CLIENTS`` (16),
``BENCH_SETUPS``
(``sqlite,postgres`` by default), ``TEST_POSTGRES_HOST``/``PORT``/``USER`` and ``BENCH_REDIS_URL``
(default ``redis://127.0.0.1:6379/13``, the bench's own: emptied before the PostgreSQL set-up starts)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "16"))
GAMES = 64
WORKERS = 4
WARMUP_COMMANDS = 3  # per game, before the clock starts (fills each worker's aggregate cache)
# issue 52's targets, with PostgreSQL + 4 workers: 1,000 commands/s with p99 under 30 ms, and at
# most 1.5 ms of server CPU a command on a machine whose reference (below) is 0.14 s
TARGET_RATE = 1000.0
TARGET_P99 = 0.030
TARGET_CPU = 0.0015
REFERENCE_SECONDS = 0.14
PG_HOST = os.environ.get("TEST_POSTGRES_HOST", "127.0.0.1")
PG_PORT = os.environ.get("TEST_POSTGRES_PORT", "5432")
PG_USER = os.environ.get("TEST_POSTGRES_USER", "postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
PASSWORD = "benchmark-password"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def reference_seconds(runs: int = 5) -> float:
    """The machine's speed now: the median of ``runs`` runs of a fixed pure-Python loop (5 million
    additions; 0.19 s at best here, 0.85 s seen minutes later on the same machine).  The test
    suite's time budget reads it too (``tests/support/budget.py``)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        total = 0
        for i in range(5_000_000):
            total += i
        times.append(time.perf_counter() - started)
    return sorted(times)[runs // 2]


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _stat(path: Path) -> tuple[str, float]:
    """A process's name and CPU seconds (user + system) from its ``/proc/<pid>/stat``."""
    stat = path.read_text()
    fields = stat.rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return stat[stat.index("(") + 1 : stat.rindex(")")], (int(fields[11]) + int(fields[12])) / tick


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of ``pid`` and its children now alive (Linux ``/proc``; 0 elsewhere):
    the server's cost per command, a figure the machine's other load barely moves."""
    pids = [pid]
    with contextlib.suppress(OSError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    total = 0.0
    for each in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += _stat(Path(f"/proc/{each}/stat"))[1]
    return total


#: the services beside the server whose CPU a command also costs (by process name in ``/proc``)
SERVICES = ("postgres", "redis-server")


def services_seconds() -> float:
    """CPU time (user + system) of every PostgreSQL and Redis process now alive (Linux ``/proc``;
    0 elsewhere): what a command costs beside the server, measured as the server's is."""
    total = 0.0
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            name, seconds = _stat(entry / "stat")
            if name.startswith(SERVICES):
                total += seconds
    return total


# -- the client ------------------------------------------------------------------------------------
class Client:
    """One keep-alive HTTP/1.1 connection of the standard library's, for setting up (users, games,
    their actions) and waiting for the server; the measured commands go through :class:`Wire`."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers=self.headers)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None

    def expect(self, status: int, method: str, path: str, body: Any = None) -> Any:
        got, out = self.call(method, path, body)
        if got != status:
            raise RuntimeError(f"{method} {path}: {got} {out}")
        return out

    def close(self) -> None:
        self.conn.close()


class Wire:
    """One keep-alive HTTP/1.1 connection for the measured commands, on asyncio: the request's
    head is made once per connection and the answer read by its ``Content-Length``, so that the
    16 clients share one thread and take as little as they can of the CPU the server needs (the
    standard library's client in 16 threads took 0.4 ms of CPU per command, a tenth of what the
    server took)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str):
        self.reader = reader
        self.writer = writer
        self.head = head

    @classmethod
    async def open(cls, port: int, token: str) -> Wire:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = (
            f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n"
        )
        return cls(reader, writer, head)

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        request = f"POST {path} HTTP/1.1\r\n{self.head}Content-Length: {len(data)}\r\n\r\n"
        self.writer.write(request.encode() + data)
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status = int(head.split(" ", 2)[1])
        length = None
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if length is None:
            raise RuntimeError(f"POST {path}: {status} without a Content-Length")
        raw = await self.reader.readexactly(length)
        return status, json.loads(raw) if raw else None

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


@dataclass
class Player:
    """One client: its user, its games (id -> version) and the commands it takes in turn."""

    port: int
    token: str
    games: dict[str, int]
    commands: list[dict[str, Any]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    done: int = 0

    async def play(self, wire: Wire, count: int | None, until: float | None) -> None:
        """``count`` commands (the warm-up), or as many as fit before ``until``, each timed."""
        ids = list(self.games)
        target = None if count is None else self.done + count
        try:
            while (target is None or self.done < target) and (
                until is None or time.perf_counter() < until
            ):
                game = ids[self.done % len(ids)]
                body = {
                    "expected_version": self.games[game],
                    "side": "a",
                    "command": self.commands[self.done % len(self.commands)],
                }
                started = time.perf_counter()
                status, out = await wire.post(f"/api/games/{game}/commands", body)
                if status != 201:
                    raise RuntimeError(f"POST /api/games/{game}/commands: {status} {out}")
                if until is not None:
                    self.latencies.append(time.perf_counter() - started)
                self.games[game] = out["version"]
                self.done += 1
        except Exception as exc:  # noqa: BLE001 - reported beside the figures
            self.errors.append(repr(exc))


def legal_commands(client: Client, game: str) -> list[dict[str, Any]]:
    """The commands the game's actions offer side a (each template with its first choices)."""
    actions = client.expect(200, "GET", f"/api/games/{game}/actions?side=a")
    commands = []
    for template in actions["actions"]:
        command = {"type": template["type"], **template["fixed"]}
        for name, choice in template["choose"].items():
            options = choice.get("one_of") or choice.get("some_of")
            command[name] = options[0] if "one_of" in choice else options[: choice.get("min", 1)]
        commands.append(command)
    if not commands:
        raise RuntimeError(f"game {game} offers side a no action")
    return commands


def set_up_players(port: int) -> list[Player]:
    """A user per client (signed in once), and its share of the games, each with its actions."""
    players = []
    anonymous = Client(port)
    try:
        for i in range(CLIENTS):
            name = f"bench{i:02d}"
            anonymous.expect(201, "POST", "/api/users", {"username": name, "password": PASSWORD})
            token = anonymous.expect(
                201, "POST", "/api/tokens", {"username": name, "password": PASSWORD}
            )["token"]
            client = Client(port, token)
            games = {}
            for _ in range(GAMES // CLIENTS):
                created = client.expect(
                    201,
                    "POST",
                    "/api/games",
                    {"system": "bench-tally", "scenario": "race", "sides": {"a": name, "b": name}},
                )
                games[created["id"]] = created["version"]
            commands = legal_commands(client, next(iter(games)))
            client.close()
            players.append(Player(port, token, games, commands))
    finally:
        anonymous.close()
    return players


@dataclass
class Figures:
    setup: str
    commands: int
    seconds: float
    p50: float
    p99: float
    load: str
    errors: list[str]
    server_cpu: float = 0.0  # seconds of the server's processes while measured
    services_cpu: float = 0.0  # of PostgreSQL's and Redis's processes (SQLite: Redis alone, idle)
    client_cpu: float = 0.0  # of this process, the 16 clients' one loop

    @property
    def rate(self) -> float:
        return self.commands / self.seconds

    def line(self) -> str:
        return (
            f"{self.setup:<28} {self.rate:8.0f} cmd/s   p50 {self.p50 * 1000:6.1f} ms   "
            f"p99 {self.p99 * 1000:6.1f} ms   server CPU {self.server_cpu / self.commands * 1000:.2f} "
            f"ms/cmd   ({self.commands} commands in {self.seconds:.1f} s; load average {self.load})"
        )

    def whole(self) -> str:
        """The whole CPU a command costs on this machine (server, the services, the client) and
        the rate that caps on its cores: the bench is CPU-bound when the two are near."""
        per = [
            x / self.commands * 1000 for x in (self.server_cpu, self.services_cpu, self.client_cpu)
        ]
        cores = os.cpu_count() or 1
        return (
            f"{'':<28} a command's CPU: server {per[0]:.2f} + PostgreSQL and Redis {per[1]:.2f} + "
            f"client {per[2]:.2f} = {sum(per):.2f} ms: at most {cores * 1000 / sum(per):.0f} cmd/s "
            f"on {cores} cores"
        )


def drive(setup: str, port: int, seconds: float, server: int) -> Figures:
    """Set up the players, warm up, then run every client for ``seconds`` (``server``: its pid)."""
    players = set_up_players(port)
    return asyncio.run(measure(setup, players, seconds, server))


async def measure(setup: str, players: list[Player], seconds: float, server: int) -> Figures:
    wires = [await Wire.open(p.port, p.token) for p in players]
    try:
        await asyncio.gather(
            *(
                p.play(w, WARMUP_COMMANDS * len(p.games), None)
                for p, w in zip(players, wires, strict=True)
            )
        )
        services, client = services_seconds(), time.process_time()
        began, cpu = time.perf_counter(), cpu_seconds(server)
        await asyncio.gather(
            *(p.play(w, None, began + seconds) for p, w in zip(players, wires, strict=True))
        )
        elapsed, cpu = time.perf_counter() - began, cpu_seconds(server) - cpu
        services, client = services_seconds() - services, time.process_time() - client
    finally:
        for wire in wires:
            await wire.close()
    latencies = [x for p in players for x in p.latencies]
    errors = [e for p in players for e in p.errors]
    if not latencies:
        raise RuntimeError(f"{setup}: no command completed: {errors[:3]}")
    return Figures(
        setup,
        len(latencies),
        elapsed,
        percentile(latencies, 50),
        percentile(latencies, 99),
        load_average(),
        errors,
        cpu,
        services,
        client,
    )


# -- the servers -----------------------------------------------------------------------------------
def wait_healthy(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            client = Client(port)
            status, _ = client.call("GET", "/healthz")
            client.close()
            if status == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer /healthz within {timeout:.0f} s")


@contextlib.contextmanager
def running(command: list[str], env: dict[str, str], port: int, log: Path) -> Iterator[int]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=out, stderr=out)
        try:
            wait_healthy(port, process)
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def base_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("POSTGRES_", "ARBITER_")) or name == "REDIS_URL":
            del env[name]
    env.update(
        ARBITER_VAR=str(tmp / "var"),
        ARBITER_KEYS=str(tmp / "keys"),
        ARBITER_PLUGINS="bench.systems",
        ARBITER_SECRET_KEY=secrets.token_hex(32),
        ARBITER_SIGNUPS_PER_HOUR=str(CLIENTS + 10),  # every client signs up from 127.0.0.1
    )
    return env


def run_sqlite(tmp: Path, seconds: float) -> Figures:
    env = base_env(tmp / "sqlite")
    env["ARBITER_STORE"] = "sqlite"
    port = free_port()
    command = [str(BIN / "arbiter"), "serve", "--port", str(port)]
    with running(command, env, port, tmp / "sqlite.log") as server:
        return drive("SQLite, arbiter serve", port, seconds, server)


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    """A new PostgreSQL database for this run, dropped afterwards."""
    import psycopg

    def admin() -> psycopg.Connection[Any]:
        return psycopg.connect(
            dbname="postgres",
            host=PG_HOST,
            port=PG_PORT,
            user=PG_USER,
            autocommit=True,
            connect_timeout=3,
        )

    name = f"arbiter_bench_{uuid.uuid4().hex[:12]}"
    with admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with admin() as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def run_postgres(tmp: Path, seconds: float) -> Figures:
    with fresh_database() as dbname:
        env = base_env(tmp / "postgres")
        env.update(
            ARBITER_STORE="postgres",
            POSTGRES_DBNAME=dbname,
            POSTGRES_HOST=PG_HOST,
            POSTGRES_PORT=PG_PORT,
            POSTGRES_USER=PG_USER,
            REDIS_URL=REDIS_URL,
        )
        subprocess.run(
            [str(BIN / "arbiter"), "db", "migrate"],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        # the bench's own Redis database, emptied: the site-wide sign-up throttle counts there,
        # and a second run within the hour would be refused its clients' sign-ups
        redis.Redis.from_url(REDIS_URL).flushdb()
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
        with running(command, env, port, tmp / "postgres.log") as server:
            return drive(f"PostgreSQL + Redis, {WORKERS} workers", port, seconds, server)


RUNS = {"sqlite": run_sqlite, "postgres": run_postgres}


def report(results: dict[str, Figures], reference: float) -> None:
    print(f"{CLIENTS} clients, {GAMES} games of bench-tally, one command per request (keep-alive)")
    for figures in results.values():
        print(figures.line())
        print(figures.whole())
        for error in figures.errors[:3]:
            print(f"   error: {error}")
    pg, lite = results.get("postgres"), results.get("sqlite")
    if pg and lite:
        print(
            f"PostgreSQL/SQLite: throughput {pg.rate / lite.rate:.2f}x   "
            f"p50 {pg.p50 / lite.p50:.2f}x   p99 {pg.p99 / lite.p99:.2f}x"
        )
    if pg:
        met = pg.rate >= TARGET_RATE and pg.p99 < TARGET_P99
        print(
            f"target >= {TARGET_RATE:.0f} cmd/s and p99 < {TARGET_P99 * 1000:.0f} ms with "
            f"PostgreSQL + {WORKERS} workers: {'met' if met else 'MISSED'} "
            f"({pg.rate / TARGET_RATE:.2f}x of the rate, p99 {pg.p99 / TARGET_P99:.2f}x of its bound)"
        )
        # the CPU bound is for a machine whose reference is REFERENCE_SECONDS: scaled to this one's
        bound = TARGET_CPU * reference / REFERENCE_SECONDS
        cpu = pg.server_cpu / pg.commands
        print(
            f"target server CPU <= {TARGET_CPU * 1000:.1f} ms/cmd at a {REFERENCE_SECONDS:.2f} s "
            f"reference ({bound * 1000:.2f} ms at this run's {reference:.2f} s): "
            f"{'met' if cpu <= bound else 'MISSED'} ({cpu / bound:.2f}x of its bound)"
        )


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "15"))
    setups = [s.strip() for s in os.environ.get("BENCH_SETUPS", "sqlite,postgres").split(",")]
    results: dict[str, Figures] = {}
    before = reference_seconds()
    print(f"machine reference (5M additions, median of 5): {before:.2f} s", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for setup in setups:
            print(f"{setup}: running ({seconds:.0f} s; load average {load_average()})", flush=True)
            results[setup] = RUNS[setup](Path(tmp), seconds)
    report(results, before)
    print(f"machine reference after the runs: {reference_seconds():.2f} s (before: {before:.2f} s)")
    failures = [e for f in results.values() for e in f.errors]
    if failures:
        raise RuntimeError(f"{len(failures)} client(s) failed: {failures[0]}")


if __name__ == "__main__":
    main()
