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

In SQLite and PostgreSQL (:mod:`.base`): tables ``review_games`` (a game's system, sides, current
turn, end), ``review_rolls`` (each die with what it was worth), ``review_turns`` (each side's
standing as each turn ended) and ``review_sides`` (each side's luck figure), tracking
``review_games_tracking``. Everything is read by its game."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from functools import singledispatchmethod
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from service.domain.game import Game, copy_json
from service.rules.base import RulesEvent
from service.rules.luck import RollValue, side_figure
from service.rules.registry import UnknownSystem
from service.views.base import SqlView, Table
from service.views.kept_games import KeptGames

log = logging.getLogger(__name__)
#: what an event writes to the view, given its tracking record
Write = Callable[[Tracking], None]
#: games the projection keeps at the version it last applied (least recently used out first)
GAMES_KEPT = 512


class ReviewsView(SqlView):
    TABLES = (
        Table(
            "review_games",
            "game TEXT PRIMARY KEY, system TEXT NOT NULL, sides TEXT NOT NULL, "
            "turn INTEGER NOT NULL, status TEXT NOT NULL, result TEXT, ended_seq INTEGER",
        ),
        Table(
            "review_rolls",
            "game TEXT NOT NULL, idx INTEGER NOT NULL, seq INTEGER NOT NULL, "
            "turn INTEGER NOT NULL, roller TEXT NOT NULL, purpose TEXT NOT NULL, "
            "die INTEGER NOT NULL, sides INTEGER NOT NULL, value TEXT, value_seq INTEGER, "
            "PRIMARY KEY (game, idx)",
        ),
        Table(
            "review_turns",
            "game TEXT NOT NULL, turn INTEGER NOT NULL, seq INTEGER NOT NULL, "
            "tally TEXT NOT NULL, PRIMARY KEY (game, turn)",
        ),
        Table(
            "review_sides",
            "game TEXT NOT NULL, side TEXT NOT NULL, figure TEXT NOT NULL, unit TEXT NOT NULL, "
            "p_at_least TEXT NOT NULL, measured INTEGER NOT NULL, PRIMARY KEY (game, side)",
        ),
    )

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

    def add_game(self, row: dict[str, Any], tracking: Tracking) -> None:
        """A game created: ``game``, ``system``, ``sides`` ({side: user}), ``turn``."""
        self.write(
            tracking,
            (
                "INSERT INTO {review_games} (game, system, sides, turn, status) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game) DO NOTHING",
                [row["game"], row["system"], json.dumps(row["sides"]), row["turn"], "active"],
            ),
        )

    def add_rolls(self, game: str, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        """Dice rolled: each ``idx``, ``seq``, ``turn``, ``roller``, ``purpose``, ``die``,
        ``sides`` (a roll recorded again keeps its first row)."""
        statements = [
            (
                "INSERT INTO {review_rolls} (game, idx, seq, turn, roller, purpose, die, sides) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game, idx) DO NOTHING",
                [
                    game,
                    r["idx"],
                    r["seq"],
                    r["turn"],
                    r["roller"],
                    r["purpose"],
                    r["die"],
                    r["sides"],
                ],
            )
            for r in rows
        ]
        self.write(tracking, *statements)

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
        with self.batch(), self._in_batch_or(commit=True) as cursor:
            for value in values:
                self._run(
                    cursor,
                    "UPDATE {review_rolls} SET value = %s, value_seq = %s "
                    "WHERE game = %s AND idx = %s",
                    [json.dumps(value.as_dict()), seq, game, value.index],
                )
            if turn is not None:
                self._run(
                    cursor,
                    "INSERT INTO {review_turns} (game, turn, seq, tally) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (game, turn) DO UPDATE SET seq = excluded.seq, "
                    "tally = excluded.tally",
                    [game, turn["turn"], seq, json.dumps(turn["tally"], sort_keys=True)],
                )
                self._run(
                    cursor,
                    "UPDATE {review_games} SET turn = %s WHERE game = %s",
                    [turn["now"], game],
                )
            if values:
                self._figures(cursor, game)
            self._track(cursor, tracking)

    def retracted(self, game: str, seqs: list[int], turn: int, tracking: Tracking) -> None:
        """Events ``seqs`` no longer count: what they measured is forgotten (their dice stay
        rolled: reported with their distribution) and the game is at ``turn`` again."""
        if not seqs:
            self.insert_tracking(tracking)
            return
        marks = ", ".join(["%s"] * len(seqs))
        with self.batch(), self._in_batch_or(commit=True) as cursor:
            self._run(
                cursor,
                "UPDATE {review_rolls} SET value = NULL, value_seq = NULL "
                f"WHERE game = %s AND value_seq IN ({marks})",
                [game, *seqs],
            )
            self._run(cursor, "UPDATE {review_games} SET turn = %s WHERE game = %s", [turn, game])
            self._figures(cursor, game)
            self._track(cursor, tracking)

    def ended(
        self, game: str, seq: int, result: dict[str, Any], turn: dict[str, Any], tracking: Tracking
    ) -> None:
        self.write(
            tracking,
            (
                "INSERT INTO {review_turns} (game, turn, seq, tally) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (game, turn) DO UPDATE SET seq = excluded.seq, tally = excluded.tally",
                [game, turn["turn"], seq, json.dumps(turn["tally"], sort_keys=True)],
            ),
            (
                "UPDATE {review_games} SET status = %s, result = %s, ended_seq = %s "
                "WHERE game = %s",
                ["ended", json.dumps(result, sort_keys=True), seq, game],
            ),
        )

    def _run(self, cursor: Any, text: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        cursor.execute(self.sql(text), list(params))
        return []

    def _figures(self, cursor: Any, game: str) -> None:
        """Each side's figure summed again from the game's measured rolls (in this transaction)."""
        cursor.execute(self.sql("SELECT sides FROM {review_games} WHERE game = %s"), [game])
        found = cursor.fetchall()
        if not found:
            return
        sides = list(json.loads(dict(found[0])["sides"]))
        cursor.execute(
            self.sql("SELECT value FROM {review_rolls} WHERE game = %s AND value IS NOT NULL"),
            [game],
        )
        rows = [dict(r) for r in cursor.fetchall()]
        for side, figure in self.figures_of(rows, sides).items():
            cursor.execute(
                self.sql(
                    "INSERT INTO {review_sides} (game, side, figure, unit, p_at_least, measured) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (game, side) DO UPDATE SET "
                    "figure = excluded.figure, unit = excluded.unit, "
                    "p_at_least = excluded.p_at_least, measured = excluded.measured"
                ),
                [
                    game,
                    side,
                    repr(float(figure["figure"])),
                    figure["unit"],
                    repr(float(figure["p_at_least"])),
                    figure["measured"],
                ],
            )

    # -- reads ---------------------------------------------------------------------------------
    def game(self, game: str) -> dict[str, Any] | None:
        """The game's row (``system``, ``sides``, ``turn``, ``status``, ``result``)."""
        row = self.query_one("SELECT * FROM {review_games} WHERE game = %s", [game])
        if row is None:
            return None
        row["sides"] = json.loads(row["sides"])
        row["result"] = json.loads(row["result"]) if row.get("result") else None
        return row

    def rolls(self, game: str) -> list[dict[str, Any]]:
        """The game's dice by index: each row with ``value`` (a RollValue, or None)."""
        found = self.query("SELECT * FROM {review_rolls} WHERE game = %s ORDER BY idx", [game])
        for row in found:
            row["value"] = RollValue.from_dict(json.loads(row["value"])) if row["value"] else None
        return found

    def turns(self, game: str) -> list[dict[str, Any]]:
        """Each turn over (and the last at the end): ``turn``, ``seq``, ``tally``."""
        found = self.query("SELECT * FROM {review_turns} WHERE game = %s ORDER BY turn", [game])
        for row in found:
            row["tally"] = json.loads(row["tally"])
        return found

    def figures(self, games: list[str]) -> list[dict[str, Any]]:
        """Each side's luck in ``games``: ``game``, ``side``, ``figure``, ``unit``,
        ``p_at_least``, ``measured``, ``ended``."""
        if not games:
            return []
        marks = ", ".join(["%s"] * len(games))
        found = self.query(
            "SELECT s.*, g.status FROM {review_sides} s JOIN {review_games} g ON g.game = s.game "
            f"WHERE s.game IN ({marks}) ORDER BY s.game, s.side",
            list(games),
        )
        return [
            {
                "game": r["game"],
                "side": r["side"],
                "figure": float(r["figure"]),
                "unit": r["unit"],
                "p_at_least": float(r["p_at_least"]),
                "measured": int(r["measured"]),
                "ended": r["status"] == "ended",
            }
            for r in found
        ]


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
        self._games = KeptGames(lambda: self.store.repository, GAMES_KEPT)
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
            self._games.drop(event.originator_id)
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
        """The event's game just before it (``before``) or with it applied, from the games kept
        (:class:`KeptGames`)."""
        return self._games.before(event) if before else self._games.after(event)

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
