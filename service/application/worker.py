"""The notification worker: runs the :class:`NotificationProcess` (eventsourcing pulls the store's
log from the position in its tracking table) and sends what it derived.

Sending is at least once to the receiver, once per delivery as recorded: a worker claims a
delivery by appending ``Delivery.Claimed`` at the delivery's next version (the store lets one of
several workers win), sends it with its idempotency key (``X-Arbiter-Delivery`` / Message-ID), then
records ``Sent`` -- or a failed attempt and when to retry, with backoff.  A worker killed between
sending and recording leaves a claim that lapses after ``lease`` seconds; the next worker sends the
same delivery again with the same key, and the receiver drops the copy."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, LocalNotificationLog
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import get_topic

from service.adapters.smtp import Mailer
from service.adapters.webhooks import WebhookPoster, body_of
from service.application.notifications import (
    NotificationProcess,
    notifications_env,
    unsubscribe_token,
)
from service.application.store import ArbiterStore, LogFollower
from service.config import Config
from service.domain.notifications import KIND_WORDS, Delivery, Webhook, public_addresses

log = logging.getLogger(__name__)

DELIVERY_TOPICS = (
    get_topic(Delivery.Created),
    get_topic(Delivery.Attempted),
    get_topic(Delivery.Sent),
)


def open_process(
    config: Config,
    store: ArbiterStore | None = None,
    *,
    names: Callable[[str], str] | None = None,
    broker: Any = None,
    create_tables: bool | None = None,
) -> NotificationProcess:
    return NotificationProcess(
        notifications_env(config, create_tables=create_tables),
        leader=store,
        names=names,
        broker=broker,
        secret=config.secret_key,
        public_url=config.public_url,
    )


class Dispatcher:
    """Sends pending deliveries (see the module)."""

    def __init__(
        self,
        process: NotificationProcess,
        store: ArbiterStore,
        config: Config,
        *,
        mailer: Mailer | None,
        poster: WebhookPoster,
        worker: str | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.process = process
        self.store = store
        self.config = config
        self.mailer = mailer
        self.poster = poster
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}:{uuid4().hex[:6]}"
        self.clock = clock
        self.lease = timedelta(seconds=config.delivery_lease)
        self._log = LogFollower(process, DELIVERY_TOPICS)  # type: ignore[arg-type]
        self.pending: dict[str, None] = {}  # ids, in log order

    def catch_up(self) -> None:
        with self._log.lock:
            for event in self._log.new_events():
                oid = str(event.originator_id)
                if isinstance(event, Delivery.Created):
                    self.pending[oid] = None
                elif isinstance(event, Delivery.Sent) or event.next_at is None:
                    self.pending.pop(oid, None)

    def run_once(self) -> int:
        """Send every delivery that is due; returns how many were sent."""
        self.catch_up()
        sent = 0
        for oid in list(self.pending):
            now = self.clock()
            try:
                delivery: Delivery = self.process.repository.get(UUID(oid))
            except AggregateNotFoundError:
                continue
            if delivery.status != "pending":
                self.pending.pop(oid, None)
                continue
            if not delivery.claimable(self.worker, now):
                continue
            delivery.claim(self.worker, now + self.lease)
            try:
                self.process.save(delivery)
            except IntegrityError:
                continue  # another worker claimed it first
            ok, answer = self._send(delivery)
            if ok:
                delivery.sent(self.worker, answer)
                sent += 1
            else:
                delivery.failed(self.worker, answer, self._retry_at(delivery, now))
            try:
                self.process.save(delivery)
            except IntegrityError:
                log.warning("delivery %s was taken over before its outcome was recorded", oid)
        return sent

    def _retry_at(self, delivery: Delivery, now: datetime) -> datetime | None:
        tries = len(delivery.attempts) + 1
        if tries >= self.config.delivery_attempts:
            return None
        return now + timedelta(seconds=self.config.delivery_backoff * 2 ** (tries - 1))

    def _send(self, delivery: Delivery) -> tuple[bool, str]:
        try:
            if delivery.channel == "email":
                return self._email(delivery)
            return self._webhook(delivery)
        except Exception as exc:  # noqa: BLE001 - any failure is a failed attempt, retried
            return False, f"{type(exc).__name__}: {exc}"

    def _email(self, delivery: Delivery) -> tuple[bool, str]:
        if self.mailer is None:
            return False, "no SMTP server configured (ARBITER_SMTP_URL)"
        base = self.config.public_url.rstrip("/")
        token = unsubscribe_token(self.config.secret_key, delivery.user or "", delivery.kind)
        unsubscribe = (
            f"{base}/api/unsubscribe?user={delivery.user}&kind={delivery.kind}&token={token}"
        )
        lines = [delivery.text, ""]
        if delivery.url:
            lines += [f"Open it: {delivery.url}", ""]
        lines += [
            "--",
            f"You receive this because you play on Arbiter ({base}).",
            f"Stop e-mails about {KIND_WORDS.get(delivery.kind, delivery.kind)}: {unsubscribe}",
        ]
        answer = self.mailer.send(
            delivery.target,
            delivery.subject,
            "\n".join(lines),
            key=delivery.key,
            headers={
                "List-Unsubscribe": f"<{unsubscribe}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
        return True, answer

    def _webhook(self, delivery: Delivery) -> tuple[bool, str]:
        try:
            hook: Webhook = self.store.repository.get(UUID(delivery.target))
        except AggregateNotFoundError:
            return False, "webhook not found"
        if hook.removed:
            return False, "webhook removed"
        host = urlsplit(hook.url).hostname or ""
        address = None
        if not self.config.webhook_allow_private:  # checked now, and sent to what was checked
            addresses = public_addresses(host)
            if addresses is None:
                return False, "unreachable: the webhook's host name does not resolve"
            if not addresses:
                return False, "refused: the webhook's host is on a loopback or private network"
            address = addresses[0]
        body = body_of(
            delivery.text,
            kind=delivery.kind,
            game=delivery.game,
            url=delivery.url,
            delivery=delivery.key,
        )
        return self.poster.post(hook.url, hook.secret, body, delivery.key, address=address)


class NotificationWorker:
    """One worker: pulls and processes the log, sends what is due, raises clock events."""

    def __init__(
        self,
        config: Config,
        store: ArbiterStore,
        *,
        names: Callable[[str], str] | None = None,
        broker: Any = None,
        process: NotificationProcess | None = None,
        mailer: Mailer | None = None,
        poster: WebhookPoster | None = None,
        clocks: Callable[[datetime], Any] | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.process = process or open_process(config, store, names=names, broker=broker)
        self.process.leader = store
        if names is not None:
            self.process.names = names
        if broker is not None:
            self.process.broker = broker
        # the store's log, read in sections as large as the process pulls
        log_of_store = LocalNotificationLog(
            store.recorder, section_size=self.process.pull_section_size
        )
        self.process.follow(store.name, log_of_store)
        if mailer is None and config.smtp_url:
            mailer = Mailer(config.smtp_url, sender=config.smtp_from)
        self.dispatcher = Dispatcher(
            self.process, store, config, mailer=mailer, poster=poster or WebhookPoster()
        )
        self.clocks = clocks
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self) -> int:
        """Run the clocks, process the log so far, then send what is due."""
        if self.clocks is not None:
            try:
                self.clocks(datetime.now(UTC))
            except Exception:  # noqa: BLE001 - the clocks' trouble never stops delivery
                log.exception("checking the clocks")
        # another worker may record the same event first: carry on after it
        with contextlib.suppress(IntegrityError):
            self.process.pull_and_process(self.store.name)
        return self.dispatcher.run_once()

    def run(self, interval: float = 0.5, delay: float = 0) -> None:
        if delay and self._stop.wait(delay):
            return
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step()
            except Exception:  # noqa: BLE001 - a store outage: try again next round
                log.exception("notification worker step")
            self._stop.wait(max(0.05, interval - (time.monotonic() - started)))

    def start(self, interval: float = 0.5, delay: float = 2.0) -> threading.Thread:
        """Run in a daemon thread of this process (``arbiter serve``, ``make run``), from
        ``delay`` seconds on (the server's first requests are answered first)."""
        self._thread = threading.Thread(
            target=self.run, args=(interval, delay), name="notification-worker", daemon=True
        )
        self._thread.start()
        return self._thread

    def stop(self, timeout: float = 5) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
