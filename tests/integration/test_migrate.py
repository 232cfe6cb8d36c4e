"""Schema set-up once (issue 14, item 2): `arbiter db migrate` makes the tables, idempotently, on
SQLite and PostgreSQL; workers never make them, and refuse to start without them; the README's
multi-worker recipe boots every time, each time on a fresh PostgreSQL database (``make test`` boots
it 3 times; ``make fuzz`` 20 times, ``ARBITER_MIGRATE_BOOTS``)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from service.application.schema import SchemaMissing
from service.bootstrap import build_services, migrate
from service.config import Config
from tests.support.services import PG, postgres_database
from tests.support.tcp_proxy import free_port

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow("the README's multi-worker recipe booted on fresh PostgreSQL databases"),
]

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
WORKERS = 4


def pg_env(tmp_path: Path, dbname: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        ARBITER_STORE="postgres",
        POSTGRES_DBNAME=dbname,
        POSTGRES_HOST=PG["host"],
        POSTGRES_PORT=str(PG["port"]),
        POSTGRES_USER=PG["user"],
        ARBITER_VAR=str(tmp_path / "var"),
        ARBITER_SECRET_KEY="migrate-test",
        ARBITER_PLUGINS="tests.fixtures.skirmish",
    )
    env.pop("REDIS_URL", None)
    return env


def arbiter(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "arbiter"), *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=60
    )


def gunicorn(env: dict[str, str], port: int, workers: int = WORKERS) -> subprocess.Popen[str]:
    """The README's multi-worker command (on 127.0.0.1 and a free port)."""
    return subprocess.Popen(
        [str(BIN / "gunicorn"), "-w", str(workers), "-k", "service.worker.ArbiterWorker"]
        + ["--graceful-timeout", "5", "-b", f"127.0.0.1:{port}", "service.asgi:create_asgi()"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, for stop()
    )


def stop(proc: subprocess.Popen[str]) -> str:
    """Kill gunicorn and its workers (its own process group) and return what it logged."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate(timeout=20)
    return err or ""


def health_pid(port: int) -> int | None:
    """The pid of the worker that answers ``/healthz`` on a connection of its own, closed after
    (so that no connection is left open to count against a worker)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        return int(json.loads(response.read())["worker"]["pid"]) if response.status == 200 else None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def all_workers_answer(proc: subprocess.Popen[str], port: int, timeout: float = 40) -> set[int]:
    """Poll /healthz on fresh connections until every worker has answered (or gunicorn stopped)."""
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < WORKERS and time.monotonic() < deadline and proc.poll() is None:
        pid = health_pid(port)
        if pid is None:
            time.sleep(0.05)
        else:
            seen.add(pid)
    return seen


def test_migrate_is_idempotent_on_sqlite(tmp_path: Path) -> None:
    env = dict(os.environ, ARBITER_STORE="sqlite", ARBITER_VAR=str(tmp_path / "var"))
    for _ in range(2):
        done = arbiter(env, "db", "migrate")
        assert done.returncode == 0, done.stderr
        assert "store ready (sqlite): stored_events, stored_snapshots" in done.stdout


def test_migrate_is_idempotent_on_postgres_and_concurrent_runs_take_turns(tmp_path: Path) -> None:
    with postgres_database() as dbname:
        env = pg_env(tmp_path, dbname)
        runs: list[subprocess.CompletedProcess[str]] = []
        threads = [
            threading.Thread(target=lambda: runs.append(arbiter(env, "db", "migrate")))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [r.returncode for r in runs] == [0] * 4, [r.stderr for r in runs]
        again = arbiter(env, "db", "migrate")
        assert again.returncode == 0, again.stderr
        assert "arbiter_events, arbiter_snapshots" in again.stdout


def test_a_worker_without_tables_stops_naming_arbiter_db_migrate(tmp_path: Path) -> None:
    with postgres_database() as dbname:
        config = Config(
            store="postgres",
            var_dir=tmp_path / "var",
            postgres_dbname=dbname,
            postgres_host=PG["host"],
            postgres_port=PG["port"],
            postgres_user=PG["user"],
        )
        with pytest.raises(SchemaMissing, match="run `arbiter db migrate`"):
            build_services(config)
        proc = gunicorn(pg_env(tmp_path, dbname), free_port(), workers=2)
        proc.wait(timeout=60)  # gunicorn halts when a worker fails to boot
        err = stop(proc)
        assert proc.returncode != 0
        assert "run `arbiter db migrate` once before starting the workers" in err
        migrate(config)  # and with the tables, the same worker starts
        build_services(config).close()


#: boots of the recipe: each one about 10 s of two cores; ``make fuzz`` runs 20
BOOTS = int(os.environ.get("ARBITER_MIGRATE_BOOTS", "3"))


def test_the_readme_multi_worker_recipe_boots_every_time(tmp_path: Path) -> None:
    booted, failures = 0, []
    started = time.monotonic()
    for attempt in range(BOOTS):
        with postgres_database() as dbname:
            env = pg_env(tmp_path, dbname)
            migrate(Config.from_env(env))  # what `arbiter db migrate` runs (tested above)
            port = free_port()
            proc = gunicorn(env, port)
            try:
                seen = all_workers_answer(proc, port)
                alive = proc.poll() is None
            finally:
                err = stop(proc)
            if len(seen) == WORKERS and alive:
                booted += 1
            else:
                failures.append(f"boot {attempt}: {len(seen)} workers answered\n{err[-2000:]}")
    took = time.monotonic() - started
    print(f"{BOOTS} boots of gunicorn -w {WORKERS} on fresh databases in {took:.0f}s")
    assert booted == BOOTS, "\n".join(failures)
