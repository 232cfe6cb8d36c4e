"""The notification worker killed (SIGKILL) in the middle of a batch of 200 notifications, then
restarted: every notification is delivered by e-mail (a real aiosmtpd server) and by webhook (a
real HTTP server checking signatures), and none twice once the receivers drop copies by key.

Runs ``arbiter worker`` as its own process on PostgreSQL, as the README deploys it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from uuid import UUID

import pytest

from service.bootstrap import build_services, migrate
from service.config import Config
from tests.support.receivers import HookReceiver, SmtpReceiver
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.postgres

N = 200
ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate, timeout: float, what: str, logs) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}; the worker said:\n{logs()}")


@pytest.mark.slow("kills the notification worker mid-batch and waits for its restart to deliver")
def test_sigkill_mid_batch_then_restart_delivers_each_once(tmp_path: Path) -> None:
    with postgres_database() as dbname, SmtpReceiver() as smtp, HookReceiver() as hooks:
        env = {
            "ARBITER_STORE": "postgres",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": PG["host"],
            "POSTGRES_PORT": str(PG["port"]),
            "POSTGRES_USER": PG["user"],
            "ARBITER_VAR": str(tmp_path / "var"),
            "ARBITER_SECRET_KEY": "kill-test-secret",
            "ARBITER_PLUGINS": "tests.fixtures.skirmish",
            "ARBITER_SMTP_URL": smtp.url,
            "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
            "ARBITER_DELIVERY_LEASE": "2",
        }
        config = Config.from_env(env)
        migrate(config)
        svc = build_services(config)
        try:
            bob = svc.users.register("bob", "bob-password", "bob@example.org")
            alice = svc.users.register("alice", "alice-password")
            hook, secret = svc.notifications.register_webhook(
                "user", str(bob.id), str(bob.id), hooks.url("/bob"), "w" * 24, ["turn"]
            )
            hooks.secrets["/bob"] = secret
            for _ in range(N):  # red (bob) moves first: each game tells bob it is his turn
                svc.games.create(
                    system="skirmish",
                    scenario="meeting",
                    sides={"red": "bob", "blue": "alice"},
                    creator=alice,
                )
        finally:
            svc.close()

        logs = tmp_path / "worker.log"

        def start() -> subprocess.Popen[bytes]:
            with logs.open("ab") as out:
                return subprocess.Popen(
                    [str(Path(sys.executable).parent / "arbiter"), "worker", "--interval", "0.2"],
                    cwd=ROOT,
                    env={**os.environ, **env},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )

        def log_tail() -> str:
            return logs.read_text(errors="replace")[-3000:]

        first = start()
        in_flight: list[str] = []

        def kill_on_the_40th(key: str) -> None:
            # the receiver has the 40th call; the worker dies before it hears the answer, so it
            # has sent that delivery and not recorded it.  Under the lock, so that exactly one
            # arrival (the first to see 40 or more) kills
            with hooks.lock:
                if len(hooks.arrivals) >= 40 and not in_flight:
                    in_flight.append(key)
                    first.send_signal(signal.SIGKILL)

        hooks.on_arrival = kill_on_the_40th
        try:
            wait_for(lambda: first.poll() is not None, 60, "the kill mid-batch", log_tail)
        finally:
            if first.poll() is None:
                first.send_signal(signal.SIGKILL)
            first.wait(10)
        hooks.on_arrival = None
        at_kill = (len(smtp.keys), len(hooks.arrivals))
        # webhook sends run two at a time (ARBITER_DELIVERY_PER_TARGET), so the call beside the
        # 40th may already have reached the receiver when the signal lands: 40 or 41
        assert first.returncode == -signal.SIGKILL and 40 <= at_kill[1] <= 41, at_kill

        second = start()
        try:
            wait_for(
                lambda: len(smtp.keys) >= N and len(hooks.arrivals) >= N,
                180,
                f"all {N} e-mails and {N} webhook calls",
                log_tail,
            )
            time.sleep(1.0)  # anything more that would arrive
        finally:
            second.terminate()
            second.wait(20)
        assert second.returncode in (0, -signal.SIGTERM), log_tail()

        # every notification arrived on each channel; after dropping copies by key, once each
        assert len(smtp.keys) == N and len(hooks.arrivals) == N
        assert hooks.bad_signatures == 0
        assert {b["kind"] for b in hooks.bodies.values()} == {"turn"}
        copies = sum(c - 1 for c in smtp.keys.values()) + sum(
            c - 1 for c in hooks.arrivals.values()
        )
        # the only copies are what the killed worker had sent but not recorded: sent again after
        # their claims lapsed, with the same keys (so the receivers drop them).  Sends run side
        # by side, at most ARBITER_DELIVERY_PER_TARGET (2) to each of the two targets (the SMTP
        # server, the webhook host), so at most 4 were in flight at the kill
        assert hooks.arrivals[in_flight[0]] == 2 and 1 <= copies <= 4, (
            smtp.keys.most_common(3),
            hooks.arrivals.most_common(3),
        )
        print(f"killed after {at_kill} (e-mails, webhook calls); copies dropped by key: {copies}")

        # and the store records each delivery sent exactly once
        svc = build_services(config)
        try:
            rows, after = [], None
            while True:  # every page of the webhook's deliveries
                page, after = svc.notifications.deliveries(
                    "user", str(bob.id), hook.id.hex, limit=100, after=after
                )
                rows += page
                if after is None:
                    break
            assert len(rows) == N and all(r["status"] == "sent" for r in rows)
            assert all(sum(a["ok"] for a in r["attempts"]) == 1 for r in rows)
            process = svc.notifications.process
            taken_over = sum(
                process.repository.get(UUID(r["id"])).version > 3 for r in rows
            )  # claimed by the killed worker, then again after its lease lapsed
            print(f"webhook deliveries taken over after the kill: {taken_over}")
            notices = svc.notifications.listing(str(bob.id), limit=500)
            assert notices["total"] == N
            assert len({n["id"] for n in notices["notifications"]}) == N
        finally:
            svc.close()
