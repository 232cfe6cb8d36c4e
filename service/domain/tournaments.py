"""Club events (tournaments): a round robin or a Swiss of one scenario, owned by a club.

Players join (or are invited by an admin) until the event starts; a round robin's rounds are all
released at its start ("concurrent"), a Swiss's one at a time.  Each game of a round is a club game
created with consent (the service's); its result comes back when the game ends, or from the club's
arbiter after the round's deadline (a forfeit or an adjudication).  Pairing, sides and scoring are
:mod:`service.domain.pairing`'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

from eventsourcing.domain import Aggregate

from service.domain.errors import Conflict, Invalid, LimitReached, Unprocessable
from service.domain.game import ADJUDICATIONS
from service.domain.pairing import (
    DEFAULT_SCORING,
    FIRST,
    SECOND,
    History,
    Pairing,
    PairingImpossible,
    Played,
    Round,
    round_robin,
    standings,
    swiss_round,
)

FORMATS = ("round_robin", "swiss")
OPEN, STARTED, FINISHED = "open", "started", "finished"
#: how a game's result was recorded: its end, or the club's arbiter after the deadline
SOURCES = ("game", *ADJUDICATIONS)
#: players a Swiss holds; a round robin, whose every game is created at its start, fewer (24: 276
#: games, 552 in a double round robin)
MAX_PLAYERS = 64
MAX_ROUND_ROBIN = 24
#: a Swiss's rounds, and a round's days
MAX_ROUNDS = 30
MAX_ROUND_DAYS = 365
#: a club's events not yet finished (open or started): one more is refused with 409
#: ``limit_reached`` until one finishes (docs/events.md)
RUNNING_PER_CLUB = 20


def _count_within(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a boolean) from ``low`` to ``high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _rounds_problems(fmt: Any, rounds: Any) -> dict[str, list[str]]:
    """A Swiss names its number of rounds; a round robin's follow from its players."""
    if fmt == "swiss":
        if not _count_within(rounds, 1, MAX_ROUNDS):
            return {"rounds": [f"a Swiss needs its number of rounds, 1..{MAX_ROUNDS}"]}
    elif rounds is not None and fmt in FORMATS:
        return {"rounds": ["only a Swiss sets its rounds (a round robin's follow its players)"]}
    return {}


def check_definition(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The event's settings, checked (400 naming each bad field) with defaults filled in."""
    problems: dict[str, list[str]] = {}
    name = " ".join(str(spec.get("name", "")).split())
    if not 1 <= len(name) <= 80:
        problems["name"] = ["1 to 80 characters"]
    fmt = spec.get("format")
    if fmt not in FORMATS:
        problems["format"] = [f"one of {', '.join(FORMATS)}"]
    rounds = spec.get("rounds")
    problems |= _rounds_problems(fmt, rounds)
    if fmt == "swiss" and spec.get("double"):
        problems["double"] = ["only a round robin is double"]
    days = spec.get("round_days", 7)
    if not _count_within(days, 1, MAX_ROUND_DAYS):
        problems["round_days"] = [f"days, 1..{MAX_ROUND_DAYS}"]
    scoring = dict(DEFAULT_SCORING) | dict(spec.get("scoring") or {})
    scoring.setdefault("bye", scoring["win"])
    for key, value in scoring.items():
        if key not in ("win", "draw", "loss", "bye"):
            problems[f"scoring.{key}"] = ["one of win, draw, loss, bye"]
        elif not _count_within(value, 0, 100):
            problems[f"scoring.{key}"] = ["an integer 0..100"]
    if not problems and not scoring["win"] >= scoring["draw"] >= scoring["loss"]:
        problems["scoring"] = ["a win scores at least a draw, a draw at least a loss"]
    if problems:
        raise Invalid("invalid event", problems)
    return {
        "name": name,
        "format": fmt,
        "rounds": rounds if fmt == "swiss" else None,
        "double": bool(spec.get("double")) if fmt == "round_robin" else False,
        "round_days": days,
        "scoring": scoring,
    }


class Tournament(Aggregate):
    class Created(Aggregate.Created):
        club_id: str
        name: str
        format: str
        system: str
        scenario: str
        sides: list[str]
        options: dict[str, Any]
        clock: dict[str, Any] | None
        rounds: int | None
        double: bool
        round_days: int
        scoring: dict[str, int]
        created_by: str
        #: the club's ladder that rates the event's games (None: not rated)
        ladder: str | None

        def apply(self, aggregate: Any) -> None:
            for key in (
                "club_id", "name", "format", "system", "scenario", "clock", "rounds",
                "double", "round_days", "created_by", "ladder",
            ):  # fmt: skip
                setattr(aggregate, key, getattr(self, key))
            aggregate.sides = list(self.sides)
            aggregate.options = dict(self.options)
            aggregate.scoring = dict(self.scoring)
            aggregate.status = OPEN
            aggregate.players = []
            aggregate.released = []
            aggregate.warned = []

    class PlayerJoined(Aggregate.Event):
        user: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.players.append(self.user)

    class PlayerRemoved(Aggregate.Event):
        user: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.players.remove(self.user)

    class Started(Aggregate.Event):
        by: str
        total_rounds: int

        def apply(self, aggregate: Any) -> None:
            aggregate.status = STARTED
            aggregate.rounds = self.total_rounds

    class RoundReleased(Aggregate.Event):
        """Round ``number`` (from 1): its games, each ``{"game", "first", "second"}`` (user ids
        on the event's first and second side), who sits out, and its deadline."""

        number: int
        games: list[dict[str, Any]]
        bye: str | None
        deadline: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.released.append(
                {
                    "number": self.number,
                    "games": [g | {"result": None} for g in self.games],
                    "bye": self.bye,
                    "deadline": self.deadline,
                    "released_at": self.timestamp.isoformat(),
                }
            )

    class GameScored(Aggregate.Event):
        """A game's result: the winning side's index (None: a draw), how it was recorded."""

        round: int
        game: str
        winner: int | None
        source: str
        by: str | None
        note: str

        def apply(self, aggregate: Any) -> None:
            for g in aggregate.released[self.round - 1]["games"]:
                if g["game"] == self.game:
                    g["result"] = {"winner": self.winner, "source": self.source, "note": self.note}

    class DeadlineNear(Aggregate.Event):
        round: int

        def apply(self, aggregate: Any) -> None:
            aggregate.warned.append(self.round)

    class Finished(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.status = FINISHED

    club_id: str
    name: str
    format: str
    system: str
    scenario: str
    sides: list[str]
    options: dict[str, Any]
    clock: dict[str, Any] | None
    rounds: int | None
    double: bool
    round_days: int
    scoring: dict[str, int]
    created_by: str
    ladder: str | None
    status: str
    players: list[str]
    released: list[dict[str, Any]]
    warned: list[int]

    def __init__(self) -> None:  # attributes are set by Created.apply
        pass

    @classmethod
    def create(
        cls,
        *,
        club_id: str,
        spec: Mapping[str, Any],
        system: str,
        scenario: str,
        sides: Sequence[str],
        options: Mapping[str, Any],
        clock: Mapping[str, Any] | None,
        created_by: str,
        ladder: str | None = None,
    ) -> Tournament:
        checked = check_definition(spec)
        if len(sides) != 2:
            raise Unprocessable(
                "an event's scenario has two sides", {"scenario": [f"its sides: {len(sides)}"]}
            )
        return cls._create(
            cls.Created,
            id=uuid4(),
            club_id=club_id,
            system=system,
            scenario=scenario,
            sides=list(sides),
            options=dict(options),
            clock=dict(clock) if clock else None,
            created_by=created_by,
            ladder=ladder,
            **checked,
        )

    # -- players ------------------------------------------------------------------------------------
    def _require_open(self, what: str) -> None:
        if self.status != OPEN:
            raise Conflict(f"the event has started: {what}", {"event": [f"status {self.status}"]})

    def join(self, user: str, by: str) -> None:
        self._require_open("nobody joins it now")
        if user in self.players:
            raise Conflict("already a player of the event", {"username": ["already playing"]})
        most = MAX_PLAYERS if self.format == "swiss" else MAX_ROUND_ROBIN
        if len(self.players) >= most:
            raise LimitReached("the event is full", {"players": [f"at most {most} players"]})
        self.trigger_event(self.PlayerJoined, user=user, by=by)

    def remove(self, user: str, by: str) -> None:
        self._require_open("its players stay")
        if user not in self.players:
            raise Unprocessable("not a player of the event", {"username": ["not playing"]})
        self.trigger_event(self.PlayerRemoved, user=user, by=by)

    # -- rounds -------------------------------------------------------------------------------------
    def history(self) -> History:
        history = History()
        for rnd in self.released:
            history.add(Round([Pairing(g["first"], g["second"]) for g in rnd["games"]], rnd["bye"]))
        return history

    def plan_start(self) -> tuple[int, list[Round]]:
        """The event's number of rounds and the rounds its start releases (every round of a round
        robin; a Swiss's first), or a 4xx naming why it cannot start."""
        self._require_open("it starts once")
        if len(self.players) < 2:
            raise Unprocessable(
                "an event starts with two players or more", {"players": [f"{len(self.players)}"]}
            )
        if self.format == "round_robin":
            rounds = round_robin(self.players, double=self.double)
            return len(rounds), rounds
        assert self.rounds is not None
        if self.rounds > len(self.players) - 1 + len(self.players) % 2:
            raise Unprocessable(
                "a Swiss with no rematch has at most one round fewer than its players (an odd "
                "number: as many rounds as players)",
                {"rounds": [f"at most {len(self.players) - 1 + len(self.players) % 2}"]},
            )
        return self.rounds, [self._swiss_next(1)]

    def _swiss_next(self, number: int) -> Round:
        points = {row["player"]: row["points"] for row in self.standings()}
        seed = {p: i for i, p in enumerate(self.players)}
        ranked = sorted(self.players, key=lambda p: (-points.get(p, 0), seed[p]))
        try:
            return swiss_round(ranked, points, self.history(), number)
        except PairingImpossible as exc:
            raise Unprocessable(
                f"the pairing of round {number} cannot be satisfied: {exc}",
                {"rounds": [str(exc)]},
            ) from None

    def plan_next_round(self) -> Round:
        """The next Swiss round, if it may be released now (raises otherwise)."""
        if self.status != STARTED:
            raise Conflict("the event is not running", {"event": [f"status {self.status}"]})
        if self.format != "swiss":
            raise Conflict(
                "a round robin's rounds are all released at its start",
                {"format": ["round_robin"]},
            )
        assert self.rounds is not None
        if len(self.released) >= self.rounds:
            raise Conflict(
                "every round is released", {"rounds": [f"{self.rounds} of {self.rounds}"]}
            )
        unfinished = self.unfinished()
        if unfinished:
            raise Conflict(
                "the current round has unfinished games: wait for them, or record their results",
                {"rounds": [f"{len(unfinished)} unfinished"]},
            )
        return self._swiss_next(len(self.released) + 1)

    def start(self, by: str, total: int) -> None:
        self._require_open("it starts once")
        self.trigger_event(self.Started, by=by, total_rounds=total)

    def release(self, rnd: Round, games: Sequence[str], by: str, now: datetime) -> None:
        """Record the next round with its games' ids (one per pairing, in order)."""
        deadline = now + timedelta(days=self.round_days)
        self.trigger_event(
            self.RoundReleased,
            number=len(self.released) + 1,
            games=[
                {"game": gid, "first": p.first, "second": p.second}
                for gid, p in zip(games, rnd.pairings, strict=True)
            ],
            bye=rnd.bye,
            deadline=deadline.isoformat(),
            by=by,
        )

    def unfinished(self) -> list[dict[str, Any]]:
        return [
            g | {"round": r["number"]}
            for r in self.released
            for g in r["games"]
            if g["result"] is None
        ]

    def find_game(self, game_id: str) -> tuple[int, dict[str, Any]]:
        for r in self.released:
            for g in r["games"]:
                if g["game"] == game_id:
                    return r["number"], g
        raise Unprocessable("no such game in the event", {"game": [f"{game_id} is not its game"]})

    def score(
        self, game_id: str, winner: int | None, source: str, by: str | None, note: str = ""
    ) -> None:
        if source not in SOURCES:
            raise Invalid("unknown source", {"kind": [", ".join(SOURCES[1:])]})
        number, game = self.find_game(game_id)
        if game["result"] is not None:
            raise Conflict("the game's result is recorded", {"game": ["already scored"]})
        if winner not in (None, FIRST, SECOND):
            raise Invalid("no such side", {"winner": ["a side of the scenario, or null"]})
        self.trigger_event(
            self.GameScored,
            round=number,
            game=game_id,
            winner=winner,
            source=source,
            by=by,
            note=note[:500],
        )
        if self.status == STARTED and len(self.released) == self.rounds and not self.unfinished():
            self.trigger_event(self.Finished)

    def warn(self, number: int) -> None:
        if number not in self.warned:
            self.trigger_event(self.DeadlineNear, round=number)

    # -- standings ----------------------------------------------------------------------------------
    def played(self) -> list[Played]:
        return [
            Played(g["first"], g["second"], g["result"]["winner"])
            for r in self.released
            for g in r["games"]
            if g["result"] is not None
        ]

    def byes(self) -> list[str]:
        # a round robin's idle player sits out without points; a Swiss's bye scores
        if self.format != "swiss":
            return []
        return [r["bye"] for r in self.released if r["bye"] is not None]

    def standings(self) -> list[dict[str, Any]]:
        paired = [(g["first"], g["second"]) for r in self.released for g in r["games"]]
        swiss = self.format == "swiss"
        return standings(
            self.players, self.played(), self.byes(), self.scoring, swiss=swiss, paired=paired
        )
