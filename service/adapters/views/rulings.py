"""The club rulings' view (``service.application.projections.rulings``) in SQLite and PostgreSQL:
tables ``club_rulings`` and ``club_ruling_types`` (tracking ``club_rulings_tracking``), a system's
rulings for an event type read by key."""

from __future__ import annotations

import json

from eventsourcing.persistence import Tracking

from service.adapters.views.sql import SqlView, Table
from service.application.projections.rulings import Ruling, RulingsView

FIELDS = tuple(Ruling.__dataclass_fields__)
COLUMNS = ", ".join(FIELDS)


class RulingsTables(SqlView, RulingsView):
    TABLES = (
        Table(
            "club_rulings",
            "id TEXT PRIMARY KEY, club TEXT NOT NULL, system TEXT NOT NULL, "
            "heading TEXT NOT NULL, text TEXT NOT NULL, rule_refs TEXT NOT NULL, "
            "event_types TEXT NOT NULL, game TEXT NOT NULL, dispute TEXT NOT NULL, "
            "arbiter TEXT NOT NULL, citations TEXT NOT NULL, made_on TEXT NOT NULL, "
            "withdrawn INTEGER NOT NULL, position BIGINT NOT NULL",
            indexes=(("in_force", "withdrawn, position"),),
        ),
        Table(
            "club_ruling_types",
            "system TEXT NOT NULL, event_type TEXT NOT NULL, ruling TEXT NOT NULL, "
            "position BIGINT NOT NULL, PRIMARY KEY (system, event_type, ruling)",
            indexes=(("by_ruling", "ruling"),),
        ),
    )

    def add_ruling(self, ruling: Ruling, tracking: Tracking) -> None:
        values = [
            json.dumps(getattr(ruling, name)) if name in Ruling.JSON else getattr(ruling, name)
            for name in FIELDS
        ]
        marks = ", ".join(["%s"] * (len(FIELDS) + 2))
        kinds = [
            (
                "INSERT INTO {club_ruling_types} (system, event_type, ruling, position) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (system, event_type, ruling) DO NOTHING",
                [ruling.system, kind, ruling.id, tracking.notification_id],
            )
            for kind in dict.fromkeys(ruling.event_types)
        ]
        self.write(
            tracking,
            (
                f"INSERT INTO {{club_rulings}} ({COLUMNS}, withdrawn, position) VALUES ({marks}) "
                "ON CONFLICT (id) DO NOTHING",
                [*values, 0, tracking.notification_id],
            ),
            *kinds,
        )

    def withdraw(self, ruling: str, tracking: Tracking) -> None:
        self.write(
            tracking,
            ("UPDATE {club_rulings} SET withdrawn = 1 WHERE id = %s", [ruling]),
            ("DELETE FROM {club_ruling_types} WHERE ruling = %s", [ruling]),
        )

    def in_force(self) -> list[Ruling]:
        found = self.query(
            f"SELECT {COLUMNS} FROM {{club_rulings}} WHERE withdrawn = 0 ORDER BY position"
        )
        return [Ruling.of_row(r) for r in found]

    def for_event(self, system: str, event_type: str) -> list[Ruling]:
        columns = ", ".join(f"r.{name}" for name in FIELDS)
        found = self.query(
            f"SELECT {columns} FROM {{club_ruling_types}} t JOIN {{club_rulings}} r "
            "ON r.id = t.ruling WHERE t.system = %s AND t.event_type = %s AND r.withdrawn = 0 "
            "ORDER BY t.position",
            [system, event_type],
        )
        return [Ruling.of_row(r) for r in found]
