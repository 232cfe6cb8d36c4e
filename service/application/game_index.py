"""A projection of the notification log: which games exist, who plays them, which have ended.

Each process follows the shared log (selecting only the topics it needs), so every worker sees the
games that any worker created."""

from __future__ import annotations

from typing import Any

from eventsourcing.utils import get_topic

from service.application.store import ArbiterStore, LogFollower
from service.domain.game import Game

TOPICS = (get_topic(Game.Created), get_topic(Game.Ended))


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
            }
        elif isinstance(event, Game.Ended) and gid in self._games:
            self._games[gid]["status"] = "ended"
            self._games[gid]["result"] = event.result

    def games(
        self, *, user_id: str | None = None, status: str | None = None
    ) -> list[dict[str, Any]]:
        self.catch_up()
        with self._log.lock:
            rows = [dict(g, sides=dict(g["sides"])) for g in self._games.values()]
        if user_id is not None:
            rows = [g for g in rows if user_id in g["sides"].values()]
        if status is not None:
            rows = [g for g in rows if g["status"] == status]
        return sorted(rows, key=lambda g: g["created_at"], reverse=True)
