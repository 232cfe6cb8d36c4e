"""The club rulings' view: every ruling made from a dispute (withdrawn or in force), kept by
:class:`RulingsProjection` from the rulings' events, and the event types each ruling in force was
made for.  It answers the rulings in force (the knowledge base's index is rebuilt from them) and the
rulings of a system made for an event type (by key), without loading any ruling.

In SQLite and PostgreSQL (:mod:`.base`): tables ``club_rulings`` and ``club_ruling_types`` (tracking
``club_rulings_tracking``), a system's rulings for an event type read by key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.rulings import ClubRuling
from service.views.base import SqlView, Table


@dataclass(frozen=True)
class Ruling:
    """A club ruling in force as the view holds it (what the knowledge base indexes of it)."""

    id: str
    club: str
    system: str
    heading: str
    text: str
    rule_refs: list[str]
    event_types: list[str]
    game: str
    dispute: str
    arbiter: str
    citations: list[dict[str, Any]]
    made_on: str

    JSON = ("rule_refs", "event_types", "citations")

    @classmethod
    def of_row(cls, record: dict[str, Any]) -> Ruling:
        return cls(
            **{
                name: json.loads(record[name]) if name in cls.JSON else record[name]
                for name in cls.__dataclass_fields__
            }
        )


FIELDS = tuple(Ruling.__dataclass_fields__)
COLUMNS = ", ".join(FIELDS)


class RulingsView(SqlView):
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
        """Every ruling in force, in the order they were made."""
        found = self.query(
            f"SELECT {COLUMNS} FROM {{club_rulings}} WHERE withdrawn = 0 ORDER BY position"
        )
        return [Ruling.of_row(r) for r in found]

    def mark(self) -> tuple[int, int]:
        """What changes whenever the rulings in force change, read without loading any: how many
        there are and the position of the latest (a ruling made raises it, one withdrawn lowers
        the count)."""
        found = self.query_one(
            "SELECT COUNT(*) AS n, COALESCE(MAX(position), 0) AS latest FROM {club_rulings} "
            "WHERE withdrawn = 0"
        )
        return (int(found["n"]), int(found["latest"])) if found else (0, 0)

    def withdrawn(self) -> list[str]:
        """The ids of the rulings withdrawn."""
        return [r["id"] for r in self.query("SELECT id FROM {club_rulings} WHERE withdrawn = 1")]

    def for_event(self, system: str, event_type: str) -> list[Ruling]:
        """The rulings in force of ``system`` made for ``event_type`` events, oldest first."""
        columns = ", ".join(f"r.{name}" for name in FIELDS)
        found = self.query(
            f"SELECT {columns} FROM {{club_ruling_types}} t JOIN {{club_rulings}} r "
            "ON r.id = t.ruling WHERE t.system = %s AND t.event_type = %s AND r.withdrawn = 0 "
            "ORDER BY t.position",
            [system, event_type],
        )
        return [Ruling.of_row(r) for r in found]


class RulingsProjection(Projection[RulingsView]):
    name = "rulings"
    topics = tuple(get_topic(cls) for cls in (ClubRuling.Made, ClubRuling.Withdrawn))

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register
    def _(self, event: ClubRuling.Made, tracking: Tracking) -> None:
        ruling = Ruling(
            id=str(event.originator_id),
            club=event.club,
            system=event.system,
            heading=event.heading,
            text=event.text,
            rule_refs=list(event.rule_refs),
            event_types=list(event.event_types),
            game=event.game,
            dispute=event.dispute,
            arbiter=event.arbiter,
            citations=list(event.citations),
            made_on=event.timestamp.date().isoformat(),
        )
        self.view.add_ruling(ruling, tracking)

    @process_event.register
    def _(self, event: ClubRuling.Withdrawn, tracking: Tracking) -> None:
        self.view.withdraw(str(event.originator_id), tracking)
