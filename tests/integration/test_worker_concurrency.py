"""Two notification workers at once on one PostgreSQL store: each event is recorded once (the
tracking row), each delivery is claimed by one worker and sent once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from uuid import UUID

import pytest

from service.bootstrap import build_services, build_worker, migrate
from service.config import Config
from tests.support.receivers import HookReceiver, SmtpReceiver
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.postgres

N = 60


def test_two_workers_share_the_log_and_send_each_delivery_once(tmp_path: Path) -> None:
    with postgres_database() as dbname, SmtpReceiver() as smtp, HookReceiver() as hooks:
        env = {
            "ARBITER_STORE": "postgres",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": PG["host"],
            "POSTGRES_PORT": str(PG["port"]),
            "POSTGRES_USER": PG["user"],
            "ARBITER_VAR": str(tmp_path / "var"),
            "ARBITER_SECRET_KEY": "two-workers",
            "ARBITER_PLUGINS": "tests.fixtures.skirmish",
            "ARBITER_SMTP_URL": smtp.url,
            "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
        }
        config = Config.from_env(env)
        migrate(config)
        stacks = [build_services(config), build_services(config)]
        try:
            svc = stacks[0]
            bob = svc.users.register("bob", "bob-password", "bob@example.org")
            alice = svc.users.register("alice", "alice-password")
            hook, secret = svc.notifications.register_webhook(
                "user", str(bob.id), str(bob.id), hooks.url("/bob"), "t" * 24, []
            )
            hooks.secrets["/bob"] = secret
            for _ in range(N):
                svc.games.create(
                    system="skirmish",
                    scenario="meeting",
                    sides={"red": "bob", "blue": "alice"},
                    creator=alice,
                )
            workers = [build_worker(s, process=s.notifications.process) for s in stacks]
            sent = [0, 0]
            stop = time.monotonic() + 120

            def run(i: int) -> None:
                while time.monotonic() < stop and (len(smtp.keys) < N or len(hooks.arrivals) < N):
                    sent[i] += workers[i].step()

            threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for w in workers:  # anything still in flight
                w.step()
            assert len(smtp.keys) == N and len(hooks.arrivals) == N
            assert set(smtp.keys.values()) == {1} and set(hooks.arrivals.values()) == {1}
            assert sum(sent) == 2 * N, sent
            # one claim per delivery: created, claimed, sent
            rows, _ = svc.notifications.deliveries("user", str(bob.id), hook.id.hex, limit=100)
            assert len(rows) == N
            for row in rows:
                delivery = svc.notifications.process.repository.get(UUID(row["id"]))
                assert delivery.version == 3 and delivery.status == "sent"
            assert svc.notifications.listing(str(bob.id), limit=500)["total"] == N
            print(f"sent by each worker: {sent}")
        finally:
            for s in stacks:
                s.close()
