"""Workers share connections evenly (issue 14, throughput): a burst of keep-alive clients on the
README's multi-worker recipe lands 4, 4, 4, 4 on its 4 workers, or within one of it.  With
uvicorn's own worker the same burst was seen at 7, 4, 4, 1 and 7, 5, 2, 2 (asyncio accepts every
waiting connection when a worker wakes), and the clients of the crowded worker waited several times
as long.

Within one: a loaded worker leaves a waiting connection to a less loaded one for at most
``service.worker.PATIENCE`` (50 ms), then takes it itself -- by design, so that a connection never
waits long when the others are busy.  On a busy two-core machine the less loaded worker was seen
not to be scheduled within that time once in a full run (3, 4, 4, 5); 7, 4, 4, 1 is still refused."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from service.bootstrap import migrate
from service.config import Config
from service.worker import REFRESH
from tests.integration.test_migrate import WORKERS, all_workers_answer, gunicorn, pg_env, stop
from tests.support.services import postgres_database
from tests.support.tcp_proxy import free_port

#: a balance measured under a burst: run with nothing else on the machine (tests/parallel.py)
pytestmark = [pytest.mark.postgres, pytest.mark.alone]

CLIENTS = 16


def burst(port: int) -> Counter[int]:
    """``CLIENTS`` connections opened at once, each kept open for two requests: which worker
    (pid) served each connection."""
    start = threading.Barrier(CLIENTS)
    done = threading.Barrier(CLIENTS)
    served: list[int] = []
    errors: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            start.wait(timeout=20)
            pids = set()
            for _ in range(2):  # the same keep-alive connection, so the same worker
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                pids.add(json.loads(response.read())["worker"]["pid"])
            if len(pids) != 1:
                errors.append(f"one connection served by {pids}")
            served.extend(pids)
            done.wait(timeout=20)  # every connection open at once until all are counted
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(repr(exc))
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return Counter(served)


def test_a_burst_of_keep_alive_clients_is_shared_evenly_by_the_workers(tmp_path: Path) -> None:
    with postgres_database() as dbname:
        env = pg_env(tmp_path, dbname)
        migrate(Config.from_env(env))
        port = free_port()
        proc = gunicorn(env, port)
        try:
            assert len(all_workers_answer(proc, port)) == WORKERS
            for _ in range(2):
                time.sleep(3 * REFRESH)  # earlier connections closed and counted as closed
                spread = burst(port)
                assert len(spread) == WORKERS, spread
                even = CLIENTS // WORKERS
                assert all(abs(n - even) <= 1 for n in spread.values()), spread
        finally:
            stop(proc)
