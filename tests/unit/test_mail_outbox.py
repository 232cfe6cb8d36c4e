"""The outbox of reset links: a request only queues; a failed send is tried again, then dropped;
a full queue drops (never blocks the request); closing sends what is queued."""

from __future__ import annotations

import threading

from service.adapters.mail_outbox import MailOutbox


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
