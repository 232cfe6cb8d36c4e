"""Free-running races of commands against a running server, as players' clients make them: each
client reads a game's version and sends a command decided on it, again and again, with no pacing.
Optimistic concurrency promises that of every command sent at one version at most one is stored
(the rest answer 409) and that the server's own log always passes its audit.

One player holds both sides of a skirmish (tests.fixtures.skirmish), so ``end_phase`` is legal at
every version; when a game ends the client that sees it starts the next one.  Run it by hand for the
figures of many runs::

    .venv/bin/python -m tests.support.races --runs 20 --seconds 10            # arbiter serve, SQLite
    .venv/bin/python -m tests.support.races --runs 20 --seconds 10 --postgres # gunicorn -w 4, Redis
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.kb import seed_index

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
PASSWORD = "race-password-long"
GAME = {"system": "skirmish", "scenario": "meeting", "options": {"turns": 8}}
END = {"type": "end_phase"}


@dataclass
class Race:
    """What a race's clients were answered: ``(game, expected_version, status)`` per command, the
    statuses of their reads, and every game played."""

    answers: list[tuple[str, int, int]] = field(default_factory=list)
    reads: Counter[int] = field(default_factory=Counter)
    games: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def stored_twice(self) -> dict[tuple[str, int], int]:
        """Versions at which more than one command was acknowledged (a lost update)."""
        acked = Counter((g, v) for g, v, status in self.answers if 200 <= status < 300)
        return {key: n for key, n in acked.items() if n > 1}

    def server_errors(self) -> Counter[int]:
        statuses = Counter(status for _, _, status in self.answers) + self.reads
        return Counter({s: n for s, n in statuses.items() if s >= 500})

    def summary(self) -> dict[str, Any]:
        statuses = Counter(status for _, _, status in self.answers)
        return {
            "commands": len(self.answers),
            "stored": sum(n for s, n in statuses.items() if 200 <= s < 300),
            "refused_409": statuses.get(409, 0),
            "reads": sum(self.reads.values()),
            "server_errors": dict(self.server_errors()),
            "stored_twice": len(self.stored_twice()),
            "games": len(self.games),
        }


class Client:
    """One keep-alive connection with a bearer token."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        payload = None if body is None else json.dumps(body)
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=payload, headers=self.headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt == 2:
                    raise
        try:
            return response.status, json.loads(data) if data else None
        except ValueError:
            return response.status, data.decode("utf-8", "replace")

    def close(self) -> None:
        self.conn.close()


def token(port: int, username: str) -> str:
    status, body = Client(port, "-").call(
        "POST", "/api/tokens", {"username": username, "password": PASSWORD}
    )
    assert status == 201, (status, body)
    return str(body["token"])


def new_game(client: Client, username: str) -> str:
    status, body = client.call(
        "POST", "/api/games", dict(GAME, sides={"red": username, "blue": username})
    )
    assert status == 201 and body["status"] == "active", (status, body)
    return str(body["id"])


def race(
    port: int, username: str, *, seconds: float, clients: int = 8, until_stored: int = 0
) -> Race:
    """``clients`` threads, each reading the current game's version and sending ``end_phase`` at it
    for ``seconds`` (or, with ``until_stored``, until that many commands were stored, at most six
    times as long: on a loaded machine a race of a fixed time stores fewer); a client that finds
    the game ended starts the next."""
    result = Race()
    bearer = token(port, username)
    lock = threading.Lock()
    result.games.append(new_game(Client(port, bearer), username))
    started = time.monotonic()
    deadline = started + (seconds * 6 if until_stored else seconds)
    stored = [0]  # commands answered 2xx so far, counted as the answers come

    def going() -> bool:
        now = time.monotonic()
        if now >= deadline:
            return False
        return not until_stored or now < started + seconds or stored[0] < until_stored

    def next_game(client: Client, ended: str) -> None:
        with lock:
            if result.games[-1] == ended:
                result.games.append(new_game(client, username))

    def run() -> None:
        client = Client(port, bearer)
        try:
            while going():
                game = result.games[-1]
                status, body = client.call("GET", f"/api/games/{game}")
                with lock:
                    result.reads[status] += 1
                if status != 200:
                    continue
                if body["status"] != "active":
                    next_game(client, game)
                    continue
                version = int(body["version"])
                status, _ = client.call(
                    "POST",
                    f"/api/games/{game}/commands",
                    {"expected_version": version, "command": END},
                )
                with lock:
                    result.answers.append((game, version, status))
                    stored[0] += 200 <= status < 300
        except Exception as exc:  # noqa: BLE001 - reported by the caller
            with lock:
                result.errors.append(repr(exc))
        finally:
            client.close()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(deadline - time.monotonic() + 60)
    return result


def arbiter(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "arbiter"), *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )


def wait_for(port: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: {proc.stderr.read() if proc.stderr else ''}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        time.sleep(0.1)
    raise RuntimeError("the server did not answer /healthz")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def on_postgres(env: dict[str, str], dbname: str) -> dict[str, str]:
    """``env`` for the README's PostgreSQL recipe on database ``dbname``, with Redis."""
    from tests.support.services import PG, redis_url

    return dict(
        env,
        ARBITER_STORE="postgres",
        POSTGRES_DBNAME=dbname,
        POSTGRES_HOST=PG["host"],
        POSTGRES_PORT=str(PG["port"]),
        POSTGRES_USER=PG["user"],
        REDIS_URL=redis_url(),
    )


def base_env(var: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ARBITER_VAR=str(var),
        ARBITER_PLUGINS="tests.fixtures.skirmish",
        ARBITER_SECRET_KEY="race-secret",
        ARBITER_STORE="sqlite",
    )
    env.pop("REDIS_URL", None)
    return env


@contextlib.contextmanager
def server(env: dict[str, str], *, workers: int = 0) -> Iterator[int]:
    """``arbiter serve`` (``workers=0``) or the README's gunicorn recipe with ``workers``, on a free
    port; migrated first, with a user ``racer``; stopped (its process group killed) after."""
    port = free_port()
    seed_index(env["ARBITER_VAR"])
    assert arbiter(env, "db", "migrate").returncode == 0
    added = arbiter(env, "users", "add", "racer", "--password", PASSWORD)
    assert added.returncode == 0, added.stderr
    if workers:
        command = [str(BIN / "gunicorn"), "-w", str(workers), "-k", "service.worker.ArbiterWorker"]
        command += ["--graceful-timeout", "5", "-b", f"127.0.0.1:{port}"]
        command += ["service.asgi:create_asgi()"]
    else:
        command = [str(BIN / "arbiter"), "serve", "--port", str(port)]
    proc = subprocess.Popen(
        command,
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for(port, proc)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.communicate(timeout=30)


def audit_all(env: dict[str, str]) -> dict[str, Any]:
    """``arbiter audit verify --all`` over the server's store."""
    done = arbiter(env, "audit", "verify", "--all")
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        report = {"ok": False, "output": done.stdout, "stderr": done.stderr}
    report["exit"] = done.returncode
    return report


def one_run(
    env: dict[str, str], *, workers: int, seconds: float, until_stored: int = 0
) -> dict[str, Any]:
    with server(env, workers=workers) as port:
        result = race(port, "racer", seconds=seconds, until_stored=until_stored)
    audit = audit_all(env)
    failed = [g for g in audit.get("failed", [])]
    return dict(result.summary(), errors=result.errors, audit_ok=audit.get("ok"), failed=failed)


def main() -> None:  # pragma: no cover - the by-hand runner
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    passed = 0
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory() as tmp:
            env = base_env(Path(tmp) / "var")
            if args.postgres:
                from tests.support.services import postgres_database

                with postgres_database() as dbname:
                    outcome = one_run(on_postgres(env, dbname), workers=4, seconds=args.seconds)
            else:
                outcome = one_run(env, workers=0, seconds=args.seconds)
        good = (
            outcome["audit_ok"]
            and not outcome["server_errors"]
            and not outcome["stored_twice"]
            and not outcome["errors"]
        )
        passed += bool(good)
        print(f"run {run}: {'pass' if good else 'FAIL'} {json.dumps(outcome)}", flush=True)
    print(f"{passed} of {args.runs} runs passed", flush=True)


if __name__ == "__main__":  # pragma: no cover
    main()
