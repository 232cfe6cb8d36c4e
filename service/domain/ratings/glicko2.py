"""Glicko-2, implemented from Mark E. Glickman, "Example of the Glicko-2 system" (2013),
http://www.glicko.net/glicko/glicko2.pdf.  Step numbers below are the paper's.

Ratings are kept on the Glicko-2 scale (``mu``, ``phi``, ``sigma``); ``Rating.rating`` and
``Rating.rd`` convert to the familiar Glicko scale (1500 +- 350)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # step 2: mu = (r - 1500) / 173.7178, phi = RD / 173.7178
BASE = 1500.0
INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
EPSILON = 0.000001  # the convergence tolerance of step 5
_PI2 = math.pi**2

#: one game of a rating period: the opponent's (mu, phi) at the period's start, and the score
Game = tuple[float, float, float]


@dataclass(frozen=True)
class Rating:
    mu: float
    phi: float
    sigma: float

    @classmethod
    def from_glicko(
        cls, rating: float = BASE, rd: float = INITIAL_RD, sigma: float = INITIAL_VOLATILITY
    ) -> Rating:
        return cls((rating - BASE) / SCALE, rd / SCALE, sigma)

    @property
    def rating(self) -> float:
        return self.mu * SCALE + BASE

    @property
    def rd(self) -> float:
        return self.phi * SCALE


INITIAL = Rating.from_glicko()


def g(phi: float) -> float:
    """Step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / _PI2)


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def variance_and_delta(mu: float, games: Sequence[Game]) -> tuple[float, float]:
    """Steps 3 and 4: the estimated variance v and the estimated improvement Delta."""
    inv_v = 0.0
    total = 0.0
    for mu_j, phi_j, score in games:
        gj = g(phi_j)
        e = 1.0 / (1.0 + math.exp(-gj * (mu - mu_j)))
        inv_v += gj * gj * e * (1.0 - e)
        total += gj * (score - e)
    v = 1.0 / inv_v
    return v, v * total


def new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility sigma', by the Illinois algorithm as the paper gives it."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    tau2 = tau * tau
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(
    mu: float, phi: float, sigma: float, games: Sequence[Game], tau: float = DEFAULT_TAU
) -> tuple[float, float, float]:
    """A player's (mu', phi', sigma') after a rating period with ``games`` (steps 3 to 8)."""
    if not games:  # step 6 alone: a player who did not compete
        return mu, math.sqrt(phi * phi + sigma * sigma), sigma
    v, delta = variance_and_delta(mu, games)
    sigma2 = new_volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)  # step 6
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu2 = mu + phi2 * phi2 * (delta / v)  # step 7: phi'^2 * sum g (s - E) = phi'^2 * Delta / v
    return mu2, phi2, sigma2


def update(
    player: Rating, results: Sequence[tuple[Rating, float]], tau: float = DEFAULT_TAU
) -> Rating:
    """``player``'s rating after a period: ``results`` are (opponent at the period's start, score)."""
    games = [(opp.mu, opp.phi, score) for opp, score in results]
    return Rating(*rate(player.mu, player.phi, player.sigma, games, tau))


def idle(phi: float, sigma: float, periods: int, ceiling: float = INITIAL_RD / SCALE) -> float:
    """phi after ``periods`` periods without games (step 6 repeated), never above the initial RD."""
    if periods <= 0:
        return phi
    return min(math.sqrt(phi * phi + periods * sigma * sigma), ceiling)
