"""The club scenarios' view: one row per club scenario (its club, system, title, sharing and latest
published version), kept by :class:`ScenariosProjection` from the scenarios' events.  It answers a
club's scenarios (by club, then title) and the library of published scenarios (by system, then
title) a keyset page at a time by its indexes, without loading every scenario of the store.

In SQLite and PostgreSQL (:mod:`.base`): table ``club_scenarios`` (tracking
``club_scenarios_tracking``), a club's scenarios read a keyset page at a time by ``(club, title,
position)`` and the published ones by ``(system, title, position)``, the titles in code point order
(``{bytewise}``) on both."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.scenarios import ClubScenario
from service.views.base import SqlView, Table

TitleKey = tuple[str, int]
#: a page's key of the library: (the system, the title in lower case, the position)
LibraryKey = tuple[str, str, int]


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join(["%s"] * len(values))


class ScenariosView(SqlView):
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
        """A created or forked scenario: private, nothing published (nothing if it is there)."""
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
        """Up to ``limit`` of ``club``'s scenarios (``sharing``: only those shared so) by title,
        after the key ``after``: each its ``id`` and page ``key``."""
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
        """Up to ``limit`` of the published scenarios of ``clubs`` or shared as one of
        ``sharing`` (``system``: of that system only), by system then title, after the key
        ``after``: each its ``id`` and page ``key``."""
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


class ScenariosProjection(Projection[ScenariosView]):
    name = "scenarios"
    topics = tuple(
        get_topic(cls)
        for cls in (
            ClubScenario.Created,
            ClubScenario.Forked,
            ClubScenario.Published,
            ClubScenario.SharingSet,
        )
    )

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    @process_event.register(ClubScenario.Created)
    @process_event.register(ClubScenario.Forked)
    def _(self, event: Any, tracking: Tracking) -> None:  # made, or forked from another club's
        self.view.add_scenario(
            str(event.originator_id), event.club, event.system, event.title, tracking
        )

    @process_event.register
    def _(self, event: ClubScenario.Published, tracking: Tracking) -> None:
        self.view.set_latest(str(event.originator_id), event.number, tracking)

    @process_event.register
    def _(self, event: ClubScenario.SharingSet, tracking: Tracking) -> None:
        self.view.set_sharing(str(event.originator_id), event.sharing, tracking)
