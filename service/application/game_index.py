"""The game lists, read from the persisted games view (``projections.games``) a page at a time: the
games a reader may read, a player's, the invitations waiting for a user.

Requests only read the view (the worker keeps it; a request that changed a game waits for the view
to pass its own write, ``ArbiterStore.on_commit``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from service.domain.users import User
from service.views.base import cut_page
from service.views.games import PAGE_MAX, GameQuery, GamesView, Key, Reader
from service.views.runner import ProjectionRunner


class GameIndex:
    def __init__(
        self, runner: ProjectionRunner, clubs_of: Callable[[str], tuple[str, ...]]
    ) -> None:
        self.runner = runner
        self.clubs_of = clubs_of

    @property
    def _view(self) -> GamesView:
        view = self.runner.view
        assert isinstance(view, GamesView)
        return view

    def reader(self, user: User | None) -> Reader:
        """What ``user`` (None: a visitor) may read: public games, their own, their clubs', and
        as a site arbiter those of no club (``service.application.access``)."""
        if user is None:
            return Reader()
        uid = str(user.id)
        return Reader(uid, self.clubs_of(uid), "arbiter" in getattr(user, "roles", []))

    def page(
        self, query: GameQuery, *, limit: int = 50, after: Key | None = None
    ) -> tuple[list[dict[str, Any]], Key | None]:
        """A page of ``query``'s games, newest first, after the key ``after``, and the key to the
        next page (None: this was the last)."""
        limit = max(1, min(limit, PAGE_MAX))
        rows = self._view.select(query, limit + 1, after)
        return cut_page(rows, limit, lambda row: (row["created"], row["id"]))

    def every(self, query: GameQuery) -> Iterator[dict[str, Any]]:
        """Every game of ``query``, a page at a time (the operator's listing, the worker)."""
        after: Key | None = None
        while True:
            rows, after = self.page(query, limit=PAGE_MAX, after=after)
            yield from rows
            if after is None:
                return

    def created_count(self, creator: str, status: str, *, solo: bool = False) -> int:
        return self._view.created_count(creator, status, solo=solo)

    def pending_from(self, creator: str, invitee: str) -> int:
        return self._view.pending_from(creator, invitee)

    def invitations(self, user: User) -> list[dict[str, Any]]:
        """The invitations waiting for ``user``'s answer, newest first (at most a page)."""
        uid = str(user.id)
        query = GameQuery(reader=Reader(uid), player=uid, pending=True, status="invited")
        return self.page(query, limit=PAGE_MAX)[0]

    def row(self, game_id: str) -> dict[str, Any] | None:
        return self._view.row(game_id)
