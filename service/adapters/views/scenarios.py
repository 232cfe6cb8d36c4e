"""The club scenarios' view (``service.application.projections.scenarios``) in SQLite and
PostgreSQL: table ``club_scenarios`` (tracking ``club_scenarios_tracking``), a club's scenarios read
a keyset page at a time by ``(club, title, position)`` and the published ones by ``(system, title,
position)``, the titles in code point order (``{bytewise}``) on both."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.scenarios import LibraryKey, ScenariosView, TitleKey


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join(["%s"] * len(values))


class ScenariosTables(SqlView, ScenariosView):
    TABLES = (
        Table(
            "club_scenarios",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, system TEXT {bytewise} NOT NULL, "
            "title TEXT NOT NULL, title_key TEXT {bytewise} NOT NULL, sharing TEXT NOT NULL, "
            "latest INTEGER NOT NULL, position BIGINT NOT NULL",
            indexes=(
                ("by_club", "club, position"),
                ("published", "system, latest"),
                ("by_title", "club, title_key, position"),
                ("library", "system, title_key, position"),
            ),
        ),
    )

    def add_scenario(
        self, scenario: str, club: str, system: str, title: str, tracking: Tracking
    ) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {club_scenarios} (id, club, system, title, title_key, sharing, "
                "latest, position) VALUES (%s, %s, %s, %s, %s, 'private', 0, %s) "
                "ON CONFLICT (id) DO NOTHING",
                [scenario, club, system, title, title.lower(), tracking.notification_id],
            ),
        )

    def set_latest(self, scenario: str, number: int, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("UPDATE {club_scenarios} SET latest = %s WHERE id = %s", [number, scenario]),
        )

    def set_sharing(self, scenario: str, sharing: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("UPDATE {club_scenarios} SET sharing = %s WHERE id = %s", [sharing, scenario]),
        )

    def of_club(
        self,
        club: str,
        sharing: tuple[str, ...] | None,
        limit: int,
        after: TitleKey | None,
    ) -> list[dict[str, Any]]:
        where, params = "club = %s", [club]
        if sharing is not None:
            if not sharing:
                return []
            where += f" AND sharing IN ({_marks(sharing)})"
            params += list(sharing)
        if after is not None:
            where += " AND (title_key > %s OR (title_key = %s AND position > %s))"
            params += [after[0], after[0], after[1]]  # type: ignore[list-item]
        found = self.query(
            f"SELECT id, title_key, position FROM {{club_scenarios}} WHERE {where} "
            "ORDER BY title_key, position LIMIT %s",
            [*params, limit],
        )
        return [{"id": r["id"], "key": (r["title_key"], int(r["position"]))} for r in found]

    def published(
        self,
        system: str | None,
        clubs: tuple[str, ...],
        sharing: tuple[str, ...],
        limit: int,
        after: LibraryKey | None,
    ) -> list[dict[str, Any]]:
        either = []
        params: list[object] = []
        if clubs:
            either.append(f"club IN ({_marks(clubs)})")
            params += list(clubs)
        if sharing:
            either.append(f"sharing IN ({_marks(sharing)})")
            params += list(sharing)
        if not either:
            return []
        where = f"latest > 0 AND ({' OR '.join(either)})"
        if system is not None:
            where += " AND system = %s"
            params.append(system)
        if after is not None:
            where += (
                " AND (system > %s OR (system = %s AND (title_key > %s OR "
                "(title_key = %s AND position > %s))))"
            )
            params += [after[0], after[0], after[1], after[1], after[2]]
        found = self.query(
            f"SELECT id, system, title_key, position FROM {{club_scenarios}} WHERE {where} "
            "ORDER BY system, title_key, position LIMIT %s",
            [*params, limit],
        )
        return [
            {"id": r["id"], "key": (r["system"], r["title_key"], int(r["position"]))} for r in found
        ]
