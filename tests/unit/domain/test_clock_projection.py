"""The correspondence clock as a projection of the Game's events (issue 17): it runs only for the
side to play, per move or per game turn, stands still on vacation and while the game waits for its
invited players, and a game rebuilt from its events has the same clock.  Time is the events' own
timestamps, set here by a fake clock; the rules are the Duel of tests/fixtures/duel (rule 1: red
and blue take turns, ``pass`` ends a turn, two turns make a round)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.domain import dice
from service.domain.errors import Conflict, Forbidden, Invalid, Unprocessable
from service.domain.game import DAY, Game, check_clock, low_threshold, projector
from tests.fixtures.duel import SYSTEM as DUEL
from tests.fixtures.duel.ports import duel_ports

PORTS = duel_ports()
ALICE, BOB = "u-alice", "u-bob"
SEED = dice.new_seed()
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeTime:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    @property
    def seconds(self) -> float:
        return self.now.timestamp()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTime]:
    fake = FakeTime()
    monkeypatch.setattr(Game.Event, "create_timestamp", staticmethod(fake))
    yield fake


def new_game(kind: str = "per-move", days: float = 2, invite: bool = False, **more: Any) -> Game:
    game = Game.start(
        system="duel",
        scenario="dawn",
        options={"first": "red"},
        sides={"red": ALICE, "blue": BOB},
        created_by=ALICE,
        seed=SEED,
        initial_state=DUEL.initial_state("dawn", {"first": "red"}),
        labels={"clock": check_clock({"kind": kind, "days": days, **more})},
        ports=PORTS,
    )
    if invite:
        game.invite(by=ALICE, ports=PORTS)
    return game


def act(game: Game, side: str, command: dict[str, Any]) -> None:
    game.execute(
        side=side, user=ALICE if side == "red" else BOB, command=command, seed=SEED, ports=PORTS
    )


def left(game: Game, side: str, now: float) -> float:
    read = game.clock_at(now)
    assert read is not None
    return float(read["sides"][side]["remaining_seconds"])


def rebuilt(game: Game) -> Game:
    return projector(PORTS)(None, list(game.pending_events))


def test_per_move_the_clock_runs_only_for_the_side_to_play(clock: FakeTime) -> None:
    game = new_game("per-move", days=2)
    clock.advance(hours=10)
    assert left(game, "red", clock.seconds) == 2 * DAY - 10 * 3600
    assert left(game, "blue", clock.seconds) == 2 * DAY  # blue does not play: its clock stands
    act(game, "red", {"type": "pass"})  # red's turn ends after 10 hours
    clock.advance(hours=30)
    assert left(game, "red", clock.seconds) == 2 * DAY - 10 * 3600  # stood still since
    assert left(game, "blue", clock.seconds) == 2 * DAY - 30 * 3600
    act(game, "blue", {"type": "pass"})
    clock.advance(hours=1)
    # red's next move has a fresh allowance (days per move)
    assert left(game, "red", clock.seconds) == 2 * DAY - 3600
    read = game.clock_at(clock.seconds)
    assert read is not None and [s for s, c in read["sides"].items() if c["running"]] == ["red"]


def test_per_turn_the_allowance_lasts_the_game_turn(clock: FakeTime) -> None:
    game = new_game("per-turn", days=3)
    clock.advance(hours=5)
    act(game, "red", {"type": "step", "distance": 1})
    clock.advance(hours=5)
    act(game, "red", {"type": "pass"})  # red spent 10 hours of round 1
    clock.advance(hours=20)
    assert left(game, "blue", clock.seconds) == 3 * DAY - 20 * 3600
    act(game, "blue", {"type": "pass"})  # round 2: every side's allowance is whole again
    assert left(game, "red", clock.seconds) == 3 * DAY
    assert left(game, "blue", clock.seconds) == 3 * DAY


def test_a_replay_of_the_log_gives_the_same_clock(clock: FakeTime) -> None:
    game = new_game("per-move", days=1, vacation_days=3)
    clock.advance(hours=3)
    act(game, "red", {"type": "pass"})
    clock.advance(hours=2)
    game.take_vacation(side="blue", user=BOB, days=1, ports=PORTS)
    clock.advance(hours=30)
    act(game, "blue", {"type": "pass"})
    clock.advance(hours=1)
    again = rebuilt(game)
    assert again.clock == game.clock
    assert again.clock_at(clock.seconds) == game.clock_at(clock.seconds)
    # blue played from hour 3 to hour 35, 24 of those hours on vacation: 8 hours counted
    assert game.clock is not None
    assert game.clock["sides"]["blue"]["remaining"] == DAY - 8 * 3600
    assert game.clock["sides"]["blue"]["vacation_left"] == 2


def test_the_clock_stands_still_while_the_game_waits_for_its_invited_players(
    clock: FakeTime,
) -> None:
    game = new_game("per-move", days=1, invite=True)
    clock.advance(days=5)
    assert left(game, "red", clock.seconds) == DAY  # nobody plays an invited game
    with pytest.raises(Conflict):
        act(game, "red", {"type": "pass"})
    with pytest.raises(Forbidden):
        game.accept_invitation(user=ALICE, ports=PORTS)  # the creator's own side needs no answer
    game.accept_invitation(user=BOB, ports=PORTS)
    assert game.status == "active"
    clock.advance(hours=1)
    assert left(game, "red", clock.seconds) == DAY - 3600


def test_expiry_is_recorded_once_and_the_forfeit_policy_ends_the_game(clock: FakeTime) -> None:
    game = new_game("per-move", days=1, on_timeout="forfeit")
    clock.advance(hours=23)
    assert game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS) == []
    clock.advance(hours=2)
    assert game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS) == ["red"]
    assert game.status == "ended" and game.result is not None
    assert game.result["reason"] == "timeout" and game.result["winner"] == "blue"
    assert game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS) == []
    assert rebuilt(game).result == game.result


def test_draws_resignation_and_vacations_refuse_what_the_rules_of_play_refuse(
    clock: FakeTime,
) -> None:
    game = new_game("per-move", days=1, vacation_days=2)
    game.offer_draw(side="red", user=ALICE, ports=PORTS)
    with pytest.raises(Conflict):
        game.offer_draw(side="red", user=ALICE, ports=PORTS)  # twice
    with pytest.raises(Forbidden):
        game.accept_draw(side="red", user=ALICE, seed=SEED, ports=PORTS)  # one's own offer
    with pytest.raises(Forbidden):
        game.resign(side="blue", user=ALICE, seed=SEED, ports=PORTS)  # not alice's side
    with pytest.raises(Unprocessable):
        game.take_vacation(side="blue", user=BOB, days=3, ports=PORTS)  # only 2 days left
    game.accept_draw(side="blue", user=BOB, seed=SEED, ports=PORTS)
    assert game.result == {
        "winner": None,
        "outcome": "draw",
        "level": "draw",
        "reason": "agreement",
    }
    assert game.seed == SEED


@pytest.mark.parametrize(
    ("clock_settings", "field"),
    [
        ({"kind": "per-move", "days": -2}, "clock.days"),
        ({"kind": "per-move"}, "clock.days"),
        ({"kind": "per-move", "days": True}, "clock.days"),
        ({"kind": "sudden", "days": 2}, "clock.kind"),
        ({"kind": "per-turn", "days": 2, "vacation_days": 1.5}, "clock.vacation_days"),
        ({"kind": "per-turn", "days": 2, "on_timeout": "coin"}, "clock.on_timeout"),
    ],
)
def test_a_bad_clock_names_its_field(clock_settings: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as refused:
        check_clock(clock_settings)
    assert field in refused.value.details


def test_a_dispute_that_pauses_the_game_stops_the_clock_without_a_fresh_allowance(
    clock: FakeTime,
) -> None:
    game = Game.start(
        system="duel",
        scenario="dawn",
        options={"first": "red"},
        sides={"red": ALICE, "blue": BOB},
        created_by=ALICE,
        seed=SEED,
        initial_state=DUEL.initial_state("dawn", {"first": "red"}),
        labels={"clock": check_clock({"kind": "per-move", "days": 2}), "pause_on_dispute": True},
        ports=PORTS,
    )
    act(game, "red", {"type": "step", "distance": 1})
    clock.advance(hours=6)
    act(game, "red", {"type": "pass"})
    clock.advance(hours=4)  # blue has used 4 hours of its move
    dispute = game.open_dispute(
        side="blue", user=BOB, seq=3, claim="too far", citations=[], ports=PORTS
    )
    clock.advance(days=3)  # the pause: nobody's clock runs
    assert left(game, "blue", clock.seconds) == 2 * DAY - 4 * 3600
    game.resolve_dispute(
        dispute=dispute,
        arbiter="u-carol",
        verdict="upheld",
        remedy=None,
        citations=[{"id": "duel:2"}],
        note="",
        club_ruling=None,
        ports=PORTS,
    )
    clock.advance(hours=1)  # the same move goes on: 5 hours used, not a fresh two days
    assert left(game, "blue", clock.seconds) == 2 * DAY - 5 * 3600
    assert rebuilt(game).clock == game.clock


def test_low_threshold_is_a_day_or_a_fifth_of_the_allowance_whichever_is_smaller() -> None:
    assert low_threshold(check_clock({"kind": "per-move", "days": 10})) == DAY
    assert low_threshold(check_clock({"kind": "per-move", "days": 2})) == 2 * DAY / 5
    assert low_threshold(check_clock({"kind": "per-move", "days": 2, "low_hours": 6})) == 6 * 3600
    with pytest.raises(Invalid) as refused:
        check_clock({"kind": "per-move", "days": 2, "low_hours": -1})
    assert "clock.low_hours" in refused.value.details


def test_a_low_clock_is_recorded_once_per_move_and_only_for_the_side_to_play(
    clock: FakeTime,
) -> None:
    game = new_game("per-move", days=1)  # low below a fifth of a day: 4.8 hours
    clock.advance(hours=19)
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []  # 5 hours left
    clock.advance(hours=1)
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == ["red"]
    clock.advance(hours=1)
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []  # once per move
    assert [type(e).__name__ for e in game.pending_events].count("ClockLow") == 1
    act(game, "red", {"type": "pass"})
    clock.advance(hours=20)
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == ["blue"]  # not red: it waits
    act(game, "blue", {"type": "pass"})
    clock.advance(hours=20)
    # red's next move has a fresh allowance and a fresh warning
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == ["red"]
    again = rebuilt(game)
    assert again.clock == game.clock
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []
    assert again.warn_low_clock(now=clock.seconds, ports=PORTS) == []


def test_a_clock_that_ran_out_is_not_also_reported_low(clock: FakeTime) -> None:
    game = new_game("per-turn", days=1)
    clock.advance(hours=25)
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []
    assert game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS) == ["red"]
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []
