"""The club scenarios' view (``service.application.projections.scenarios``) in SQLite and
PostgreSQL: table ``club_scenarios`` (tracking ``club_scenarios_tracking``), a club's scenarios read
by ``(club, title)`` and the published ones by ``(system, title)``."""

from __future__ import annotations

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.scenarios import ScenariosView


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join(["%s"] * len(values))


class ScenariosTables(SqlView, ScenariosView):
    TABLES = (
        Table(
            "club_scenarios",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, system TEXT NOT NULL, "
            "title TEXT NOT NULL, title_key TEXT NOT NULL, sharing TEXT NOT NULL, "
            "latest INTEGER NOT NULL, position BIGINT NOT NULL",
            indexes=(("by_club", "club, position"), ("published", "system, latest")),
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

    def of_club(self, club: str, sharing: tuple[str, ...] | None) -> list[str]:
        where, params = "club = %s", [club]
        if sharing is not None:
            if not sharing:
                return []
            where += f" AND sharing IN ({_marks(sharing)})"
            params += list(sharing)
        found = self.query(
            f"SELECT id, title_key, position FROM {{club_scenarios}} WHERE {where}", params
        )
        # by title as Python orders it (the store's collation may not), then by creation
        found.sort(key=lambda r: (r["title_key"], int(r["position"])))
        return [row["id"] for row in found]

    def published(
        self, system: str | None, clubs: tuple[str, ...], sharing: tuple[str, ...]
    ) -> list[str]:
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
        found = self.query(
            f"SELECT id, system, title_key, position FROM {{club_scenarios}} WHERE {where}",
            params,
        )
        found.sort(key=lambda r: (r["system"], r["title_key"], int(r["position"])))
        return [row["id"] for row in found]
