"""Glicko-2 against the worked example of Glickman, "Example of the Glicko-2 system" (2013):
a player rated 1500, RD 200, volatility 0.06, tau 0.5, plays 1400/30 (win), 1550/100 (loss) and
1700/300 (loss) in one rating period.

The paper prints its intermediate values rounded (g to 4 places, E to 3, mu' and phi' to 4) and
computes its later steps from those rounded figures; each assertion checks the published figure to
the precision the paper prints it (within one unit of its last digit)."""

from __future__ import annotations

import math

import pytest

from service.domain.ratings.glicko2 import (
    SCALE,
    Rating,
    expected,
    g,
    idle,
    new_volatility,
    rate,
    update,
)

PLAYER = Rating.from_glicko(1500, 200, 0.06)
OPPONENTS = [
    (Rating.from_glicko(1400, 30), 1.0),
    (Rating.from_glicko(1550, 100), 0.0),
    (Rating.from_glicko(1700, 300), 0.0),
]


def test_step2_converts_to_the_glicko2_scale() -> None:
    assert (round(PLAYER.mu, 4), round(PLAYER.phi, 4)) == (0.0, 1.1513)
    assert [round(o.mu, 4) for o, _ in OPPONENTS] == [-0.5756, 0.2878, 1.1513]
    assert [round(o.phi, 4) for o, _ in OPPONENTS] == [0.1727, 0.5756, 1.7269]


def test_step3_g_and_expected_scores_as_published() -> None:
    assert [round(g(o.phi), 4) for o, _ in OPPONENTS] == [0.9955, 0.9531, 0.7242]
    assert [round(expected(PLAYER.mu, o.mu, o.phi), 3) for o, _ in OPPONENTS] == [
        0.639,
        0.432,
        0.303,
    ]


def test_step5_volatility_from_the_published_v_and_delta() -> None:
    """The paper's step 5 starts from v = 1.7785 and Delta = -0.4834 and reaches sigma' = 0.05999."""
    sigma = new_volatility(1.1513, 0.06, 1.7785, -0.4834, 0.5)
    assert abs(sigma - 0.05999) < 0.00001


def test_worked_example_new_rating_1464_06_rd_151_52_volatility_0_05999() -> None:
    after = update(PLAYER, OPPONENTS, tau=0.5)
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    assert abs(after.sigma - 0.05999) < 0.00001
    assert abs(after.rating - 1464.06) < 0.01
    assert abs(after.rd - 151.52) < 0.01
    # step 8 applied to the published (rounded) mu' and phi' gives the published figures exactly
    assert f"{-0.2069 * SCALE + 1500:.2f}" == "1464.06"
    assert f"{0.8722 * SCALE:.2f}" == "151.52"


def test_step6_a_player_who_does_not_compete_only_gains_deviation() -> None:
    mu, phi, sigma = rate(PLAYER.mu, PLAYER.phi, PLAYER.sigma, [])
    assert (mu, sigma) == (PLAYER.mu, PLAYER.sigma)
    assert phi == pytest.approx(math.sqrt(PLAYER.phi**2 + 0.06**2))
    assert idle(PLAYER.phi, 0.06, 3) == pytest.approx(math.sqrt(PLAYER.phi**2 + 3 * 0.06**2))
    assert idle(PLAYER.phi, 0.06, 10_000) == pytest.approx(350 / SCALE)  # capped at the initial RD


def test_a_win_against_a_stronger_player_gains_more_than_against_a_weaker_one() -> None:
    strong = update(PLAYER, [(Rating.from_glicko(1700, 50), 1.0)])
    weak = update(PLAYER, [(Rating.from_glicko(1300, 50), 1.0)])
    assert strong.rating > weak.rating > PLAYER.rating
    assert update(PLAYER, [(Rating.from_glicko(1500, 50), 0.5)]).rating == pytest.approx(1500)
