"""Quotas: what one user, or one club, may keep in the store and hold at once (README
"Configuration", docs/ladders.md "Quotas").

Stored bytes, clubs founded and scenarios made are counted in a :class:`Holdings` aggregate per
owner (its id derived from the owner, so it is read by key), changed in the same commit as the
thing it counts: the count costs the same whatever the history, holds across processes (a
concurrent change of the same holdings is a lost race, 409, nothing written) and a refusal writes
nothing.  What comes and goes (games in progress, open games, invitations waiting) is counted by
key in the persisted views instead (``service.application.quotas``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from service.domain.errors import LimitReached

HOLDINGS_NAMESPACE = uuid5(NAMESPACE_URL, "https://arbiter.invalid/holdings")
#: what a :class:`Holdings` counts
COUNTED = ("bytes", "clubs", "scenarios")
OWNER_KINDS = ("user", "club")


class Holdings(Aggregate):
    """How much one owner (a user or a club) holds of each of :data:`COUNTED`."""

    class Started(Aggregate.Created):
        owner_kind: str
        owner: str

        def apply(self, aggregate: Any) -> None:
            aggregate.owner_kind = self.owner_kind
            aggregate.owner = self.owner
            aggregate.counts = {}

    class Counted(Aggregate.Event):
        """``amount`` more of ``what`` (bytes of an image, one club, one scenario), for ``ref``
        (the image's SHA-256, the club's or the scenario's id)."""

        what: str
        amount: int
        ref: str

        def apply(self, aggregate: Any) -> None:
            aggregate.counts[self.what] = aggregate.counts.get(self.what, 0) + self.amount

    owner_kind: str
    owner: str
    counts: dict[str, int]

    def __init__(self) -> None:  # set by Started
        pass

    @staticmethod
    def id_for(owner_kind: str, owner: str) -> UUID:
        return uuid5(HOLDINGS_NAMESPACE, f"holdings:{owner_kind}:{owner}")

    @classmethod
    def start(cls, owner_kind: str, owner: str) -> Holdings:
        assert owner_kind in OWNER_KINDS, owner_kind
        return cls._create(  # type: ignore[no-any-return]
            cls.Started, id=cls.id_for(owner_kind, owner), owner_kind=owner_kind, owner=owner
        )

    def held(self, what: str) -> int:
        return int(self.counts.get(what, 0))

    def count(self, what: str, amount: int, ref: str, most: int, refusal: LimitReached) -> None:
        """Count ``amount`` more of ``what``; past ``most`` raise ``refusal`` (nothing counted)."""
        assert what in COUNTED, what
        if self.held(what) + amount > most:
            raise refusal
        self.trigger_event(self.Counted, what=what, amount=amount, ref=ref)


def megabytes(size: int) -> str:
    """``size`` bytes in words for a person: ``"200 MB"``, ``"52.7 MB"``."""
    value = size / (1024 * 1024)
    return f"{value:,.0f} MB" if value >= 10 or value == int(value) else f"{value:,.1f} MB"


@dataclass(frozen=True)
class Quotas:
    """The limits (README "Configuration": ``ARBITER_BYTES_PER_*``, ``ARBITER_*_PER_USER``)."""

    bytes_per_user: int = 200 * 1024 * 1024
    bytes_per_club: int = 500 * 1024 * 1024
    hotseat_per_user: int = 20
    seeks_per_user: int = 10
    invitations_per_user: int = 20
    invitations_per_pair: int = 5
    clubs_per_user: int = 5
    scenarios_per_user: int = 50
    scenarios_per_club: int = 100
