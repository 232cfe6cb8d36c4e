"""The clocks' view: one row per timed game not yet over, keyed by when the clock checks must next
look at it (``due``), kept by :class:`ClocksProjection` from the game's events and by the clock
checks themselves (``service.application.lifecycle``).

The projection cannot read a clock (that takes the game's state), so every event of a game in the
view sets its ``due`` to the event's time -- "look now" -- with the event's version.  The clock
checks read the rows due (``due <= now``, by an index, a page at a time), load just those games,
record what ran out or runs low, and write the game's next deadline (:meth:`Game.clock_due`: the
running clock's expiry or its low warning, pushed on by vacations; NULL when no clock runs) with
the version they computed it at.  Both writes are conditional on the version, so the row holds the
deadline of the newest version either has seen: an event the projection processes after the check
read the game resets ``due`` to now; one the check already saw (it loaded a newer game than the
view had got to) leaves the check's deadline.  ``claim`` is whether a claim on time waits for an
arbiter (``Game.Claimed`` under the ``arbiter`` policy; ``Game.ClaimDecided`` clears it), with the
game's ``club``, so that the arbiters' queue reads those rows only.

In SQLite and PostgreSQL (:mod:`.base`): table ``clocks`` (tracking ``clocks_tracking``), read by
its index on ``(due, game)`` -- the rows due -- and on ``(claim, game)`` -- the claims waiting for
an arbiter. ``due`` is in microseconds since the epoch, NULL when no deadline is known to come (no
clock running)."""

from __future__ import annotations

from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.game import Game
from service.views.base import SqlView, Table, micros

PAGE = 100


COLUMNS = "game, version, due, claim, club"


class ClocksView(SqlView):
    """The ``clocks`` table; the projection's writes record their tracking in the same transaction,
    the clock checks' (:meth:`set_due`) record none."""

    TABLES = (
        Table(
            "clocks",
            "game TEXT PRIMARY KEY, version BIGINT NOT NULL, due BIGINT, "
            "claim INTEGER NOT NULL, club TEXT",
            indexes=(("by_due", "due, game"), ("by_claim", "claim, game")),
        ),
    )

    # -- the projection's writes ----------------------------------------------------------------------
    def add_game(self, game: str, version: int, due: int, club: str | None, t: Tracking) -> None:
        """A timed game, due at once (nothing if it is there)."""
        self.write(
            t,
            (
                f"INSERT INTO {{clocks}} ({COLUMNS}) VALUES (%s, %s, %s, 0, %s) "
                "ON CONFLICT (game) DO NOTHING",
                [game, version, due, club],
            ),
        )

    def touch(
        self, game: str, version: int, due: int, tracking: Tracking, *, claim: bool | None = None
    ) -> None:
        """An event of ``game`` at ``version``: due at once unless the row is already at that
        version or later; ``claim`` (not None) sets whether a claim waits for an arbiter."""
        statements: list[tuple[str, list[Any]]] = [
            (
                "UPDATE {clocks} SET due = %s, version = %s WHERE game = %s AND version < %s",
                [due, version, game, version],
            )
        ]
        if claim is not None:  # whatever the version: the clock checks never write it
            statements.append(
                ("UPDATE {clocks} SET claim = %s WHERE game = %s", [int(claim), game])
            )
        self.write(tracking, *statements)

    def remove(self, game: str, tracking: Tracking) -> None:
        self.write(tracking, ("DELETE FROM {clocks} WHERE game = %s", [game]))

    # -- the clock checks' write ----------------------------------------------------------------------
    def set_due(self, game: str, version: int, due: int | None) -> bool:
        """The clock checks' write: ``game``'s next deadline (None: none) as computed from the game
        at ``version`` -- unless the row has been moved past ``version`` meanwhile; whether it was
        written."""
        changed = self.execute(
            "UPDATE {clocks} SET due = %s, version = %s WHERE game = %s AND version <= %s",
            [due, version, game, version],
        )
        return changed > 0

    # -- reads ----------------------------------------------------------------------------------------
    def due(self, now: int, limit: int, after: tuple[int, str] | None) -> list[dict[str, Any]]:
        """Up to ``limit`` rows due at ``now`` (``due <= now``), earliest first, after the key
        ``(due, game)``."""
        where, args = "due <= %s", list[Any]([now])
        if after is not None:
            where += " AND (due > %s OR (due = %s AND game > %s))"
            args += [after[0], after[0], after[1]]
        return self.query(
            f"SELECT {COLUMNS} FROM {{clocks}} WHERE {where} ORDER BY due, game LIMIT %s",
            [*args, limit],
        )

    def claimed(self) -> list[dict[str, Any]]:
        """The rows whose claim on time waits for an arbiter."""
        return self.query(f"SELECT {COLUMNS} FROM {{clocks}} WHERE claim = 1 ORDER BY game")

    def row(self, game: str) -> dict[str, Any] | None:
        found = self.query(f"SELECT {COLUMNS} FROM {{clocks}} WHERE game = %s", [game])
        return found[0] if found else None

    def every(self) -> list[dict[str, Any]]:
        """Every row, by game (tests, comparisons with a rebuild)."""
        return self.query(f"SELECT {COLUMNS} FROM {{clocks}} ORDER BY game")


def _game_topics() -> tuple[str, ...]:
    """Every kind of game event but the rules' own (``Recorded``) and their dice (``DiceRolled``):
    those are always committed with the ``CommandAccepted`` that caused them, which resets the row
    already -- the clock checks load the game at its newest version whatever the row's."""
    skip = (Game.Event, Game.Recorded, Game.DiceRolled, Game.DiceReused)
    kinds = [
        value
        for value in vars(Game).values()
        if isinstance(value, type) and issubclass(value, Game.Event) and value not in skip
    ]
    return tuple(get_topic(cls) for cls in kinds)


class ClocksProjection(Projection[ClocksView]):
    name = "clocks"
    topics = _game_topics()
    #: the topics a writing request brings this view up to (``Projections.seen``): the arbiters'
    #: queue reads ``claim``; the rest is the worker's (its clock checks catch the view up first)
    seen_topics = tuple(get_topic(cls) for cls in (Game.Claimed, Game.ClaimDecided))

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        if isinstance(domain_event, Game.Event):
            self._touch(domain_event, tracking)
        else:
            self.view.insert_tracking(tracking)  # not a topic of this view: only the position

    def _touch(self, event: Game.Event, tracking: Tracking, claim: bool | None = None) -> None:
        self.view.touch(
            str(event.originator_id),
            event.originator_version,
            micros(event.timestamp),
            tracking,
            claim=claim,
        )

    @process_event.register
    def _(self, event: Game.Created, tracking: Tracking) -> None:
        labels = event.labels
        if not labels.get("clock"):
            self.view.insert_tracking(tracking)
            return
        self.view.add_game(
            str(event.originator_id),
            event.originator_version,
            micros(event.timestamp),
            labels.get("club"),
            tracking,
        )

    @process_event.register
    def _(self, event: Game.Ended, tracking: Tracking) -> None:
        self.view.remove(str(event.originator_id), tracking)

    @process_event.register
    def _(self, event: Game.InvitationDeclined, tracking: Tracking) -> None:
        self.view.remove(str(event.originator_id), tracking)  # the game never starts

    @process_event.register
    def _(self, event: Game.Claimed, tracking: Tracking) -> None:
        # under the ``claim`` and ``forfeit`` policies ``Ended`` follows in the same commit
        self._touch(event, tracking, claim=True)

    @process_event.register
    def _(self, event: Game.ClaimDecided, tracking: Tracking) -> None:
        self._touch(event, tracking, claim=False)
