"""A ladder as the ladders' view (:mod:`.ladders`) changes it in a run of events: its row, its rating
table (:class:`~service.domain.ratings.table.RatingTable`, stored whole as JSON) and who plays it,
with what the run changed, written when the run ends; and the figures the ladders' pages go by."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.domain.ratings.table import RatingTable, rank_score

DAY = 86400.0
#: the results a ladder's page shows (``recent_results``)
RECENT = 20
#: a page of results holds at most this many (:meth:`LaddersView.results`)
#: a page of standings holds at most this many (``GET /api/ladders/<id>/standings?limit=``)
STANDINGS_PAGE_MAX = 1000

#: the columns of a standings row as the API shows it
ROW = ("user", "rating", "rd", "volatility", "games", "wins", "draws", "losses")


def table_for(settings: dict[str, Any], epoch: float) -> RatingTable:
    return RatingTable(
        epoch=epoch,
        period_seconds=settings["rating_period_days"] * DAY,
        tau=settings["tau"],
        apply_sides=settings["side_adjustment"],
    )


@dataclass
class LadderState:
    """A ladder as a run of events changes it: its row, its rating table and players (joined,
    ``members``; who left, ``left``), what changed (written at the end of the run)."""

    id: str
    club_id: str
    name: str
    system: str
    scenario: str | None
    settings: dict[str, Any]
    created_by: str
    created_at: str
    created: int
    table: RatingTable
    members: set[str] = field(default_factory=set)
    left: set[str] = field(default_factory=set)
    #: the notification ids of its last event, its last change of standings, its last change of
    #: who is on the board (a join or a leave: the live board is then written whole)
    position: int = 0
    changed_at: int = 0
    replaced_at: int = 0
    #: the players whose row the run changed, each with the notification id of its last change
    marks: dict[str, int] = field(default_factory=dict)
    #: the results of the run (rows of ``ladder_results``), written with the ladder
    results: list[list[Any]] = field(default_factory=list)

    def blob(self) -> str:
        return json.dumps(
            {
                "table": self.table.to_dict(),
                "members": sorted(self.members),
                "left": sorted(self.left),
            },
            separators=(",", ":"),
        )

    @classmethod
    def of_row(cls, row: dict[str, Any]) -> LadderState:
        data = json.loads(row["state"])
        return cls(
            id=row["id"],
            club_id=row["club"],
            name=row["name"],
            system=row["system"],
            scenario=row["scenario"],
            settings=json.loads(row["settings"]),
            created_by=row["created_by"],
            created_at=row["created_at"],
            created=int(row["created"]),
            table=RatingTable.from_dict(data["table"]),
            members=set(data["members"]),
            left=set(data["left"]),
            position=int(row["position"]),
            changed_at=int(row["changed_at"]),
            replaced_at=int(row["replaced_at"]),
        )

    def changes(self) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, Any]]]]:
        """What the run changed, to be written with the ladder's row: its changed standings rows
        (each with its rank ``score`` and the notification id of its last change) and the history
        points of the periods it closed, as (user, point); the table keeps no history after."""
        table = self.table
        users = table.refresh() | set(self.marks)
        points = []
        for uid, player in table.players.items():
            for point in player.history:
                points.append((uid, point))
            player.history = []  # stored as rows, not in the table's state
        rows = []
        for uid in sorted(users):
            if uid in table.players:
                row = table.row(uid)
                rows.append(
                    row
                    | {
                        "provisional": int(table.is_active(uid)),
                        "shown": int(uid not in self.left),
                        "member": int(uid in self.members),
                        "score": rank_score(row["rating"], row["rd"]),
                        "position": self.marks.get(uid, self.changed_at),
                    }
                )
        return rows, points


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)
