"""The club event aggregate (service/domain/tournaments.py): its settings checked, its limits, a
round robin's rounds at the start, results scored once and only for its games, its end."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from service.domain.errors import Conflict, Invalid, LimitReached, Unprocessable
from service.domain.pairing import FIRST, SECOND
from service.domain.tournaments import MAX_PLAYERS, MAX_ROUND_ROBIN, Tournament

NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)


def event(**spec: Any) -> Tournament:
    return Tournament.create(
        club_id="club",
        spec={"name": "Autumn", "format": "swiss", "rounds": 3} | spec,
        system="skirmish",
        scenario="meeting",
        sides=["red", "blue"],
        options={},
        clock=None,
        created_by="ann",
    )


def test_the_settings_are_checked_naming_each_field() -> None:
    with pytest.raises(Invalid) as caught:
        event(name=" ", format="knockout", round_days=0, scoring={"win": 1, "tie": 1})
    assert set(caught.value.details) == {"name", "format", "round_days", "scoring.tie"}
    with pytest.raises(Invalid) as caught:
        event(format="round_robin", rounds=3)
    assert set(caught.value.details) == {"rounds"}
    with pytest.raises(Invalid) as caught:
        event(scoring={"win": 1, "draw": 2})
    assert set(caught.value.details) == {"scoring"}
    assert event().scoring == {"win": 2, "draw": 1, "loss": 0, "bye": 2}


@pytest.mark.parametrize(
    ("fmt", "most"), [("swiss", MAX_PLAYERS), ("round_robin", MAX_ROUND_ROBIN)]
)
def test_an_event_holds_a_documented_number_of_players(fmt: str, most: int) -> None:
    e = event(format=fmt, rounds=3 if fmt == "swiss" else None)
    for n in range(most):
        e.join(f"p{n}", f"p{n}")
    with pytest.raises(LimitReached) as caught:
        e.join("late", "late")
    assert "players" in caught.value.details


def test_a_round_robin_plays_every_round_at_once_and_ends_with_its_last_result() -> None:
    e = event(format="round_robin", rounds=None)
    for p in ("a", "b", "c"):
        e.join(p, p)
    total, rounds = e.plan_start()
    assert total == 3 and len(rounds) == 3
    assert sorted(r.bye for r in rounds) == ["a", "b", "c"]  # each sits out once
    e.start("ann", total)
    with pytest.raises(Conflict):
        e.join("d", "d")  # started
    for n, rnd in enumerate(rounds):
        e.release(rnd, [f"g{n}"], "ann", NOW)
    with pytest.raises(Unprocessable) as caught:
        e.score("elsewhere", FIRST, "forfeit", "ann")
    assert "game" in caught.value.details
    e.score("g0", FIRST, "game", None)
    with pytest.raises(Conflict):
        e.score("g0", SECOND, "forfeit", "ann")  # scored once
    e.score("g1", None, "adjudication", "ann")
    assert e.status == "started"
    e.score("g2", SECOND, "game", None)
    assert e.status == "finished"
    points = {r["player"]: r["points"] for r in e.standings()}
    assert sum(points.values()) == 6  # three games of 2 points; sitting out scores nothing


def test_a_swiss_releases_its_next_round_only_when_the_current_one_is_done() -> None:
    e = event(rounds=2)
    for p in ("a", "b", "c", "d"):
        e.join(p, p)
    total, (first,) = e.plan_start()
    e.start("ann", total)
    e.release(first, ["g1", "g2"], "ann", NOW)
    with pytest.raises(Conflict) as caught:
        e.plan_next_round()
    assert "rounds" in caught.value.details
    e.score("g1", FIRST, "game", None)
    e.score("g2", SECOND, "forfeit", "ann")
    second = e.plan_next_round()
    met = {frozenset((p.first, p.second)) for p in first.pairings}
    assert not met & {frozenset((p.first, p.second)) for p in second.pairings}
    winners = {first.pairings[0].first, first.pairings[1].second}
    assert {p for pair in second.pairings[:1] for p in (pair.first, pair.second)} == winners
