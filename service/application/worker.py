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
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from service.application.notifications import NotificationProcess, unsubscribe_token
from service.application.ports import DeliveryMail, Poster, PushSigning
from service.application.push import PushService
from service.application.store import ArbiterStore
from service.domain.notifications import (
    KIND_WORDS,
    Delivery,
    Resolve,
    Webhook,
    public_addresses,
    webhook_body,
)
from service.domain.push import PushSubscription, payload_of

log = logging.getLogger(__name__)

#: how a failed push that is never tried again begins its answer
GIVEN_UP = "given up"
#: deliveries read per round to be sent (the oldest first; a backlog larger than this is sent in
#: order over the following rounds)
PENDING_READ = 1000


@dataclass(frozen=True)
class Route:
    """The places a delivery takes while it is sent: ``(kind, key)`` pairs, each kind limited
    (``Dispatcher.limits``)."""

    places: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DeliverySettings:
    """What the dispatcher is set to, from ``Config`` (``bootstrap.delivery_settings``; the
    defaults and bounds are ``Config``'s: ``ARBITER_DELIVERY_*``, ``ARBITER_WEBHOOK_ALLOW_PRIVATE``,
    ``ARBITER_PUBLIC_URL``, the secret key)."""

    #: seconds a claim on a delivery holds before another worker may take it over
    lease: float
    #: seconds before the first retry, doubled for each next one
    backoff: float
    #: tries before a delivery is given up
    attempts: int
    #: sends at once, and at once per target host and per owner
    threads: int
    per_target: int
    per_owner: int
    #: webhooks and push services on private addresses allowed (a test's receivers)
    allow_private: bool
    #: the site's address, for the links in e-mails
    public_url: str
    #: signs the unsubscribe links
    secret_key: str


class Dispatcher:
    """Sends pending deliveries (see the module), several at once.

    At most ``delivery_threads`` sends are in flight; at most ``delivery_per_target`` to one
    target (the SMTP server, or a webhook's resolved address and port, so that names for one host
    share its places); at most ``delivery_per_owner`` for one owner's webhooks (a user or a club,
    whatever hosts they name); and one place is always left for e-mail.  So a slow or silent
    host, or one member's many webhooks, hold their own few places and never delay another's
    deliveries, nor the worker's loop (the clocks, the log).  A delivery is claimed only when its
    places are free, so a claim never waits in a queue while its lease runs out.  Where each
    pending delivery goes, and when it is due again after a failure, are kept from the first
    look, so a tick reads only the deliveries it may start."""

    def __init__(
        self,
        process: NotificationProcess,
        store: ArbiterStore,
        settings: DeliverySettings,
        *,
        mailer: DeliveryMail | None,
        poster: Poster,
        resolve: Resolve,
        signer: PushSigning | None = None,
        devices: PushService | None = None,
        worker: str | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.process = process
        self.store = store
        self.settings = settings
        self.mailer = mailer
        self.poster = poster
        #: a webhook or push service host's addresses (the DNS look-up,
        #: ``service.adapters.addresses``): checked, then sent to, never looked up twice
        self.resolve = resolve
        #: web push: what encrypts and signs each message, and the subscriptions (one the push
        #: service says is gone is removed)
        self.signer = signer
        self.devices = devices
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}:{uuid4().hex[:6]}"
        self.clock = clock
        self.lease = timedelta(seconds=settings.lease)
        self.pending: dict[str, None] = {}  # ids, oldest first
        self._routes: dict[str, Route] = {}  # pending id -> where it goes (worked out once)
        self._due: dict[str, datetime] = {}  # pending id -> its next try, after a failure
        self.threads = settings.threads
        self.limits = {
            "target": settings.per_target,
            "owner": settings.per_owner,
            # webhooks and pushes (HTTP calls) never take the last place: e-mail's
            "webhooks": max(1, self.threads - 1),
        }
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="delivery")
        self._flight = threading.Lock()
        self._in_flight: dict[str, Future[None]] = {}  # delivery id -> its send
        self._held: Counter[tuple[str, str]] = Counter()  # (kind, key) -> sends in flight
        self._sent = 0  # sent since run_once last said

    def catch_up(self) -> None:
        """The deliveries still to send (at most :data:`PENDING_READ`, the oldest first), read from
        the notices view (``projections.notices``) once it has the process's latest records."""
        views = self.process.views
        if views is None:
            return
        views.run()
        view = views["notices"].view
        rows = view.pending_deliveries(PENDING_READ)
        self.pending = {str(UUID(hex=r["id"])): None for r in rows}
        self._due = {str(UUID(hex=r["id"])): r["next_at"] for r in rows if r["next_at"]}
        self._routes = {oid: route for oid, route in self._routes.items() if oid in self.pending}

    def run_once(self, *, wait: bool = True) -> int:
        """Start the sends that are due and have a place; returns how many were sent (since the
        last call).  ``wait``: until each delivery due is sent or has failed once, starting each
        as a place frees (a test's or the CLI's step); the worker's loop does not wait."""
        self.catch_up()
        tried: set[str] = set()  # at most one attempt per delivery per call
        while True:
            started = self._start_due(tried)
            with self._flight:
                flying = list(self._in_flight.values())
            if not wait or not (flying or started):
                break
            if flying:
                done, _ = futures_wait(flying, return_when=FIRST_COMPLETED)
                for future in done:  # the process is going down (as if killed mid-send)
                    error = future.exception() if not future.cancelled() else None
                    if isinstance(error, KeyboardInterrupt | SystemExit):
                        raise error
        if wait and self.process.views is not None:  # the outcomes shown as the step ends
            self.process.views.run()
        with self._flight:
            sent, self._sent = self._sent, 0
        return sent

    def in_flight(self) -> int:
        with self._flight:
            return len(self._in_flight)

    def close(self, timeout: float = 12) -> None:
        """Stop starting sends; those in flight end within the poster's deadline (their claims
        lapse if the process goes first, and the next worker sends them)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._flight:  # cancelled before they ran: they hold nothing
            for oid, future in list(self._in_flight.items()):
                if future.cancelled():
                    del self._in_flight[oid]
        deadline = time.monotonic() + timeout
        while self.in_flight() and time.monotonic() < deadline:
            time.sleep(0.02)

    def _start_due(self, tried: set[str]) -> int:
        started = 0
        for oid in list(self.pending):
            with self._flight:
                if oid in self._in_flight or oid in tried:
                    continue
                if len(self._in_flight) >= self.threads:
                    break
            now = self.clock()
            due = self._due.get(oid)
            if due is not None and due > now:
                continue
            route = self._routes.get(oid)
            if route is not None and not self._has_place(route):
                continue  # its target or owner is busy: later, when a place frees
            try:
                delivery: Delivery = self.process.repository.get(UUID(oid))
            except AggregateNotFoundError:
                continue
            if delivery.status != "pending":
                self.pending.pop(oid, None)
                continue
            if not delivery.claimable(self.worker, now):
                continue
            hook = self._hook(delivery)
            if route is None:
                route = self._routes[oid] = self._route_of(delivery, hook)
                if not self._has_place(route):
                    continue
            delivery.claim(self.worker, now + self.lease)
            try:
                self.process.save(delivery)
            except IntegrityError:
                continue  # another worker claimed it first
            with self._flight:
                self._held.update(route.places)
                self._in_flight[oid] = self._pool.submit(self._deliver, delivery, hook, route)
            tried.add(oid)
            started += 1
        return started

    def _has_place(self, route: Route) -> bool:
        with self._flight:
            return all(self._held[place] < self.limits[place[0]] for place in route.places)

    def _hook(self, delivery: Delivery) -> Any:
        """A webhook's or push delivery's target: the :class:`Webhook` or the
        :class:`PushSubscription` (None when it is not found)."""
        if delivery.channel == "email":
            return None
        try:
            found: Any = self.store.repository.get(UUID(delivery.target))
        except AggregateNotFoundError:
            return None
        wanted = PushSubscription if delivery.channel == "push" else Webhook
        return found if isinstance(found, wanted) else None

    def _route_of(self, delivery: Delivery, hook: Any) -> Route:
        """The places a delivery takes: the SMTP server; or the webhook's target (its host's
        address, as the send will use it, and port), its owner, and one of the webhooks'; a
        push likewise, its push service's host and the user's devices as its owner."""
        if delivery.channel == "email":
            return Route((("target", "smtp"),))
        if hook is None:
            return Route((("target", f"{delivery.channel} {delivery.target}"), ("webhooks", "")))
        if isinstance(hook, PushSubscription):
            return Route(
                (
                    ("target", self._host_port(hook.endpoint)),
                    ("owner", f"push:{hook.user}"),
                    ("webhooks", ""),
                )
            )
        return Route(
            (
                ("target", self._host_port(hook.url)),
                ("owner", f"{hook.owner_kind}:{hook.owner}"),
                ("webhooks", ""),
            )
        )

    def _host_port(self, url: str) -> str:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not self.settings.allow_private:
            host = next(iter(public_addresses(host, self.resolve) or ()), host)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"{host}:{port}"

    def _deliver(self, delivery: Delivery, hook: Any, route: Route) -> None:
        oid = str(delivery.id)
        try:
            ok, answer = self._send(delivery, hook)
            if ok:
                delivery.sent(self.worker, answer)
            elif answer.startswith(GIVEN_UP):  # a device gone or turned off: never again
                delivery.failed(self.worker, answer, None)
            else:
                delivery.failed(self.worker, answer, self._retry_at(delivery, self.clock()))
            try:
                self.process.save(delivery)
            except IntegrityError:
                log.warning("delivery %s was taken over before its outcome was recorded", oid)
            else:
                if ok:
                    with self._flight:
                        self._sent += 1
        except Exception:  # noqa: BLE001 - a store outage: the claim lapses, it is sent again
            log.exception("recording delivery %s", oid)
        finally:
            with self._flight:
                self._in_flight.pop(oid, None)
                self._held.subtract(route.places)
                self._held += Counter()  # drop the places no send holds

    def _retry_at(self, delivery: Delivery, now: datetime) -> datetime | None:
        tries = len(delivery.attempts) + 1
        if tries >= self.settings.attempts:
            return None
        return now + timedelta(seconds=self.settings.backoff * 2 ** (tries - 1))

    def _send(self, delivery: Delivery, hook: Any) -> tuple[bool, str]:
        try:
            if delivery.channel == "email":
                return self._email(delivery)
            if delivery.channel == "push":
                return self._push(delivery, hook)
            return self._webhook(delivery, hook)
        except Exception as exc:  # noqa: BLE001 - any failure is a failed attempt, retried
            return False, f"{type(exc).__name__}: {exc}"

    def _email(self, delivery: Delivery) -> tuple[bool, str]:
        if self.mailer is None:
            return False, "no SMTP server configured (ARBITER_SMTP_URL)"
        base = self.settings.public_url.rstrip("/")
        token = unsubscribe_token(self.settings.secret_key, delivery.user or "", delivery.kind)
        query = f"user={delivery.user}&kind={delivery.kind}&token={token}"
        # the link opens a page that asks (a GET never writes); the header is for one-click
        # unsubscribing by the mail program (RFC 8058: a POST)
        page, unsubscribe = f"{base}/unsubscribe?{query}", f"{base}/api/unsubscribe?{query}"
        lines = [delivery.text, ""]
        if delivery.url:
            lines += [f"Open it: {delivery.url}", ""]
        lines += [
            "--",
            f"You receive this because you play on Arbiter ({base}).",
            f"Stop e-mails about {KIND_WORDS.get(delivery.kind, delivery.kind)}: {page}",
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

    def _checked_address(self, url: str, what: str) -> tuple[str | None, str | None]:
        """The address to send to (None: look the host up as usual, with
        ``ARBITER_WEBHOOK_ALLOW_PRIVATE``), checked now, or why it is refused."""
        if self.settings.allow_private:
            return None, None
        addresses = public_addresses(urlsplit(url).hostname or "", self.resolve)
        if addresses is None:
            return None, f"unreachable: the {what}'s host name does not resolve"
        if not addresses:
            return None, f"refused: the {what}'s host is on a loopback or private network"
        return addresses[0], None

    def _push(self, delivery: Delivery, device: PushSubscription | None) -> tuple[bool, str]:
        """Encrypt the notice to the device's keys, sign it, and POST it to its push service; a
        404 or 410 (the subscription has expired or was withdrawn) removes the subscription."""
        if device is None or device.removed:
            return False, f"{GIVEN_UP}: the device's notifications were turned off"
        if self.signer is None:
            return False, "no VAPID key to sign pushes with"
        address, refused = self._checked_address(device.endpoint, "push service")
        if refused:
            return False, refused
        home = self.settings.public_url.rstrip("/") + "/"
        payload = payload_of(delivery.kind, delivery.text, delivery.url, home)
        body, headers = self.signer.message(device.info(), payload)
        status, answer = self.poster.send(device.endpoint, body, headers, address=address)
        if status in (404, 410):
            if self.devices is not None:
                self.devices.remove(device.user, str(device.id), by=None, reason="gone")
            return False, f"{GIVEN_UP}: {answer}, the subscription is gone and was removed"
        return status is not None and 200 <= status < 300, answer

    def _webhook(self, delivery: Delivery, hook: Webhook | None) -> tuple[bool, str]:
        if hook is None:
            return False, "webhook not found"
        if hook.removed:
            return False, "webhook removed"
        address, refused = self._checked_address(hook.url, "webhook")
        if refused:  # checked now, and sent to what was checked
            return False, refused
        body = webhook_body(
            delivery.text,
            kind=delivery.kind,
            game=delivery.game,
            url=delivery.url,
            delivery=delivery.key,
        )
        return self.poster.post(hook.url, hook.secret, body, delivery.key, address=address)


class NotificationWorker:
    """One worker: pulls and processes the log, sends what is due, raises clock events, records
    ladder and campaign results."""

    def __init__(
        self,
        store: ArbiterStore,
        process: NotificationProcess,
        dispatcher: Dispatcher,
        *,
        clocks: Callable[[datetime], Any] | None = None,
        projections: Any = None,
        results: Callable[[], Any] | None = None,
    ) -> None:
        """Made by ``service.bootstrap.notification_worker`` (the process over its own store,
        the dispatcher with its mail, HTTP and push adapters)."""
        self.store = store
        #: records the results of ladder and campaign games that ended (requests never do: GETs
        #: never write), after the clocks in each step
        self.results = results
        #: the persisted views (``service.views``), brought up to the log first in each step
        self.projections = projections
        self.process = process
        self.process.leader = store
        self.dispatcher = dispatcher
        self.clocks = clocks
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self, *, wait: bool = True) -> int:
        """Run the clocks, record the results of ladder and campaign games that ended, bring the
        persisted views up to the log, process the log so far for notifications, then send what
        is due (``wait``: until it is sent or failed; the loop of :meth:`run` does not wait)."""
        if self.clocks is not None:
            try:
                self.clocks(datetime.now(UTC))
            except Exception:  # noqa: BLE001 - the clocks' trouble never stops delivery
                log.exception("checking the clocks")
        if self.results is not None:
            try:
                self.results()
            except Exception:  # noqa: BLE001 - nor does the ladders'
                log.exception("recording ladder and campaign results")
        if self.projections is not None:
            try:
                self.projections.run(lazy=True)
            except Exception:  # noqa: BLE001 - a view's trouble never stops notifications
                log.exception("running the projections")
        # another worker may record the same event first: carry on after it; a stop asked for
        # is heeded between events, not after the whole log
        with contextlib.suppress(IntegrityError):
            self.process.catch_up(halt=self._stop.is_set)
        if self._stop.is_set():
            return 0
        return self.dispatcher.run_once(wait=wait)  # its view brought up to the log first

    def run(self, interval: float = 0.5, delay: float = 0) -> None:
        if delay and self._stop.wait(delay):
            return
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step(wait=False)  # sends run on; the clocks and the log come round again
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
        self.dispatcher.close(timeout)
