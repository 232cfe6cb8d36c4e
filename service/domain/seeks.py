"""Open games (seeks): a player offers a game anyone may join, or only a club's members.

Joining creates the game, active at once (the seeker asked for it, the joiner chose it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import uuid4

from eventsourcing.domain import Aggregate

from service.domain.errors import Conflict, Forbidden

OPEN, JOINED, CANCELLED = "open", "joined", "cancelled"


class Seek(Aggregate):
    class Opened(Aggregate.Created):
        by: str
        system: str
        scenario: str
        side: str
        options: dict[str, Any]
        labels: dict[str, Any]
        #: only members of this club may join (None: anyone)
        club: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.by = self.by
            aggregate.system = self.system
            aggregate.scenario = self.scenario
            aggregate.side = self.side
            aggregate.options = dict(self.options)
            aggregate.labels = dict(self.labels)
            aggregate.club = self.club
            aggregate.status = OPEN
            aggregate.joined_by = None
            aggregate.game_id = None

    class Joined(Aggregate.Event):
        user: str
        game_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = JOINED
            aggregate.joined_by = self.user
            aggregate.game_id = self.game_id

    class Cancelled(Aggregate.Event):
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = CANCELLED

    by: str
    system: str
    scenario: str
    side: str
    options: dict[str, Any]
    labels: dict[str, Any]
    club: str | None
    status: str
    joined_by: str | None
    game_id: str | None

    def __init__(self) -> None:  # attributes are set by Opened.apply
        pass

    @classmethod
    def open(
        cls,
        *,
        by: str,
        system: str,
        scenario: str,
        side: str,
        options: Mapping[str, Any],
        labels: Mapping[str, Any],
        club: str | None,
    ) -> Seek:
        return cls._create(
            cls.Opened,
            id=uuid4(),
            by=by,
            system=system,
            scenario=scenario,
            side=side,
            options=dict(options),
            labels=dict(labels),
            club=club,
        )

    def check_join(self, user: str, member: bool) -> None:
        if self.status != OPEN:
            raise Conflict(f"the open game is {self.status}", {"seek": [f"already {self.status}"]})
        if user == self.by:
            raise Conflict("you cannot join your own open game", {"seek": ["it is yours"]})
        if self.club is not None and not member:
            raise Forbidden(
                "only the club's members may join this game", {"seek": ["members only"]}
            )

    def join(self, user: str, game_id: str) -> None:
        self.trigger_event(self.Joined, user=user, game_id=game_id)

    def cancel(self, by: str) -> None:
        if by != self.by:
            raise Forbidden("only its author cancels an open game", {"seek": ["not yours"]})
        if self.status != OPEN:
            raise Conflict(f"the open game is {self.status}", {"seek": [f"already {self.status}"]})
        self.trigger_event(self.Cancelled, by=by)
