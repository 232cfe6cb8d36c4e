"""Club rulings: decisions an arbiter turned into rules of the club's own, linked to event types.

The event log is their true store; the knowledge base's index only caches them."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from service.domain.errors import Unprocessable


class ClubRuling(Aggregate):
    class Made(Aggregate.Created):
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

        def apply(self, aggregate: Any) -> None:
            for name in ("club", "system", "heading", "text", "game", "dispute", "arbiter"):
                setattr(aggregate, name, getattr(self, name))
            aggregate.rule_refs = list(self.rule_refs)
            aggregate.event_types = list(self.event_types)
            aggregate.citations = list(self.citations)
            aggregate.made_on = self.timestamp.date().isoformat()
            aggregate.withdrawn = False

    class Withdrawn(Aggregate.Event):
        by: str
        reason: str

        def apply(self, aggregate: Any) -> None:
            aggregate.withdrawn = True

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
    withdrawn: bool

    def __init__(self) -> None:  # attributes are set by Made.apply
        pass

    @classmethod
    def make(
        cls,
        *,
        club: str,
        system: str,
        heading: str,
        text: str,
        rule_refs: list[str],
        event_types: list[str],
        game: str,
        dispute: str,
        arbiter: str,
        citations: list[dict[str, Any]],
        ruling_id: UUID | None = None,
    ) -> ClubRuling:
        problems: dict[str, list[str]] = {}
        if not text.strip():
            problems["club_ruling.text"] = ["required"]
        if not heading.strip():
            problems["club_ruling.heading"] = ["required"]
        if not event_types:
            problems["club_ruling.event_types"] = ["name at least one event type it governs"]
        if problems:
            raise Unprocessable(
                "a club ruling needs a heading, a text and the event types it governs", problems
            )
        return cls._create(
            cls.Made,
            id=ruling_id or uuid4(),
            club=club,
            system=system,
            heading=heading.strip(),
            text=text.strip(),
            rule_refs=list(rule_refs),
            event_types=list(event_types),
            game=game,
            dispute=dispute,
            arbiter=arbiter,
            citations=list(citations),
        )

    def withdraw(self, by: str, reason: str) -> None:
        if not self.withdrawn:
            self.trigger_event(self.Withdrawn, by=by, reason=reason)
