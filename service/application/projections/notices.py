"""The notices' view: each user's notices and each webhook's deliveries, kept by
:class:`NoticesProjection` from the notification process's own log (``service.application.
notifications``), in the process's store.  ``/api/me/notifications`` reads a user's newest notices a
page at a time and counts the unread ones by index; a webhook's deliveries are read by their target.
The worker that records notices brings this view up to them before it tells the users' pages."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.notifications import Delivery, Notice

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: a page's key: (created, in microseconds since the epoch; the notice's id)
Key = tuple[int, str]
#: unread notices counted after a "mark all read" (README: a count this high shows as "1000+")
UNREAD_CAP = 1000


def micros(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


class NoticesView(View):
    @abstractmethod
    def add_notice(self, row: dict[str, Any], tracking: Tracking) -> None: ...

    @abstractmethod
    def add_delivery(self, row: dict[str, Any], tracking: Tracking) -> None: ...

    @abstractmethod
    def attempt(
        self, delivery: str, status: str, attempt: dict[str, Any], tracking: Tracking
    ) -> None:
        """Record an attempt of ``delivery`` and its new ``status``."""

    @abstractmethod
    def page(
        self,
        user: str,
        kinds: Sequence[str],
        *,
        limit: int,
        after: Key | None = None,
        unread_since: tuple[datetime | None, Sequence[str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` of ``user``'s notices of ``kinds``, newest first, after ``after``;
        ``unread_since``: only those not read (read: created up to the time, or one of the ids)."""

    @abstractmethod
    def count(
        self,
        user: str,
        kinds: Sequence[str],
        unread_since: tuple[datetime | None, Sequence[str]] | None = None,
    ) -> int:
        """How many of ``user``'s notices of ``kinds`` there are (a stored count per kind), or
        (``unread_since``) how many are not read: exact when nothing was marked read or only some
        ids; after a "mark all read" those since, counted up to :data:`UNREAD_CAP`."""

    @abstractmethod
    def has_notices(self, user: str, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` are ``user``'s notices."""

    @abstractmethod
    def newest(self, user: str) -> datetime | None: ...

    @abstractmethod
    def pending_deliveries(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` deliveries still to send (pending, or failed with a retry due at
        ``next_at``), the oldest first."""

    @abstractmethod
    def deliveries(self, target: str, limit: int, after: Key | None = None) -> list[dict[str, Any]]:
        """Up to ``limit`` deliveries to ``target``, newest first, after the key ``after``."""

    @staticmethod
    def notice_of(record: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": record["id"],
            "kind": record["kind"],
            "text": record["text"],
            "game": record["game"],
            "url": record["url"],
            "created": moment(int(record["created"])),
            "key": (int(record["created"]), record["id"]),
        }

    @staticmethod
    def delivery_of(record: dict[str, Any]) -> dict[str, Any]:
        attempts = [dict(a, at=datetime.fromisoformat(a["at"])) for a in record["attempts"]]
        return {
            "id": record["id"],
            "channel": record["channel"],
            "kind": record["kind"],
            "text": record["text"],
            "created": moment(int(record["created"])),
            "status": record["status"],
            "attempts": attempts,
            "key": (int(record["created"]), record["id"]),
        }


class NoticesProjection(Projection[NoticesView]):
    name = "notices"
    topics = tuple(
        get_topic(cls)
        for cls in (Notice.Created, Delivery.Created, Delivery.Attempted, Delivery.Sent)
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: Notice.Created, tracking: Tracking) -> None:
        self.view.add_notice(
            {
                "id": event.originator_id.hex,
                "user_id": event.user,
                "kind": event.kind,
                "text": event.text,
                "game": event.game,
                "url": event.url,
                "created": micros(event.timestamp),
            },
            tracking,
        )

    @process_event.register
    def _(self, event: Delivery.Created, tracking: Tracking) -> None:
        self.view.add_delivery(
            {
                "id": event.originator_id.hex,
                "target": event.target,
                "channel": event.channel,
                "kind": event.kind,
                "text": event.text,
                "created": micros(event.timestamp),
            },
            tracking,
        )

    @process_event.register
    def _(self, event: Delivery.Sent, tracking: Tracking) -> None:
        attempt = {"at": event.timestamp.isoformat(), "ok": True, "error": None}
        self.view.attempt(event.originator_id.hex, "sent", attempt, tracking)

    @process_event.register
    def _(self, event: Delivery.Attempted, tracking: Tracking) -> None:
        attempt = {"at": event.timestamp.isoformat(), "ok": False, "error": event.error}
        if event.next_at is not None:
            attempt["next_at"] = micros(event.next_at)
        status = "retrying" if event.next_at is not None else "failed"
        self.view.attempt(event.originator_id.hex, status, attempt, tracking)
