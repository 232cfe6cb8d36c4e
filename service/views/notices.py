"""The notices' view: each user's notices and each webhook's deliveries, kept by
:class:`NoticesProjection` from the notification process's own log (``service.application.
notifications``), in the process's store.  ``/api/me/notifications`` reads a user's newest notices a
page at a time and counts the unread ones by index; a webhook's deliveries are read by their target.
The worker that records notices brings this view up to them before it tells the users' pages.

In SQLite and PostgreSQL (:mod:`.base`), in the notification process's store: tables ``notices`` (by
user, newest first), ``deliveries`` (by target) and ``delivery_attempts`` (tracking
``notices_tracking``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.notifications import Delivery, Notice
from service.views.base import SqlView, Table

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: a page's key: (created, in microseconds since the epoch; the notice's id)
Key = tuple[int, str]
#: unread notices counted after a "mark all read" (README: a count this high shows as "1000+")
UNREAD_CAP = 1000


def micros(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


NOTICE_COLUMNS = ("id", "user_id", "kind", "text", "game", "url", "created")
DELIVERY_COLUMNS = ("id", "target", "channel", "kind", "text", "created", "status")


def _marks(n: int) -> str:
    return ", ".join(["%s"] * n)


class NoticesView(SqlView):
    TABLES = (
        Table(
            "notices",
            "id TEXT PRIMARY KEY, user_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, "
            "game TEXT, url TEXT, created BIGINT NOT NULL",
            indexes=(("by_user", "user_id, created, id"),),
        ),
        Table(
            "notice_counts",
            "user_id TEXT NOT NULL, kind TEXT NOT NULL, n BIGINT NOT NULL, "
            "PRIMARY KEY (user_id, kind)",
            # added after the notices table (a store of an earlier release has its notices and
            # none of these): counted from them when the tables are made and this one is empty
            fill="INSERT INTO {notice_counts} (user_id, kind, n) "
            "SELECT user_id, kind, COUNT(*) FROM {notices} "
            "WHERE NOT EXISTS (SELECT 1 FROM {notice_counts}) GROUP BY user_id, kind "
            "ON CONFLICT (user_id, kind) DO NOTHING",
        ),
        Table(
            "deliveries",
            "id TEXT PRIMARY KEY, target TEXT NOT NULL, channel TEXT NOT NULL, "
            "kind TEXT NOT NULL, text TEXT NOT NULL, created BIGINT NOT NULL, "
            "status TEXT NOT NULL, next_at BIGINT",
            indexes=(("by_target", "target, created, id"), ("by_status", "status, created, id")),
        ),
        Table(
            "delivery_attempts",
            "delivery TEXT NOT NULL, at TEXT NOT NULL, ok INTEGER NOT NULL, error TEXT, "
            "PRIMARY KEY (delivery, at)",
        ),
    )

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

    # -- writes ---------------------------------------------------------------------------------------
    def add_notice(self, row: dict[str, Any], tracking: Tracking) -> None:
        """The notice, and one more in its user's count of its kind (only if it is new)."""
        added = self.write_then(
            tracking,
            (
                f"INSERT INTO {{notices}} ({', '.join(NOTICE_COLUMNS)}) "
                f"VALUES ({_marks(len(NOTICE_COLUMNS))}) ON CONFLICT (id) DO NOTHING",
                [row[c] for c in NOTICE_COLUMNS],
            ),
            (
                "INSERT INTO {notice_counts} (user_id, kind, n) VALUES (%s, %s, 1) "
                "ON CONFLICT (user_id, kind) DO UPDATE SET n = {notice_counts}.n + 1",
                [row["user_id"], row["kind"]],
            ),
        )
        assert added in (0, 1)

    def add_delivery(self, row: dict[str, Any], tracking: Tracking) -> None:
        values = {**row, "status": "pending"}
        self.write(
            tracking,
            (
                f"INSERT INTO {{deliveries}} ({', '.join(DELIVERY_COLUMNS)}) "
                f"VALUES ({_marks(len(DELIVERY_COLUMNS))}) ON CONFLICT (id) DO NOTHING",
                [values[c] for c in DELIVERY_COLUMNS],
            ),
        )

    def attempt(
        self, delivery: str, status: str, attempt: dict[str, Any], tracking: Tracking
    ) -> None:
        """Record an attempt of ``delivery`` and its new ``status``."""
        self.write(
            tracking,
            (
                "UPDATE {deliveries} SET status = %s, next_at = %s WHERE id = %s",
                [status, attempt.get("next_at"), delivery],
            ),
            (
                "INSERT INTO {delivery_attempts} (delivery, at, ok, error) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (delivery, at) DO NOTHING",
                [delivery, attempt["at"], int(attempt["ok"]), attempt["error"]],
            ),
        )

    # -- reads ----------------------------------------------------------------------------------------
    def _where(
        self,
        user: str,
        kinds: Sequence[str],
        unread_since: tuple[datetime | None, Sequence[str]] | None,
    ) -> tuple[list[str], list[Any]]:
        where = ["user_id = %s", f"kind IN ({_marks(len(kinds))})"]
        args: list[Any] = [user, *kinds]
        if unread_since is not None:
            before, read = unread_since
            if before is not None:
                where.append("created > %s")
                args.append(micros(before))
            if read:
                where.append(f"id NOT IN ({_marks(len(read))})")
                args += list(read)
        return where, args

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
        if not kinds:
            return []
        where, args = self._where(user, kinds, unread_since)
        if after is not None:
            where.append("(created < %s OR (created = %s AND id < %s))")
            args += [after[0], after[0], after[1]]
        found = self.query(
            f"SELECT * FROM {{notices}} WHERE {' AND '.join(where)} "
            "ORDER BY created DESC, id DESC LIMIT %s",
            [*args, limit],
        )
        return [self.notice_of(r) for r in found]

    def count(
        self,
        user: str,
        kinds: Sequence[str],
        unread_since: tuple[datetime | None, Sequence[str]] | None = None,
    ) -> int:
        """How many of ``user``'s notices of ``kinds`` there are (a stored count per kind), or
        (``unread_since``) how many are not read: exact when nothing was marked read or only some
        ids; after a "mark all read" those since, counted up to :data:`UNREAD_CAP`."""
        if not kinds:
            return 0
        total = self.query(
            f"SELECT COALESCE(SUM(n), 0) AS n FROM {{notice_counts}} "
            f"WHERE user_id = %s AND kind IN ({_marks(len(kinds))})",
            [user, *kinds],
        )
        everything = int(total[0]["n"])
        if unread_since is None:
            return everything
        before, read = unread_since
        if before is None:  # nothing read but these ids: the total less those of them counted
            if not read:
                return everything
            found = self.query(
                f"SELECT COUNT(*) AS n FROM {{notices}} WHERE user_id = %s "
                f"AND kind IN ({_marks(len(kinds))}) AND id IN ({_marks(len(read))})",
                [user, *kinds, *read],
            )
            return everything - int(found[0]["n"])
        # read up to a moment: those after it, counted up to the cap (by the user's index)
        where, args = self._where(user, kinds, unread_since)
        found = self.query(
            f"SELECT COUNT(*) AS n FROM (SELECT 1 FROM {{notices}} WHERE {' AND '.join(where)} "
            "LIMIT %s) AS unread",
            [*args, UNREAD_CAP],
        )
        return int(found[0]["n"])

    def has_notices(self, user: str, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` are ``user``'s notices."""
        if not ids:
            return []
        found = self.query(
            f"SELECT id FROM {{notices}} WHERE user_id = %s AND id IN ({_marks(len(ids))})",
            [user, *ids],
        )
        return [r["id"] for r in found]

    def newest(self, user: str) -> datetime | None:
        found = self.query(
            "SELECT created FROM {notices} WHERE user_id = %s ORDER BY created DESC, id DESC "
            "LIMIT 1",
            [user],
        )
        return moment(int(found[0]["created"])) if found else None

    def pending_deliveries(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` deliveries still to send (pending, or failed with a retry due at
        ``next_at``), the oldest first."""
        found = self.query(
            "SELECT id, next_at FROM {deliveries} WHERE status IN ('pending', 'retrying') "
            "ORDER BY created, id LIMIT %s",
            [limit],
        )
        return [
            {"id": r["id"], "next_at": moment(int(r["next_at"])) if r["next_at"] else None}
            for r in found
        ]

    def deliveries(self, target: str, limit: int, after: Key | None = None) -> list[dict[str, Any]]:
        """Up to ``limit`` deliveries to ``target``, newest first, after the key ``after``."""
        where, args = "target = %s", [target]
        if after is not None:
            where += " AND (created < %s OR (created = %s AND id < %s))"
            args += [after[0], after[0], after[1]]  # type: ignore[list-item]
        rows = self.query(
            f"SELECT * FROM {{deliveries}} WHERE {where} ORDER BY created DESC, id DESC LIMIT %s",
            [*args, limit],
        )
        attempts: dict[str, list[dict[str, Any]]] = {r["id"]: [] for r in rows}
        if rows:
            for a in self.query(
                f"SELECT * FROM {{delivery_attempts}} WHERE delivery IN ({_marks(len(rows))}) "
                "ORDER BY at",
                [r["id"] for r in rows],
            ):
                attempts[a["delivery"]].append(
                    {"at": a["at"], "ok": bool(a["ok"]), "error": a["error"]}
                )
        return [self.delivery_of(r | {"attempts": attempts[r["id"]]}) for r in rows]


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
