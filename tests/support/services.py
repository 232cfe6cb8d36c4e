"""The real PostgreSQL and Redis of this machine, for integration tests.

Locally a missing service skips its tests with the reason; with CI=true it fails the run."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import pytest

PG = {
    "host": os.environ.get("TEST_POSTGRES_HOST", "127.0.0.1"),
    "port": int(os.environ.get("TEST_POSTGRES_PORT", "5432")),
    "user": os.environ.get("TEST_POSTGRES_USER", "postgres"),
}


def _test_redis_url() -> str:
    """Database 15, or under pytest-xdist one database per worker (gw0 15, gw1 14, ...): each
    worker flushes its own."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    database = 15 - int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 15
    if not 1 <= database <= 15:
        raise RuntimeError(f"Redis has 16 databases: no test database for xdist worker {worker}")
    return os.environ.get("TEST_REDIS_URL", f"redis://127.0.0.1:6379/{database}")


REDIS_URL = _test_redis_url()


def _missing(what: str, exc: Exception) -> None:
    message = f"{what} is not reachable: {exc}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message} (CI=true: a missing service fails the run)", pytrace=False)
    pytest.skip(message)


def _pg_connect(dbname: str = "postgres"):  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(dbname=dbname, autocommit=True, connect_timeout=10, **PG)


@contextlib.contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty database for one test; dropped afterwards."""
    try:
        admin = _pg_connect()
    except Exception as exc:  # noqa: BLE001 - any failure to connect means "not reachable"
        _missing("PostgreSQL on 127.0.0.1:5432", exc)
    name = f"arbiter_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with _pg_connect() as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


def redis_url() -> str:
    """The test Redis (database 15, or the xdist worker's), flushed; skips or fails when Redis is not there."""
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=2)
        client.ping()
        client.flushdb()
    except Exception as exc:  # noqa: BLE001
        _missing("Redis on 127.0.0.1:6379", exc)
    return REDIS_URL
