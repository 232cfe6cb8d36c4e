"""The notices' view (``service.application.projections.notices``) in SQLite and PostgreSQL, in the
notification process's store: tables ``notices`` (by user, newest first), ``deliveries`` (by target)
and ``delivery_attempts`` (tracking ``notices_tracking``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.notices import (
    UNREAD_CAP,
    Key,
    NoticesView,
    micros,
    moment,
)

NOTICE_COLUMNS = ("id", "user_id", "kind", "text", "game", "url", "created")
DELIVERY_COLUMNS = ("id", "target", "channel", "kind", "text", "created", "status")


def _marks(n: int) -> str:
    return ", ".join(["%s"] * n)


class NoticesTables(SqlView, NoticesView):
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
