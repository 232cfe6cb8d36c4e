"""Who may read a game: one rule for every read path (the game list, the state now or at any
version, the events and their NDJSON export, the live stream, the audit, disputes and the rulings
linked to an event).

A game is private unless it was made ``public``.  It is readable by

- its players (those bound to a side, invited or not);
- for a club game (a club's, or a club ladder's): the club's members, its arbiters among them;
- for a game of no club: the site's arbiters, who rule on its disputes and claims;
- everyone, signed in or not, when it is public.

Anyone else is answered 404, as if the game did not exist: a private game's id is not confirmed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from uuid import UUID

from service.application.clubs import ClubService
from service.application.games import GameService
from service.domain.errors import NotFound
from service.domain.users import User


class GameAccess:
    def __init__(self, games: GameService, clubs: ClubService) -> None:
        self.games = games
        self.clubs = clubs

    def may_read(
        self,
        sides: Mapping[str, str],
        labels: Mapping[str, Any],
        user: User | None,
        clubs: dict[str, Any] | None = None,
    ) -> bool:
        """Whether ``user`` (None: a visitor) may read a game bound to ``sides`` with ``labels``
        (``clubs``: members already read, kept across the rows of one list)."""
        if labels.get("public"):
            return True
        if user is None:
            return False
        uid = str(user.id)
        if uid in sides.values():
            return True
        club = labels.get("club")
        members = self._members(str(club), clubs) if club else None
        if members is not None:
            return uid in members
        # a game of no club, or of a club this server does not know (imported from another
        # server's record: docs/game-record.md): the site's arbiters
        return "arbiter" in getattr(user, "roles", [])

    def _members(self, club: str, seen: dict[str, Any] | None) -> Any:
        """The club's members (None for a club this server does not know), read once per list
        (``seen``)."""
        if seen is not None and club in seen:
            return seen[club]
        try:
            members = self.clubs.get(club).members
        except NotFound:
            members = None
        if seen is not None:
            seen[club] = members
        return members

    def require(self, game_id: UUID | str, user: User | None) -> None:
        """Nothing when ``user`` may read the game; else the same 404 as an unknown game."""
        sides, labels = self.games.bindings(game_id)
        if not self.may_read(sides, labels, user):
            raise NotFound(f"no game {game_id}", {"game": ["unknown game"]})

    def readable_rows(
        self, rows: Iterable[dict[str, Any]], user: User | None
    ) -> list[dict[str, Any]]:
        """The rows of the game index (``sides``, ``club``, ``public``) ``user`` may read."""
        clubs: dict[str, Any] = {}  # each club's members read once, not once per game
        return [
            row
            for row in rows
            if self.may_read(
                row["sides"], {"club": row.get("club"), "public": row.get("public")}, user, clubs
            )
        ]
