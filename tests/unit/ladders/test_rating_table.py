"""Rating periods, provisional ratings, inactivity and the learned side adjustment."""

from __future__ import annotations

import pytest

from service.domain.ratings import glicko2
from service.domain.ratings.sides import SideAdjustment, expected_score
from service.domain.ratings.table import RatingTable

DAY = 86400.0


def table(**kw: object) -> RatingTable:
    values: dict[str, object] = {"epoch": 0.0, "period_seconds": 7 * DAY}
    values.update(kw)
    return RatingTable(**values)  # type: ignore[arg-type]


def test_a_period_of_three_games_matches_the_glicko2_example() -> None:
    """The paper's example played out in a ladder: the opponents' ratings come from earlier periods."""
    t = table(apply_sides=False)
    t.join("p")
    start = {"a": (1400, 30), "b": (1550, 100), "c": (1700, 300)}
    for user, (rating, rd) in start.items():
        t.join(user)
        t.players[user].mu, t.players[user].phi = (rating - 1500) / glicko2.SCALE, rd / 173.7178
    t.players["p"].phi = 200 / glicko2.SCALE
    t.record(1, {"red": "p", "blue": "a"}, "red", "s")
    t.record(2, {"red": "p", "blue": "b"}, "blue", "s")
    t.record(3, {"red": "p", "blue": "c"}, "blue", "s")
    row = next(r for r in t.standings() if r["user"] == "p")
    assert (row["rating"], row["rd"]) == (1464.05, 151.52)  # 1464.0507 unrounded (paper: 1464.06)
    assert t.history("p")[-1]["provisional"] is True
    t.record(8 * DAY, {"red": "a", "blue": "b"}, None, "s")  # the next period closes the first
    history = t.history("p")
    assert history == [
        {"period": 0, "rating": 1464.05, "rd": 151.52, "volatility": 0.059996, "provisional": False}
    ]


def test_provisional_ratings_equal_the_final_ones_when_the_period_closes() -> None:
    t = table()
    t.record(10, {"red": "ann", "blue": "bob"}, "red", "s")
    before = {r["user"]: r["rating"] for r in t.standings()}
    t.record(7 * DAY + 1, {"red": "cat", "blue": "dan"}, "blue", "s")
    after = {r["user"]: r["rating"] for r in t.standings()}
    assert before["ann"] == after["ann"] > 1500 > after["bob"] == before["bob"]


def test_a_player_who_sits_out_periods_gains_deviation_not_rating() -> None:
    t = table()
    t.record(10, {"red": "ann", "blue": "bob"}, "red", "s")
    t.record(7 * DAY, {"red": "cat", "blue": "dan"}, "blue", "s")
    rd_after_one = next(r for r in t.standings() if r["user"] == "ann")["rd"]
    rating = next(r for r in t.standings() if r["user"] == "ann")["rating"]
    t.record(5 * 7 * DAY, {"red": "cat", "blue": "dan"}, "blue", "s")
    row = next(r for r in t.standings() if r["user"] == "ann")
    assert row["rating"] == rating and row["rd"] > rd_after_one


def test_standings_rank_by_rating_and_count_results() -> None:
    t = table()
    t.join("eve")
    t.record(1, {"red": "ann", "blue": "bob"}, "red", "s")
    t.record(2, {"red": "ann", "blue": "bob"}, None, "s")
    rows = t.standings()
    assert [r["user"] for r in rows] == ["ann", "eve", "bob"]
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert (rows[0]["wins"], rows[0]["draws"], rows[0]["losses"]) == (1, 1, 0)
    assert rows[1]["games"] == 0 and rows[1]["rating"] == 1500


def test_side_adjustment_learns_that_a_side_wins_more_often() -> None:
    adj = SideAdjustment()
    for _ in range(60):
        adj.observe("siege", {"attacker": 1500, "defender": 1500}, "attacker")
        adj.observe("siege", {"attacker": 1500, "defender": 1500}, "attacker")
        adj.observe("siege", {"attacker": 1500, "defender": 1500}, "defender")
    delta = adj.delta_for("siege", "attacker")
    # two wins in three between equal players is worth about 120 points (400 log10 2)
    assert 80 < delta < 170
    assert adj.delta_for("siege", "defender") == -delta
    assert expected_score(1500, 1500, delta) == pytest.approx(2 / 3, abs=0.08)
    assert adj.scenarios["siege"].as_dict()["favoured"] == "attacker"


def test_a_win_on_the_favoured_side_earns_less_when_the_adjustment_applies() -> None:
    def play(apply: bool) -> float:
        t = table(apply_sides=apply)
        for i in range(50):  # the attacker always wins: the scenario favours it
            t.record(i, {"attacker": f"a{i}", "defender": f"d{i}"}, "attacker", "siege")
        t.record(100, {"attacker": "x", "defender": "y"}, "attacker", "siege")
        return next(r for r in t.standings() if r["user"] == "x")["rating"]

    assert play(True) < play(False)
