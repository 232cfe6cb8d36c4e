"""What every persisted view is: a tracking recorder (eventsourcing's) that can also say how many rows
it holds, be built under another name and be swapped in for its live tables, and park an event it
cannot take (recorded with the error, in the store's own database, with the position past it)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from eventsourcing.persistence import Tracking, TrackingRecorder

K = TypeVar("K")
T = TypeVar("T")
#: the most rows a keyset page holds (``limit`` of a list's query is at most this)
PAGE_MAX = 100
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(moment: datetime) -> int:
    """``moment`` in microseconds since the epoch (how the views store times)."""
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(value: int) -> datetime:
    """A time the views store (microseconds since the epoch) as a datetime."""
    return EPOCH + timedelta(microseconds=int(value))


class View(TrackingRecorder, ABC):
    #: the view's first table (its tracking table is ``<table>_tracking``)
    table: str
    #: each of the view's tables by its own name, as this copy names it (a rebuild's differ)
    names: dict[str, str]

    def batch(self, *, tracked: bool = True) -> AbstractContextManager[None]:
        """One transaction for the events processed inside (a view that cannot: one each);
        ``tracked=False``: their positions are not recorded (a parked event applied again)."""
        return nullcontext()

    @abstractmethod
    def park(self, tracking: Tracking, event: dict[str, Any], error: str, at: str) -> None:
        """Park the event at ``tracking`` (``event``: its ``topic``, ``originator_id`` and
        ``originator_version``) with ``error`` at ``at``, and record the position past it, in
        one transaction."""

    @abstractmethod
    def parked(
        self,
        views: Sequence[str] | None = None,
        *,
        dropped: bool = False,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The events parked by ``views`` (views' :attr:`table`; default: every view of the
        database), by view and position (``dropped``: those dropped), each with ``view_name``
        and ``notification_id``."""

    @abstractmethod
    def unpark(self, position: int) -> None:
        """Remove this view's park record of the event at ``position``."""

    @abstractmethod
    def still_parked(self, position: int, error: str, at: str) -> None:
        """The parked event at ``position`` was tried again and failed with ``error``."""

    @abstractmethod
    def drop_parked(self, position: int, by: str, reason: str, at: str) -> int:
        """Drop the parked event at ``position``, recording who and why; how many (0 or 1)."""

    @abstractmethod
    def create_table(self) -> None:
        """Create the view's tables (and, unless it is being rebuilt, its indexes), if missing."""

    @abstractmethod
    def rows(self) -> int:
        """How many rows the view holds."""

    @abstractmethod
    def drop(self) -> None:
        """Drop the view's tables, if they exist."""

    @abstractmethod
    def replace(self, live: View) -> None:
        """In one transaction: drop ``live``'s tables, rename this view's to ``live``'s and make
        ``live``'s indexes (this view was built without them)."""


def page_limit(limit: int) -> int:
    """``limit`` within 1..``PAGE_MAX``."""
    return max(1, min(limit, PAGE_MAX))


def cut_page(
    rows: list[dict[str, Any]], limit: int, key: Callable[[dict[str, Any]], K]
) -> tuple[list[dict[str, Any]], K | None]:
    """A keyset page from ``rows`` read with ``limit + 1``: the first ``limit`` rows, and the key
    of the last of them when there was one more (the next page starts after it), else None."""
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (key(rows[-1]) if more and rows else None)


def every_page(read: Callable[[K | None], tuple[list[T], K | None]]) -> list[T]:
    """Every row of a keyset list, reading it a page at a time (``read(after)``: a page and the
    key to the next, None after the last) -- for the operator's lists and their tests; a request
    reads one page."""
    found: list[T] = []
    key: K | None = None
    while True:
        rows, key = read(key)
        found += rows
        if key is None:
            return found
