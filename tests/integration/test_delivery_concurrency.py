"""One slow target never delays another (issue 34, finding 4): before, the notification worker
sent deliveries one at a time with a 10 s timeout, so 150 webhooks at a slow host stalled every
other user's e-mail and webhooks, and the clock expiries that share the worker's loop.

Here bob's 12 webhooks point at a host that holds every request open; alice's one webhook and
her e-mail go elsewhere.  Alice's both arrive while bob's host still holds its first requests,
and that host never sees more than ``ARBITER_DELIVERY_PER_TARGET`` of them at once."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.app import create_app
from service.bootstrap import build_worker
from tests.conftest import make_config
from tests.support.api import PASSWORD, ApiHelper
from tests.support.receivers import HookReceiver, SmtpReceiver

PER_TARGET = 2


class Stalling:
    """What bob's host does: holds each request until released, counting those it holds."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.holding = 0
        self.most = 0
        self.arrived = 0

    def __call__(self, key: str) -> None:
        with self.lock:
            self.arrived += 1
            self.holding += 1
            self.most = max(self.most, self.holding)
        self.release.wait(30)
        with self.lock:
            self.holding -= 1


@pytest.fixture
def setting(tmp_path: Path, index_template: Path) -> Iterator[tuple[Flask, Any, Any, Any]]:
    with SmtpReceiver() as smtp, HookReceiver() as slow, HookReceiver() as fast:
        config = make_config(
            tmp_path,
            smtp_url=smtp.url,
            webhook_allow_private=True,
            webhooks_per_user=20,
            delivery_threads=4,
            delivery_per_target=PER_TARGET,
            delivery_per_owner=PER_TARGET,
        )
        shutil.copytree(index_template, config.index_dir)
        app = create_app(config)
        stalling = Stalling()
        slow.on_arrival = stalling
        try:
            yield app, smtp, (slow, stalling), fast
        finally:
            stalling.release.set()
            app.extensions["arbiter"].close()


def register(api: ApiHelper, name: str, email: str) -> dict[str, str]:
    r = api.client.post("/api/users", json={"username": name, "password": PASSWORD, "email": email})
    assert r.status_code == 201, r.get_json()
    r = api.client.post("/api/tokens", json={"username": name, "password": PASSWORD})
    api.tokens[name] = r.get_json()["token"]
    return api.user(name)


def hook(api: ApiHelper, user: dict[str, str], receiver: HookReceiver, path: str) -> None:
    """Register a webhook of ``user`` at ``receiver``'s ``path``, its secret given to it."""
    r = api.client.post("/api/me/webhooks", json={"url": receiver.url(path)}, headers=user)
    assert r.status_code == 201, r.get_json()
    receiver.secrets[path] = r.get_json()["secret"]


def play_and_work(app: Flask, api: ApiHelper) -> Any:
    """alice invites bob (bob is told first), bob accepts (alice is told); a worker runs."""
    game = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"}, creator="alice")
    svc = app.extensions["arbiter"]
    if game["status"] == "invited":
        svc.lifecycle.accept(game["id"], svc.users.by_name("bob"))
    worker = build_worker(svc, process=svc.notifications.process)
    worker.start(interval=0.05, delay=0)
    return worker


def until(check: Any, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_a_stalling_host_holds_its_own_places_and_alice_s_deliveries_go_on(
    setting: tuple[Flask, Any, Any, Any],
) -> None:
    app, smtp, (slow, stalling), fast = setting
    api = ApiHelper(app.test_client())
    bob = register(api, "bob", "bob@example.org")
    alice = register(api, "alice", "alice@example.org")
    for n in range(12):
        hook(api, bob, slow, f"/bob-{n}")
    hook(api, alice, fast, "/alice")
    worker = play_and_work(app, api)
    try:
        assert until(lambda: fast.at("/alice") and smtp.to("alice@example.org"))
        assert stalling.arrived >= 1  # bob's host was reached, and holds its requests
        with stalling.lock:
            assert stalling.most <= PER_TARGET, stalling.most
        # alice's sends and the e-mails end (on a loaded machine their outcomes are still being
        # recorded when they arrive); bob's stalled ones keep at most their target's places
        assert until(lambda: worker.dispatcher.in_flight() <= PER_TARGET)
        with stalling.lock:  # bob's first requests are still held while alice's went through
            assert stalling.holding >= 1
        stalling.release.set()
        assert until(lambda: stalling.arrived >= 12 and stalling.holding == 0)
        assert stalling.most <= PER_TARGET
    finally:
        stalling.release.set()
        worker.stop()


def test_one_member_s_webhooks_at_many_hosts_hold_only_their_owner_s_places(
    tmp_path: Path, index_template: Path
) -> None:
    """bob's 6 webhooks at 6 hosts (6 receivers, each holding every request): bob holds at most
    ``ARBITER_DELIVERY_PER_OWNER`` places in all, and alice's webhook and e-mail go on.  With
    places per target only, bob's 6 hosts would have taken every place."""
    stalling = Stalling()
    with contextlib.ExitStack() as stack:
        smtp = stack.enter_context(SmtpReceiver())
        hosts = [stack.enter_context(HookReceiver()) for _ in range(6)]
        fast = stack.enter_context(HookReceiver())
        for host in hosts:
            host.on_arrival = stalling
        config = make_config(
            tmp_path,
            smtp_url=smtp.url,
            webhook_allow_private=True,
            delivery_threads=4,
            delivery_per_target=2,
            delivery_per_owner=PER_TARGET,
        )
        shutil.copytree(index_template, config.index_dir)
        app = create_app(config)
        stack.callback(app.extensions["arbiter"].close)
        stack.callback(stalling.release.set)
        api = ApiHelper(app.test_client())
        bob = register(api, "bob", "bob@example.org")
        alice = register(api, "alice", "alice@example.org")
        for n, host in enumerate(hosts):
            hook(api, bob, host, f"/b{n}")
        hook(api, alice, fast, "/alice")
        worker = play_and_work(app, api)
        stack.callback(worker.stop)
        assert until(lambda: fast.at("/alice") and smtp.to("alice@example.org"))
        with stalling.lock:
            assert 1 <= stalling.holding <= PER_TARGET, stalling.holding
            assert stalling.most <= PER_TARGET, stalling.most
        stalling.release.set()


def test_a_receiver_that_answers_a_byte_at_a_time_is_cut_off_at_the_deadline() -> None:
    """The poster's timeout is for the whole request: a receiver that sends its answer one
    byte every 0.2 s (never idle for the 1 s timeout) is cut off after about 1 s."""
    from service.adapters.webhooks import WebhookPoster

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"a" * 200:
                if stop.is_set():
                    return
                with contextlib.suppress(OSError):
                    conn.sendall(bytes([byte]))
                time.sleep(0.2)

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    started = time.monotonic()
    try:
        ok, answer = WebhookPoster(timeout=1).post(
            f"http://127.0.0.1:{port}/", "secret", b"{}", "key"
        )
    finally:
        stop.set()
        listener.close()
    assert not ok and "within 1 s" in answer, answer
    assert time.monotonic() - started < 3
