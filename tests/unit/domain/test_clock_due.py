"""``Game.clock_due`` (issue 27, the clocks view): the first moment at which the clock checks would
record something -- a running clock's expiry or its low warning, pushed on by vacations, a warning
waiting for a vacation's end -- checked against what ``expire_clock`` and ``warn_low_clock`` do on
copies of random games of the Duel (tests/fixtures/duel): nothing before it, something at it."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.domain.errors import Conflict, Forbidden, Unprocessable
from service.domain.game import DAY, Game
from tests.unit.domain.test_clock_projection import (
    ALICE,
    BOB,
    PORTS,
    SEED,
    FakeTime,
    act,
    new_game,
)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTime]:
    fake = FakeTime()
    monkeypatch.setattr(Game.Event, "create_timestamp", staticmethod(fake))
    yield fake


def records(game: Game, at: float, warn: bool = True) -> list[str]:
    """What a clock check at ``at`` would record on a copy of ``game``."""
    probe = copy.deepcopy(game)
    found = probe.expire_clock(now=at, seed=SEED, ports=PORTS)
    return found + (probe.warn_low_clock(now=at, ports=PORTS) if warn else [])


def check_due(game: Game, now: float, rnd: random.Random) -> float | None:
    due = game.clock_due(now)
    if due is None:
        for later in (now + 1, now + 40 * DAY, now + 400 * DAY):
            assert records(game, later) == [], (later - now, game.clock)
        return None
    assert due >= now
    for moment in sorted(rnd.uniform(now, due) for _ in range(5)):
        if moment < due - 1e-3:
            assert records(game, moment) == [], (due - moment, game.clock)
    assert records(game, due + 1e-3) != [], (due - now, game.clock)
    return due


def play(game: Game, clock: FakeTime, rnd: random.Random, steps: int) -> None:
    """Random commands, vacations and checks at random times."""
    for _ in range(steps):
        clock.advance(hours=rnd.choice([0.5, 3, 10, 20, 30]))
        side = rnd.choice(["red", "blue"])
        user = ALICE if side == "red" else BOB
        roll = rnd.random()
        try:
            if roll < 0.5:
                act(game, side, {"type": "pass"})
            elif roll < 0.7:
                game.take_vacation(side=side, user=user, days=rnd.randint(1, 2), ports=PORTS)
            elif roll < 0.85:
                game.warn_low_clock(now=clock.seconds, ports=PORTS)
            else:
                game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS)
        except (Conflict, Forbidden, Unprocessable):
            pass
        if game.status != "active":
            return


@pytest.mark.parametrize("seed", range(60))
def test_the_due_time_is_when_a_check_first_records_something(clock: FakeTime, seed: int) -> None:
    rnd = random.Random(seed)
    settings: dict[str, Any] = {
        "kind": rnd.choice(["per-move", "per-turn"]),
        "days": rnd.choice([1, 2, 0.5]),
        "vacation_days": rnd.choice([0, 3, 10]),
        "on_timeout": rnd.choice(["claim", "forfeit"]),
    }
    if rnd.random() < 0.3:
        settings["low_hours"] = rnd.choice([1, 30, 60])  # 30, 60: low from the start
    game = new_game(**settings)
    play(game, clock, rnd, rnd.randint(0, 8))
    now = clock.seconds + rnd.choice([0, 3600, 5 * 3600])
    # the checks, each at the moment the one before said
    for _ in range(4):
        due = check_due(game, now, rnd)
        if due is None:
            return
        now = due + 1e-3
        game.expire_clock(now=now, seed=SEED, ports=PORTS)
        game.warn_low_clock(now=now, ports=PORTS)


def test_a_warning_due_on_vacation_waits_for_its_end(clock: FakeTime) -> None:
    game = new_game("per-move", days=1, vacation_days=3, low_hours=48)  # low from the start
    assert game.clock_due(clock.seconds) == clock.seconds
    game.take_vacation(side="red", user=ALICE, days=2, ports=PORTS)
    clock.advance(hours=1)
    assert game.clock_due(clock.seconds) == clock.seconds - 3600 + 2 * DAY
    assert game.warn_low_clock(now=clock.seconds, ports=PORTS) == []  # not while away


def test_no_deadline_while_nothing_runs_or_once_both_are_recorded(clock: FakeTime) -> None:
    invited = new_game("per-move", days=1, invite=True)
    assert invited.clock_due(clock.seconds + DAY) is None
    game = new_game("per-move", days=1)
    assert game.clock_due(clock.seconds) == clock.seconds + DAY - DAY / 5  # the low warning
    clock.advance(days=2)
    assert game.expire_clock(now=clock.seconds, seed=SEED, ports=PORTS) == ["red"]
    assert game.clock_due(clock.seconds) is None  # expired: no warning after, a claim is a player's
