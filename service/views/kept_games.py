"""The games a follower of the log keeps between events (issue 45: one cache, not one per follower).

A follower (the notification process, the reviews' view) reads each event it derives from with its
game just before or just after it.  Loading a game at a version is a snapshot and a replay; doing
it per event would cost a replay per event.  :class:`KeptGames` keeps the games met lately, each at
the version of the last event it took, least recently used out first, and brings a kept game
forward in place the way the store's own cache does: the events between (of topics the follower
does not follow: commands accepted, dice rolled ...) read from the store by key, then projected.
A game the store disagrees with (its versions do not follow) is loaded afresh, once."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from eventsourcing.domain import OriginatorVersionError


class Games(Protocol):
    """The store's repository as a follower reads games through it (``GameRepository``): a game
    at a version, its event store, and ``project`` to apply events to a game."""

    event_store: Any

    def get(self, aggregate_id: Any, *, version: int | None = None) -> Any: ...

    def project(self, game: Any, events: Any) -> Any: ...


class KeptGames:
    """At most ``most`` games, each at a recent version; ``repository()`` is the store's
    repository (attached after the follower is built, so asked for when needed), whose
    ``project`` applies events to a game (``service.application.store.GameRepository``)."""

    def __init__(self, repository: Callable[[], Games], most: int) -> None:
        self._repository = repository
        self.most = max(1, most)
        self._games: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def before(self, event: Any) -> Any:
        """``event``'s game just before it (None for a game's first event), kept."""
        version = event.originator_version
        game = self._brought(event)
        if game is not None and game.version != version - 1:
            game = None  # kept with the event applied already: the state before is read again
        if game is None and version > 1:
            game = self._repository().get(event.originator_id, version=version - 1)
        if game is not None:
            self._keep(event.originator_id, game)
        return game

    def after(self, event: Any) -> Any:
        """``event``'s game with it applied, kept."""
        repository = self._repository()
        version = event.originator_version
        game = self._brought(event)
        if game is None or game.version != version:
            if game is None and version > 1:
                game = repository.get(event.originator_id, version=version - 1)
            game = repository.project(game, [event])
        self._keep(event.originator_id, game)
        return game

    def follow(self, event: Any) -> None:
        """Apply an event to its game if the game is kept at the version just before it (a game
        not kept is not loaded for it; one kept further back is brought forward when needed)."""
        with self._lock:
            game = self._games.get(event.originator_id)
            if game is None or game.version != event.originator_version - 1:
                return
            del self._games[event.originator_id]  # kept again only once the event is applied
        self._keep(event.originator_id, self._repository().project(game, [event]))

    def drop(self, game_id: Any) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    # -- helpers -----------------------------------------------------------------------------------
    def _brought(self, event: Any) -> Any:
        """The kept game brought forward to just before ``event`` (or left at ``event``'s own
        version when it has it already); None when not kept, kept past it, or the store
        disagrees.  Taken out of the cache: kept again only once the caller is done with it."""
        gid, version = event.originator_id, event.originator_version
        with self._lock:
            game = self._games.pop(gid, None)
        if game is not None and game.version < version - 1:
            repository = self._repository()
            between = repository.event_store.get(gid, gt=game.version, lte=version - 1)
            try:
                game = repository.project(game, between)
            except OriginatorVersionError:
                game = None
        if game is not None and game.version not in (version - 1, version):
            game = None
        return game

    def _keep(self, gid: Any, game: Any) -> None:
        with self._lock:
            self._games[gid] = game
            self._games.move_to_end(gid)
            while len(self._games) > self.most:
                self._games.popitem(last=False)
