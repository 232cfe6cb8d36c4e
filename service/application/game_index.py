"""A projection of the notification log: which games exist, who plays them, which have ended.

Each process follows the shared log (selecting only the topics it needs), so every worker sees the
games that any worker created."""

from __future__ import annotations

from typing import Any

from eventsourcing.utils import get_topic

from service.application.store import ArbiterStore, LogFollower
from service.domain.game import Game

TOPICS = tuple(
    get_topic(cls)
    for cls in (
        Game.Created,
        Game.Ended,
        Game.Invited,
        Game.InvitationAccepted,
        Game.InvitationDeclined,
    )
)


class GameIndex:
    def __init__(self, store: ArbiterStore) -> None:
        self._log = LogFollower(store, TOPICS)
        self._games: dict[str, dict[str, Any]] = {}

    def catch_up(self) -> None:
        with self._log.lock:
            for event in self._log.new_events():
                self._project(event)

    def _project(self, event: Any) -> None:
        gid = str(event.originator_id)
        if isinstance(event, Game.Created):
            self._games[gid] = {
                "id": gid,
                "system": event.system,
                "scenario": event.scenario,
                "title": event.labels.get("title", event.scenario),
                "sides": dict(event.sides),
                "created_at": event.timestamp.isoformat(),
                "status": "active",
                "result": None,
                "club": event.labels.get("club"),
                "ladder": event.labels.get("ladder"),
                "public": bool(event.labels.get("public", False)),
                "timed": bool(event.labels.get("clock")),
                "created_by": event.created_by,
                "pending": [],
            }
        elif gid not in self._games:
            return
        elif isinstance(event, Game.Ended):
            self._games[gid]["status"] = "ended"
            self._games[gid]["result"] = event.result
            self._games[gid]["ended_at"] = event.timestamp.isoformat()
        elif isinstance(event, Game.Invited):
            self._games[gid].update(status="invited", pending=list(event.pending))
        elif isinstance(event, Game.InvitationAccepted):
            row = self._games[gid]
            row["pending"] = [u for u in row["pending"] if u != event.user]
            if not row["pending"]:
                row["status"] = "active"
        elif isinstance(event, Game.InvitationDeclined):
            self._games[gid].update(status="declined", pending=[])

    def games(
        self, *, user_id: str | None = None, status: str | None = None
    ) -> list[dict[str, Any]]:
        self.catch_up()
        with self._log.lock:
            rows = [
                dict(g, sides=dict(g["sides"]), pending=list(g["pending"]))
                for g in self._games.values()
            ]
        if user_id is not None:
            rows = [g for g in rows if user_id in g["sides"].values()]
        if status is not None:
            rows = [g for g in rows if g["status"] == status]
        return sorted(rows, key=lambda g: g["created_at"], reverse=True)
