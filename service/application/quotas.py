"""Quotas as a service (docs/ladders.md "Quotas"): a user's and a club's :class:`Holdings` (stored bytes,
clubs founded, scenarios made), charged in the same commit as what they count, and the refusals
of each limit (409 ``limit_reached`` naming the field and the limit; nothing written).

Each service calls one method at the top of its command and commits the holdings it is given back
with its own change (``store.commit(thing, *holdings)``)."""

from __future__ import annotations

from typing import Any

from eventsourcing.application import AggregateNotFoundError

from service.application.store import ArbiterStore
from service.domain.errors import LimitReached
from service.domain.quotas import Holdings, Quotas, megabytes


class QuotaService:
    def __init__(self, store: ArbiterStore, limits: Quotas | None = None) -> None:
        self.store = store
        self.limits = limits or Quotas()

    def holdings(self, owner_kind: str, owner: str) -> Holdings:
        """``owner``'s holdings, a copy to change (a new one if it holds nothing yet)."""
        try:
            found: Any = self.store.repository.get(
                Holdings.id_for(owner_kind, owner), deepcopy_from_cache=True
            )
        except AggregateNotFoundError:
            return Holdings.start(owner_kind, owner)
        assert isinstance(found, Holdings)
        return found

    def held(self, owner_kind: str, owner: str, what: str) -> int:
        try:
            found: Any = self.store.repository.get(
                Holdings.id_for(owner_kind, owner), deepcopy_from_cache=False
            )
        except AggregateNotFoundError:
            return 0
        assert isinstance(found, Holdings)
        return found.held(what)

    # -- the charges: each returns the holdings to commit with the change ------------------------
    def store_bytes(self, user: str, club: str, size: int, ref: str) -> list[Holdings]:
        """``size`` more bytes kept for ``user`` in ``club`` (a map image's, as stored)."""
        mine, theirs = self.holdings("user", user), self.holdings("club", club)
        for holdings, most, whose in (
            (mine, self.limits.bytes_per_user, "you keep"),
            (theirs, self.limits.bytes_per_club, "a club keeps"),
        ):
            now = holdings.held("bytes")
            holdings.count(
                "bytes",
                size,
                ref,
                most,
                LimitReached(
                    "no room left for this image",
                    {
                        "image": [
                            f"{whose} at most {megabytes(most)} of map images; this one "
                            f"({megabytes(size)}) would make {megabytes(now + size)}"
                        ]
                    },
                ),
            )
        return [mine, theirs]

    def found_club(self, user: str, club: str) -> list[Holdings]:
        mine = self.holdings("user", user)
        most = self.limits.clubs_per_user
        mine.count(
            "clubs",
            1,
            club,
            most,
            LimitReached(
                f"you have founded {mine.held('clubs')} clubs",
                {"name": [f"a user founds at most {most} clubs"]},
            ),
        )
        return [mine]

    def make_scenario(self, user: str, club: str, scenario: str) -> list[Holdings]:
        mine, theirs = self.holdings("user", user), self.holdings("club", club)
        for holdings, most, field, words in (
            (mine, self.limits.scenarios_per_user, "scenario", "a user makes"),
            (theirs, self.limits.scenarios_per_club, "club", "a club holds"),
        ):
            holdings.count(
                "scenarios",
                1,
                scenario,
                most,
                LimitReached(
                    "too many scenarios", {field: [f"{words} at most {most} club scenarios"]}
                ),
            )
        return [mine, theirs]
