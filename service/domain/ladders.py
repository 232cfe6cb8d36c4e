"""Ladders: settings, players, challenges, face-to-face reports and results (each its own aggregate).

A ``LadderResult`` is keyed by where it came from (``uuid5(ladder, "game:<id>")`` and so on), so a
result can be recorded only once whichever worker records it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate

from service.domain.errors import Conflict, Forbidden, Invalid, Unprocessable
from service.domain.game import check_clock

RATING_SYSTEMS = ("glicko2",)
TAKEBACKS = ("never", "casual", "always")
DEFAULT_SETTINGS: dict[str, Any] = {
    "rating_system": "glicko2",
    "tau": 0.5,
    "rating_period_days": 7,
    "takeback": "never",
    "challenge_range": 3,
    "challenge_deadline_hours": 72,
    "disputes_pause": True,
    "side_adjustment": True,
    #: the correspondence clock of the ladder's games (service.domain.game.check_clock), or None
    "clock": None,
    #: game options every game of the ladder is created with (over the challenge's own): checked
    #: against the rules system by the application (LadderService.check_ladder_options)
    "options": {},
}
_NUMBERS: dict[str, tuple[type, float, float]] = {
    "tau": (float, 0.2, 1.2),
    "rating_period_days": (int, 1, 365),
    "challenge_range": (int, 1, 100),
    "challenge_deadline_hours": (int, 1, 24 * 60),
}
OPEN, ACCEPTED, DECLINED, FORFEITED = "open", "accepted", "declined", "forfeited"
REPORTED, CONFIRMED, REJECTED = "reported", "confirmed", "rejected"


#: what a setting's check gives: the value to keep and its problems by field (none: good)
_Checked = tuple[Any, dict[str, list[str]]]


def _one_of(choices: tuple[str, ...]) -> Callable[[str, Any], _Checked]:
    def check(key: str, value: Any) -> _Checked:
        return value, {} if value in choices else {key: [f"one of {', '.join(choices)}"]}

    return check


def _clock_setting(key: str, value: Any) -> _Checked:
    if value is None:
        return value, {}
    try:
        return check_clock(value), {}
    except Invalid as exc:  # each field named: settings.clock.days ...
        return value, dict(exc.details)


def _options_setting(key: str, value: Any) -> _Checked:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        return value, {key: ["an object: option name -> value"]}
    return dict(value), {}


def _flag_setting(key: str, value: Any) -> _Checked:
    return value, {} if isinstance(value, bool) else {key: ["true or false"]}


def _number_setting(key: str, value: Any) -> _Checked:
    kind, low, high = _NUMBERS[key]
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or (kind is int and value != int(value)) or not low <= value <= high:
        return value, {key: [f"{'an integer' if kind is int else 'a number'} {low}..{high}"]}
    return kind(value), {}


#: each setting's check, by setting
_SETTING_CHECKS: dict[str, Callable[[str, Any], _Checked]] = {
    "rating_system": _one_of(RATING_SYSTEMS),
    "takeback": _one_of(TAKEBACKS),
    "clock": _clock_setting,
    "options": _options_setting,
    "disputes_pause": _flag_setting,
    "side_adjustment": _flag_setting,
    **dict.fromkeys(_NUMBERS, _number_setting),
}


def check_settings(changes: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict:
    """``base`` (default: the defaults) with ``changes`` applied, every problem reported by field."""
    merged = dict(base or DEFAULT_SETTINGS)
    problems: dict[str, list[str]] = {}
    for key, value in changes.items():
        if key not in DEFAULT_SETTINGS:
            problems[key] = [f"unknown setting; known: {', '.join(DEFAULT_SETTINGS)}"]
        elif key in _SETTING_CHECKS:
            value, found = _SETTING_CHECKS[key](key, value)
            problems.update(found)
        merged[key] = value
    if problems:
        raise Invalid("invalid ladder settings", {f"settings.{k}": v for k, v in problems.items()})
    return merged


def result_id(ladder_id: UUID | str, source: str, source_id: UUID | str) -> UUID:
    return uuid5(UUID(str(ladder_id)), f"{source}:{source_id}")


def check_outcome(sides: Mapping[str, str], winner: str | None) -> None:
    if len(sides) != 2 or len(set(sides.values())) != 2:
        raise Unprocessable(
            "a ladder result has two sides played by two players",
            {"sides": ["two sides, two different players"]},
        )
    if winner is not None and winner not in sides:
        raise Unprocessable(
            f"no side {winner!r}", {"winner": [f"one of {', '.join(sides)} or null for a draw"]}
        )


def upcast_settings_v1_v2(state: dict[str, Any]) -> None:
    """Ladder settings recorded before the games' clock (2026-11-23, ``clock``) and the games'
    fixed options (``options``) were settings: a ladder then had neither (docs/upgrades.md)."""
    settings = dict(state["settings"])
    settings.setdefault("clock", None)
    settings.setdefault("options", {})
    state["settings"] = settings


class Ladder(Aggregate):
    class Created(Aggregate.Created):
        #: v2: ``settings`` carries every setting, ``clock`` and ``options`` included
        class_version = 2
        upcast_v1_v2 = staticmethod(upcast_settings_v1_v2)

        club_id: str
        name: str
        system: str
        scenario: str | None
        settings: dict[str, Any]
        created_by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.club_id = self.club_id
            aggregate.name = self.name
            aggregate.system = self.system
            aggregate.scenario = self.scenario
            aggregate.settings = dict(self.settings)
            aggregate.created_by = self.created_by
            aggregate.players = []

    class SettingsChanged(Aggregate.Event):
        #: v2, as :class:`Created`: ``settings`` is the whole of them after the change
        class_version = 2
        upcast_v1_v2 = staticmethod(upcast_settings_v1_v2)

        settings: dict[str, Any]
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.settings = dict(self.settings)

    class PlayerJoined(Aggregate.Event):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.players.append(self.user)

    class PlayerLeft(Aggregate.Event):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.players.remove(self.user)

    club_id: str
    name: str
    system: str
    scenario: str | None
    settings: dict[str, Any]
    created_by: str
    players: list[str]

    def __init__(self) -> None:  # attributes are set by Created.apply
        pass

    @classmethod
    def create(
        cls,
        *,
        club_id: str,
        name: str,
        system: str,
        scenario: str | None,
        settings: Mapping[str, Any],
        created_by: str,
    ) -> Ladder:
        name = " ".join((name or "").split())
        if not 1 <= len(name) <= 80:
            raise Invalid("invalid ladder name", {"name": ["1 to 80 characters"]})
        return cls._create(
            cls.Created,
            id=uuid4(),
            club_id=club_id,
            name=name,
            system=system,
            scenario=scenario,
            settings=check_settings(settings),
            created_by=created_by,
        )

    def change_settings(self, by: str, changes: Mapping[str, Any]) -> None:
        self.trigger_event(
            self.SettingsChanged, settings=check_settings(changes, self.settings), by=by
        )

    def join(self, user: str) -> None:
        if user in self.players:
            raise Conflict("already on the ladder", {"ladder": ["you already play this ladder"]})
        self.trigger_event(self.PlayerJoined, user=user)

    def leave(self, user: str) -> None:
        if user not in self.players:
            raise Conflict("not on the ladder", {"ladder": ["you do not play this ladder"]})
        self.trigger_event(self.PlayerLeft, user=user)

    def require_player(self, user: str, field: str = "ladder") -> None:
        if user not in self.players:
            raise Unprocessable("not a player of the ladder", {field: ["not on this ladder"]})


class Challenge(Aggregate):
    class Issued(Aggregate.Created):
        ladder_id: str
        challenger: str
        opponent: str
        scenario: str
        challenger_side: str | None
        options: dict[str, Any]
        deadline: str

        def apply(self, aggregate: Any) -> None:
            for key in ("ladder_id", "challenger", "opponent", "scenario", "challenger_side"):
                setattr(aggregate, key, getattr(self, key))
            aggregate.options = dict(self.options)
            aggregate.deadline = self.deadline
            aggregate.status = OPEN
            aggregate.game_id = None
            aggregate.sides = {}

    class Accepted(Aggregate.Event):
        by: str
        game_id: str
        sides: dict[str, str]

        def apply(self, aggregate: Any) -> None:
            aggregate.status = ACCEPTED
            aggregate.game_id = self.game_id
            aggregate.sides = dict(self.sides)

    class Declined(Aggregate.Event):
        by: str
        reason: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = DECLINED

    class Forfeited(Aggregate.Event):
        by: str
        result_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = FORFEITED

    ladder_id: str
    challenger: str
    opponent: str
    scenario: str
    challenger_side: str | None
    options: dict[str, Any]
    deadline: str
    status: str
    game_id: str | None
    sides: dict[str, str]

    def __init__(self) -> None:  # attributes are set by Issued.apply
        pass

    @classmethod
    def issue(
        cls,
        *,
        ladder_id: str,
        challenger: str,
        opponent: str,
        scenario: str,
        challenger_side: str | None,
        options: Mapping[str, Any],
        now: datetime,
        hours: int,
    ) -> Challenge:
        if challenger == opponent:
            raise Unprocessable("you cannot challenge yourself", {"opponent": ["yourself"]})
        return cls._create(
            cls.Issued,
            id=uuid4(),
            ladder_id=ladder_id,
            challenger=challenger,
            opponent=opponent,
            scenario=scenario,
            challenger_side=challenger_side,
            options=dict(options),
            deadline=(now + timedelta(hours=hours)).isoformat(),
        )

    def _check_open(self) -> None:
        if self.status != OPEN:
            raise Conflict(f"the challenge is {self.status}", {"challenge": [self.status]})

    def expired(self, now: datetime) -> bool:
        return now >= datetime.fromisoformat(self.deadline)

    def check_answer(self, by: str, now: datetime) -> None:
        self._check_open()
        if by != self.opponent:
            raise Forbidden("only the challenged player answers", {"challenge": ["not yours"]})
        if self.expired(now):
            raise Conflict("the deadline has passed", {"challenge": ["past its deadline"]})

    def accept(self, by: str, game_id: str, sides: Mapping[str, str], now: datetime) -> None:
        self.check_answer(by, now)
        self.trigger_event(self.Accepted, by=by, game_id=game_id, sides=dict(sides))

    def decline(self, by: str, reason: str, now: datetime) -> None:
        self.check_answer(by, now)
        self.trigger_event(self.Declined, by=by, reason=reason)

    def forfeit(self, by: str, now: datetime, *, is_admin: bool = False) -> UUID:
        """The unanswered challenge is lost by the challenged player; returns the result's id."""
        self._check_open()
        if by != self.challenger and not is_admin:
            raise Forbidden(
                "only the challenger or a club admin claims a forfeit", {"challenge": ["not yours"]}
            )
        if not self.expired(now):
            raise Conflict(
                "the challenged player may still answer",
                {"challenge": [f"the deadline is {self.deadline}"]},
            )
        rid = result_id(self.ladder_id, "forfeit", self.id)
        self.trigger_event(self.Forfeited, by=by, result_id=str(rid))
        return rid


class ResultReport(Aggregate):
    """A face-to-face game's result, reported by one player and confirmed by the other."""

    class Reported(Aggregate.Created):
        ladder_id: str
        reporter: str
        opponent: str
        scenario: str
        sides: dict[str, str]
        winner: str | None
        level: str

        def apply(self, aggregate: Any) -> None:
            for key in ("ladder_id", "reporter", "opponent", "scenario", "winner", "level"):
                setattr(aggregate, key, getattr(self, key))
            aggregate.sides = dict(self.sides)
            aggregate.status = REPORTED

    class Confirmed(Aggregate.Event):
        by: str
        result_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = CONFIRMED

    class Rejected(Aggregate.Event):
        by: str
        reason: str

        def apply(self, aggregate: Any) -> None:
            aggregate.status = REJECTED

    ladder_id: str
    reporter: str
    opponent: str
    scenario: str
    sides: dict[str, str]
    winner: str | None
    level: str
    status: str

    def __init__(self) -> None:  # attributes are set by Reported.apply
        pass

    @classmethod
    def report(
        cls,
        *,
        ladder_id: str,
        reporter: str,
        scenario: str,
        sides: Mapping[str, str],
        winner: str | None,
        level: str | None,
    ) -> ResultReport:
        check_outcome(sides, winner)
        if reporter not in sides.values():
            raise Forbidden("report only your own games", {"sides": ["you play no side"]})
        opponent = next(u for u in sides.values() if u != reporter)
        return cls._create(
            cls.Reported,
            id=uuid4(),
            ladder_id=ladder_id,
            reporter=reporter,
            opponent=opponent,
            scenario=scenario,
            sides=dict(sides),
            winner=winner,
            level=level or ("victory" if winner else "draw"),
        )

    def _check(self, by: str) -> None:
        if self.status != REPORTED:
            raise Conflict(f"the report is {self.status}", {"report": [self.status]})
        if by != self.opponent:
            raise Forbidden("only the opponent confirms or rejects", {"report": ["not yours"]})

    def confirm(self, by: str) -> UUID:
        self._check(by)
        rid = result_id(self.ladder_id, "report", self.id)
        self.trigger_event(self.Confirmed, by=by, result_id=str(rid))
        return rid

    def reject(self, by: str, reason: str) -> None:
        self._check(by)
        self.trigger_event(self.Rejected, by=by, reason=reason)


class LadderResult(Aggregate):
    """One rated result; its id says where it came from, so it is recorded once."""

    class Recorded(Aggregate.Created):
        ladder_id: str
        scenario: str
        sides: dict[str, str]
        winner: str | None
        level: str
        source: str  # "game", "report" or "forfeit"
        source_id: str

        def apply(self, aggregate: Any) -> None:
            for key in ("ladder_id", "scenario", "winner", "level", "source", "source_id"):
                setattr(aggregate, key, getattr(self, key))
            aggregate.sides = dict(self.sides)

    ladder_id: str
    scenario: str
    sides: dict[str, str]
    winner: str | None
    level: str
    source: str
    source_id: str

    def __init__(self) -> None:  # attributes are set by Recorded.apply
        pass

    @classmethod
    def record(
        cls,
        *,
        ladder_id: str,
        scenario: str,
        sides: Mapping[str, str],
        winner: str | None,
        level: str | None,
        source: str,
        source_id: str,
        timestamp: datetime | None = None,
    ) -> LadderResult:
        check_outcome(sides, winner)
        extra: dict[str, Any] = {"timestamp": timestamp} if timestamp else {}
        return cls._create(
            cls.Recorded,
            id=result_id(ladder_id, source, source_id),
            ladder_id=ladder_id,
            scenario=scenario,
            sides=dict(sides),
            winner=winner,
            level=level or ("victory" if winner else "draw"),
            source=source,
            source_id=source_id,
            **extra,
        )
