"""E-mails sent from a thread of this process (password reset links, notices of a changed
address): a request only queues its mail, so it never waits on the SMTP server.  A reset request
queues the account as it was typed (:meth:`MailOutbox.defer`): finding the account, signing its
link and writing the mail happen in this thread, so the request does the same work whether or not
the account exists (asking for a reset link does not tell which accounts exist).

At most ``capacity`` items wait; more are dropped and logged.  A failed send is tried again
``attempts`` times in all, ``backoff`` seconds apart, then logged and dropped: the person asks for
another link.  Logs name the account a mail is about (its user name), never an address.  Nothing
is stored: a link must not outlive the process in a table."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol
from uuid import uuid4

from service.application.ports import Mail

log = logging.getLogger(__name__)


class Sender(Protocol):
    def send(self, to: str, subject: str, text: str, *, key: str) -> str: ...


#: one queued item: a mail, or what makes the mails (called in the outbox's thread)
Item = tuple[Mail | None, Callable[[], Iterable[Mail]] | None, str]


class MailOutbox:
    def __init__(
        self, mailer: Sender, capacity: int = 100, attempts: int = 3, backoff: float = 2.0
    ) -> None:
        self.mailer = mailer
        self.attempts = attempts
        self.backoff = backoff
        self._queue: queue.Queue[Item | None] = queue.Queue(maxsize=capacity)
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._stopped = threading.Event()

    def send(self, to: str, subject: str, text: str, *, about: str = "") -> bool:
        return self._put((Mail(to, subject, text, about), None, about))

    def defer(self, compose: Callable[[], Iterable[Mail]], *, about: str = "") -> bool:
        return self._put((None, compose, about))

    def _put(self, item: Item) -> bool:
        if self._stopped.is_set():
            return False
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            log.warning("mail outbox full: a mail about %s was dropped", item[2] or "an account")
            return False
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mail-outbox", daemon=True)
                self._thread.start()
        return True

    def close(self, timeout: float = 5) -> None:
        """Send what is queued within ``timeout`` seconds, then stop; never waits longer (a stuck
        SMTP server with a full queue: what is left is dropped, and logged)."""
        self._stopped.set()
        if self._thread is None:
            return
        deadline = time.monotonic() + timeout
        with contextlib.suppress(queue.Full):  # full and stuck: the join below gives up
            self._queue.put(None, timeout=timeout)
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            log.warning(
                "mail outbox closed with %d mail(s) unsent: the SMTP server did not answer in time",
                self._queue.qsize(),
            )

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            mail, compose, about = item
            if mail is not None:
                self._deliver(mail)
                continue
            assert compose is not None
            try:
                mails = list(compose())
            except Exception:  # noqa: BLE001 - a bug in one job must not stop the outbox
                log.exception("mail outbox: could not write the mail about %s", about or "?")
                continue
            for each in mails:
                self._deliver(each)

    def _deliver(self, mail: Mail) -> None:
        key = uuid4().hex
        for attempt in range(1, self.attempts + 1):
            try:
                self.mailer.send(mail.to, mail.subject, mail.text, key=key)
                return
            except Exception as exc:  # noqa: BLE001 - any failure: try again, then drop
                if attempt == self.attempts:
                    log.error(
                        "could not send the mail about %s (%s): dropped",
                        mail.about or "an account",
                        type(exc).__name__,
                    )
                elif not self._stopped.is_set():
                    time.sleep(self.backoff * attempt)
