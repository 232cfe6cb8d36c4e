"""What every persisted view is: a tracking recorder (eventsourcing's) that can also say how many rows
it holds, be built under another name and be swapped in for its live tables."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager, nullcontext

from eventsourcing.persistence import TrackingRecorder


class View(TrackingRecorder, ABC):
    #: the view's first table (its tracking table is ``<table>_tracking``)
    table: str
    #: each of the view's tables by its own name, as this copy names it (a rebuild's differ)
    names: dict[str, str]

    def batch(self) -> AbstractContextManager[None]:
        """One transaction for the events processed inside (a view that cannot: one each)."""
        return nullcontext()

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
