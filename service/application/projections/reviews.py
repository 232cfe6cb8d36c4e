"""The reviews' view (issue 31): each game's dice with what each was worth
(:mod:`service.rules.luck`), each side's luck figure, and each side's standing at the end of every
turn -- what ``GET /api/games/<id>/review``, the after-action report and a player's profile read,
so no request measures the dice over a game's whole log.

:class:`ReviewsProjection` follows the games' creation, their dice, their rules events, their
retractions and their end.  A rules event is measured against the state just before it (the same
state the rules decided on), so the projection holds a bounded number of games in memory at the
version it last saw (least recently used out first: :data:`GAMES_KEPT`); a game not kept is loaded
from the store at the version before the event (its snapshot and a replay), the way the
notification process derives (``service.application.notifications``).  A rebuild replays the same
events against the same stored states: the same rows.
"""

from __future__ import annotations

import json
import logging
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from functools import singledispatchmethod
from typing import Any

from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.application.projections.view import View
from service.domain.game import Game, copy_json
from service.rules.base import RulesEvent
from service.rules.luck import RollValue, side_figure
from service.rules.registry import UnknownSystem

log = logging.getLogger(__name__)
#: what an event writes to the view, given its tracking record
Write = Callable[[Tracking], None]
#: games the projection keeps at the version it last applied (least recently used out first)
GAMES_KEPT = 512


class ReviewsView(View):
    @abstractmethod
    def add_game(self, row: dict[str, Any], tracking: Tracking) -> None:
        """A game created: ``game``, ``system``, ``sides`` ({side: user}), ``turn``."""

    @abstractmethod
    def add_rolls(self, game: str, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        """Dice rolled: each ``idx``, ``seq``, ``turn``, ``roller``, ``purpose``, ``die``,
        ``sides`` (a roll recorded again keeps its first row)."""

    @abstractmethod
    def measured(
        self,
        game: str,
        seq: int,
        values: list[RollValue],
        turn: dict[str, Any] | None,
        tracking: Tracking,
    ) -> None:
        """A rules event at ``seq`` measured ``values`` (each replaces what its roll was worth);
        ``turn``: a turn just over (``turn``, ``tally``), or None.  Then each side's figure is
        summed again from the game's measured rolls."""

    @abstractmethod
    def retracted(self, game: str, seqs: list[int], turn: int, tracking: Tracking) -> None:
        """Events ``seqs`` no longer count: what they measured is forgotten (their dice stay
        rolled: reported with their distribution) and the game is at ``turn`` again."""

    @abstractmethod
    def ended(
        self, game: str, seq: int, result: dict[str, Any], turn: dict[str, Any], tracking: Tracking
    ) -> None: ...

    @abstractmethod
    def game(self, game: str) -> dict[str, Any] | None:
        """The game's row (``system``, ``sides``, ``turn``, ``status``, ``result``)."""

    @abstractmethod
    def rolls(self, game: str) -> list[dict[str, Any]]:
        """The game's dice by index: each row with ``value`` (a RollValue, or None)."""

    @abstractmethod
    def turns(self, game: str) -> list[dict[str, Any]]:
        """Each turn over (and the last at the end): ``turn``, ``seq``, ``tally``."""

    @abstractmethod
    def figures(self, games: list[str]) -> list[dict[str, Any]]:
        """Each side's luck in ``games``: ``game``, ``side``, ``figure``, ``unit``,
        ``p_at_least``, ``measured``, ``ended``."""

    @staticmethod
    def figures_of(rows: list[dict[str, Any]], sides: list[str]) -> dict[str, dict[str, Any]]:
        """Each side's figure over a game's roll rows (``measured`` reads them)."""
        values = [RollValue.from_dict(json.loads(r["value"])) for r in rows if r.get("value")]
        out = {}
        for side in sides:
            found = side_figure(values, side)
            out[side] = {
                "figure": found["figure"],
                "unit": found["unit"],
                "p_at_least": found["p_at_least"],
                "measured": len(found["rolls"]),
            }
        return out


class ReviewsProjection(Projection[ReviewsView]):
    name = "reviews"
    topics = tuple(
        get_topic(cls)
        for cls in (Game.Created, Game.DiceRolled, Game.Recorded, Game.Retracted, Game.Ended)
    )
    #: a request never waits for this view: the worker brings it on (its lag shows on /healthz)
    seen_topics: tuple[str, ...] = ()

    def __init__(self, view: ReviewsView) -> None:
        super().__init__(view)
        self.store: Any = None
        self._games: OrderedDict[Any, Any] = OrderedDict()
        #: each event's write, measured by :meth:`prepare` before the view's transaction opens
        self._planned: dict[tuple[Any, int], Write] = {}

    def attach(self, store: Any) -> None:
        """The store whose games are loaded when one is not kept."""
        self.store = store

    def prepare(self, events: list[Any]) -> None:
        """Measure ``events`` (a run the runner is about to write) before the view's transaction
        opens: loading a game and measuring its dice is the slow part, and on SQLite the view's
        transaction holds the store's one writer, which every command's commit waits for (a run
        measured inside it made racing commands time out: 503).  :meth:`process_event` then only
        writes what was measured."""
        self._planned.clear()  # a run another runner wrote first leaves nothing behind
        for event in events:
            self._planned[(event.originator_id, event.originator_version)] = self._safe(event)

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Each game event, measured by :meth:`prepare` (else now), written."""
        key = (domain_event.originator_id, domain_event.originator_version)
        write = self._planned.pop(key, None) or self._safe(domain_event)
        write(tracking)

    def _safe(self, event: Any) -> Write:
        """The event's write; a game whose rules are not installed here (a plug-in removed) is
        passed over, logged, rather than holding the view up (its position is recorded)."""
        try:
            return self._plan(event)
        except UnknownSystem as exc:
            log.warning("reviews: game %s passed over: %s", event.originator_id, exc)
            self._games.pop(event.originator_id, None)
            return self.view.insert_tracking

    @singledispatchmethod
    def _plan(self, domain_event: Any) -> Write:
        return self.view.insert_tracking  # not a topic of this view: only the position

    @_plan.register
    def _(self, event: Game.Created) -> Write:
        game = self._advance(event)
        row = {
            "game": str(event.originator_id),
            "system": event.system,
            "sides": dict(event.sides),
            "turn": self._turn(game, game.state),
        }
        return lambda tracking: self.view.add_game(row, tracking)

    @_plan.register
    def _(self, event: Game.DiceRolled) -> Write:
        before = self._advance(event, before=True)
        turn = self._turn(before, before.state) if before is not None else 0
        rows = [
            {
                "idx": int(r["index"]),
                "seq": event.originator_version,
                "turn": turn,
                "roller": event.side,
                "purpose": str(r.get("purpose") or ""),
                "die": int(r["value"]),
                "sides": int(r["sides"]),
            }
            for r in event.rolls
        ]
        self._advance(event)
        return lambda tracking: self.view.add_rolls(str(event.originator_id), rows, tracking)

    @_plan.register
    def _(self, event: Game.Recorded) -> Write:
        before = self._advance(event, before=True)
        values: list[RollValue] = []
        turn_before = None
        if before is not None:
            rules = self.store.ports.rules(before.system)
            turn_before = self._turn(before, before.state)
            try:
                if rules.review is not None:  # else: every roll reported with its distribution
                    shown = RulesEvent(event.kind, copy_json(event.data))
                    values = rules.review.roll_values(shown, copy_json(before.state))
            except Exception:  # a measure's fault must not stop the view: logged, not measured
                log.exception("reviews: could not measure %s of game %s", event.kind, before.id)
        after = self._advance(event)
        over = None
        if after is not None and turn_before is not None:
            turn_after = self._turn(after, after.state)
            if turn_after != turn_before:
                over = {"turn": turn_before, "now": turn_after, "tally": self._tally(after)}
        if not values and over is None:
            return self.view.insert_tracking
        gid, seq = str(event.originator_id), event.originator_version
        return lambda tracking: self.view.measured(gid, seq, values, over, tracking)

    @_plan.register
    def _(self, event: Game.Retracted) -> Write:
        game = self._advance(event)
        turn = self._turn(game, game.state) if game is not None else 0
        seqs = list(event.seqs)
        return lambda tracking: self.view.retracted(str(event.originator_id), seqs, turn, tracking)

    @_plan.register
    def _(self, event: Game.Ended) -> Write:
        game = self._advance(event)
        last = {"turn": self._turn(game, game.state), "tally": self._tally(game)}
        gid, seq, result = str(event.originator_id), event.originator_version, dict(event.result)
        return lambda tracking: self.view.ended(gid, seq, result, last, tracking)

    # -- the games kept ----------------------------------------------------------------------------
    def _advance(self, event: Any, before: bool = False) -> Any:
        """The event's game just before it (``before``) or with it applied.  A kept game is brought
        forward from the store (the events between, of other topics) and kept again; one not kept
        is loaded at the version before the event, once."""
        repository: Any = self.store.repository
        gid, version = event.originator_id, event.originator_version
        game = self._games.pop(gid, None)
        if game is not None and game.version < version - 1:
            between = repository.event_store.get(gid, gt=game.version, lte=version - 1)
            try:
                game = repository.project(game, between)
            except OriginatorVersionError:
                game = None
        if game is not None and game.version not in (version - 1, version):
            game = None
        if game is None and version > 1:
            game = repository.get(gid, version=version - 1)
        if game is None or game.version == version - 1:
            if before:
                if game is not None:
                    self._keep(gid, game)
                return game
            game = repository.project(game, [event])
        self._keep(gid, game)
        return game

    def _keep(self, gid: Any, game: Any) -> None:
        self._games[gid] = game
        self._games.move_to_end(gid)
        while len(self._games) > GAMES_KEPT:
            self._games.popitem(last=False)

    def _turn(self, game: Any, state: Any) -> int:
        try:
            turn = self.store.ports.rules(game.system).phase(state).get("turn")
        except Exception:  # no phase to read (a state before set-up): turn 0
            return 0
        return int(turn) if isinstance(turn, int | float) else 0

    def _tally(self, game: Any) -> dict[str, Any]:
        review = self.store.ports.rules(game.system).review
        if review is None:
            return {}
        try:
            found = review.tally(game.state)
        except Exception:
            log.exception("reviews: no tally of game %s", game.id)
            return {}
        return {str(side): dict(values) for side, values in found.items()}
