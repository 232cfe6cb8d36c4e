"""The outbox of reset links: a request only queues; a failed send is tried again, then dropped;
a full queue drops (never blocks the request); closing sends what is queued, and never waits past
its timeout; the logs never name an address; a deferred job is done in the outbox's thread."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from service.adapters.mail_outbox import MailOutbox
from service.application.ports import Mail


class FlakySender:
    def __init__(self, failures: int = 0, gate: threading.Event | None = None) -> None:
        self.failures = failures
        self.gate = gate
        self.sent: list[tuple[str, str]] = []
        self.tries = 0

    def send(self, to: str, subject: str, text: str, *, key: str) -> str:
        if self.gate is not None:
            self.gate.wait(5)
        self.tries += 1
        if self.tries <= self.failures:
            raise OSError("connection refused")
        self.sent.append((to, subject))
        return "250 accepted"


def test_a_failed_send_is_tried_again() -> None:
    sender = FlakySender(failures=2)
    outbox = MailOutbox(sender, attempts=3, backoff=0)
    assert outbox.send("a@example.org", "hello", "text")
    outbox.close()
    assert sender.sent == [("a@example.org", "hello")] and sender.tries == 3


def test_past_the_attempts_a_mail_is_dropped_and_the_next_one_goes() -> None:
    sender = FlakySender(failures=3)
    outbox = MailOutbox(sender, attempts=3, backoff=0)
    outbox.send("a@example.org", "first", "text")
    outbox.send("b@example.org", "second", "text")
    outbox.close()
    assert sender.sent == [("b@example.org", "second")]


def test_a_full_queue_drops_instead_of_waiting() -> None:
    gate = threading.Event()  # the sender is stuck on the first mail
    sender = FlakySender(gate=gate)
    outbox = MailOutbox(sender, capacity=2, backoff=0)
    taken = [outbox.send(f"{i}@example.org", "s", "t") for i in range(6)]
    assert taken.count(False) >= 3  # at most one in hand and two waiting
    gate.set()
    outbox.close()
    assert len(sender.sent) == taken.count(True)
    assert not outbox.send("late@example.org", "s", "t")  # closed


def test_closing_never_waits_past_its_timeout_on_a_stuck_server() -> None:
    gate = threading.Event()  # the SMTP server never answers the first mail
    outbox = MailOutbox(FlakySender(gate=gate), capacity=2, backoff=0)
    for i in range(4):
        outbox.send(f"{i}@example.org", "s", "t", about=f"user{i}")
    closing = threading.Thread(target=outbox.close, kwargs={"timeout": 0.5}, daemon=True)
    started = time.monotonic()
    closing.start()
    closing.join(5)
    stuck = closing.is_alive()
    gate.set()  # let the sender go either way, so nothing is left hanging
    assert not stuck, "close() blocked on a full queue"
    assert time.monotonic() - started < 2


def test_the_logs_name_the_account_never_the_address(caplog: pytest.LogCaptureFixture) -> None:
    gate = threading.Event()
    outbox = MailOutbox(FlakySender(failures=99, gate=gate), capacity=1, attempts=2, backoff=0)
    with caplog.at_level(logging.INFO):
        outbox.send("first@example.org", "s", "t", about="alice")
        outbox.send("second@example.org", "s", "t", about="bob")  # queued, or dropped: full
        outbox.send("third@example.org", "s", "t", about="carol")  # dropped: full
        gate.set()
        outbox.close()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "alice" in text and "carol" in text, text  # a failed send, a dropped mail
    assert "@" not in text, text


def test_a_deferred_job_is_written_and_sent_in_the_outbox_thread() -> None:
    sender = FlakySender()
    outbox = MailOutbox(sender, backoff=0)
    threads: list[str] = []

    def compose() -> list[Mail]:
        threads.append(threading.current_thread().name)
        return [Mail("a@example.org", "one", "t"), Mail("b@example.org", "two", "t")]

    assert outbox.defer(compose, about="a request")
    outbox.close()
    assert threads == ["mail-outbox"]
    assert sender.sent == [("a@example.org", "one"), ("b@example.org", "two")]
