"""E-mails sent from a thread of this process (password reset links): a request only queues its
mail, so it never waits on the SMTP server, and an answer takes as long whether or not a mail was
sent (asking for a reset link does not tell which accounts exist).

At most ``capacity`` mails wait; more are dropped and logged.  A failed send is tried again
``attempts`` times in all, ``backoff`` seconds apart, then logged and dropped: the person asks for
another link.  Nothing is stored: a link must not outlive the process in a table."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Protocol
from uuid import uuid4

log = logging.getLogger(__name__)


class Sender(Protocol):
    def send(self, to: str, subject: str, text: str, *, key: str) -> str: ...


class MailOutbox:
    def __init__(
        self, mailer: Sender, capacity: int = 100, attempts: int = 3, backoff: float = 2.0
    ) -> None:
        self.mailer = mailer
        self.attempts = attempts
        self.backoff = backoff
        self._queue: queue.Queue[tuple[str, str, str] | None] = queue.Queue(maxsize=capacity)
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._stopped = threading.Event()

    def send(self, to: str, subject: str, text: str) -> bool:
        if self._stopped.is_set():
            return False
        try:
            self._queue.put_nowait((to, subject, text))
        except queue.Full:
            log.warning("mail outbox full: a mail to %s was dropped", to)
            return False
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mail-outbox", daemon=True)
                self._thread.start()
        return True

    def close(self, timeout: float = 5) -> None:
        """Send what is queued (within ``timeout``), then stop."""
        self._stopped.set()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            to, subject, text = item
            key = uuid4().hex
            for attempt in range(1, self.attempts + 1):
                try:
                    self.mailer.send(to, subject, text, key=key)
                    break
                except Exception as exc:  # noqa: BLE001 - any failure: try again, then drop
                    if attempt == self.attempts:
                        log.error("could not e-mail %s (%s): dropped", to, exc)
                    elif not self._stopped.is_set():
                        time.sleep(self.backoff * attempt)
