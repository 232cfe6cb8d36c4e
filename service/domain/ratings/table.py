"""A ladder's ratings and standings, computed from its results in order (pure Python).

Results fall into rating periods of a fixed length counted from the ladder's creation.  Within the
open period each player's shown rating is provisional: Glicko-2 applied to the player's rating at
the period's start and every game of the period so far.  When a result of a later period arrives the
open period closes: the provisional ratings become final (the same computation, so nothing shown
jumps), each goes into the player's history, and players who did not play only gain deviation
(Glicko-2 step 6, applied lazily for the periods they missed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service.domain.ratings import glicko2
from service.domain.ratings.glicko2 import SCALE
from service.domain.ratings.sides import SideAdjustment

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


def rank_score(rating: float, rd: float) -> int:
    """The rank order of a row as one integer: rating first, then the smaller deviation (ties then
    fall to the larger user id) -- the order of :func:`ranked`, of the ladders view's standings
    and of the Redis board."""
    return round(rating * 100) * 100_000 + (99_999 - round(rd * 100))


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` best first, numbered from 1: by rating, then the smaller deviation, then the larger
    user id (the order of a Redis sorted set read from the top)."""
    rows.sort(key=lambda r: (r["rating"], -r["rd"], r["user"]), reverse=True)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


@dataclass
class Player:
    user: str
    mu: float = glicko2.INITIAL.mu
    phi: float = glicko2.INITIAL.phi
    sigma: float = glicko2.INITIAL.sigma
    as_of: int = 0  # the period at whose start (mu, phi, sigma) hold
    games: list[glicko2.Game] = field(default_factory=list)
    shown: tuple[float, float, float] = (glicko2.INITIAL.mu, glicko2.INITIAL.phi, 0.06)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Everything, to be stored (JSON) and read back by :meth:`from_dict` (floats exactly:
        JSON writes the shortest repr that reads back the same float)."""
        return {
            "user": self.user,
            "mu": self.mu,
            "phi": self.phi,
            "sigma": self.sigma,
            "as_of": self.as_of,
            "games": [list(game) for game in self.games],
            "shown": list(self.shown),
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "history": [dict(point) for point in self.history],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Player:
        mu, phi, sigma = data["shown"]
        return cls(
            user=data["user"],
            mu=data["mu"],
            phi=data["phi"],
            sigma=data["sigma"],
            as_of=data["as_of"],
            games=[(g[0], g[1], g[2]) for g in data["games"]],
            shown=(mu, phi, sigma),
            wins=data["wins"],
            draws=data["draws"],
            losses=data["losses"],
            history=[dict(point) for point in data["history"]],
        )

    def at(self, period: int) -> tuple[float, float, float]:
        """(mu, phi, sigma) at the start of ``period``."""
        if period == self.as_of:
            return self.mu, self.phi, self.sigma
        return self.mu, glicko2.idle(self.phi, self.sigma, period - self.as_of), self.sigma


class RatingTable:
    def __init__(
        self,
        *,
        epoch: float,
        period_seconds: float,
        tau: float = glicko2.DEFAULT_TAU,
        apply_sides: bool = True,
    ) -> None:
        self.epoch = epoch
        self.period_seconds = period_seconds
        self.tau = tau
        self.apply_sides = apply_sides
        self.period = 0
        self.players: dict[str, Player] = {}
        self.sides = SideAdjustment()
        self.results = 0
        self._active: set[str] = set()
        self._dirty: set[str] = set()
        self._all_changed = False

    def to_dict(self) -> dict[str, Any]:
        """The table's whole state (JSON-ready), read back by :meth:`from_dict`; what
        :meth:`refresh` has not computed yet (its changed players) is kept too."""
        return {
            "epoch": self.epoch,
            "period_seconds": self.period_seconds,
            "tau": self.tau,
            "apply_sides": self.apply_sides,
            "period": self.period,
            "results": self.results,
            "players": [player.to_dict() for player in self.players.values()],
            "sides": self.sides.to_dict(),
            "active": sorted(self._active),
            "dirty": sorted(self._dirty),
            "all_changed": self._all_changed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RatingTable:
        table = cls(
            epoch=data["epoch"],
            period_seconds=data["period_seconds"],
            tau=data["tau"],
            apply_sides=data["apply_sides"],
        )
        table.period = data["period"]
        table.results = data["results"]
        table.players = {p["user"]: Player.from_dict(p) for p in data["players"]}
        table.sides = SideAdjustment.from_dict(data["sides"])
        table._active = set(data["active"])
        table._dirty = set(data["dirty"])
        table._all_changed = data["all_changed"]
        return table

    def is_active(self, user: str) -> bool:
        """Whether ``user`` played in the open period (their shown rating is provisional)."""
        return user in self._active

    def configure(self, *, period_seconds: float, tau: float, apply_sides: bool) -> None:
        self.period_seconds, self.tau, self.apply_sides = period_seconds, tau, apply_sides

    def period_of(self, timestamp: float) -> int:
        return max(self.period, int((timestamp - self.epoch) // self.period_seconds))

    def join(self, user: str) -> None:
        if user not in self.players:
            self.players[user] = Player(user, as_of=self.period)
            self._dirty.add(user)

    def record(
        self,
        timestamp: float,
        sides: Mapping[str, str],
        winner: str | None,
        scenario: str,
        *,
        learn_sides: bool = True,
    ) -> None:
        """One result: ``sides`` maps both sides to their players, ``winner`` a side or None (draw).
        ``learn_sides=False`` (forfeits) leaves the side adjustment alone."""
        period = self.period_of(timestamp)
        if period > self.period:
            self._close(period)
        (side_a, user_a), (side_b, user_b) = sorted(sides.items())
        self.join(user_a)
        self.join(user_b)
        pa, pb = self.players[user_a], self.players[user_b]
        mu_a, phi_a, _ = pa.at(period)
        mu_b, phi_b, _ = pb.at(period)
        score = DRAW if winner is None else (WIN if winner == side_a else LOSS)
        delta = self.sides.delta_for(scenario, side_a) / SCALE if self.apply_sides else 0.0
        pa.games.append((mu_b - delta, phi_b, score))
        pb.games.append((mu_a + delta, phi_a, 1.0 - score))
        if learn_sides:
            self.sides.observe(
                scenario, {side_a: mu_a * SCALE + 1500, side_b: mu_b * SCALE + 1500}, winner
            )
        for player, s in ((pa, score), (pb, 1.0 - score)):
            if s == WIN:
                player.wins += 1
            elif s == LOSS:
                player.losses += 1
            else:
                player.draws += 1
        self._active.update((user_a, user_b))
        self._dirty.update((user_a, user_b))
        self.results += 1

    def _close(self, new_period: int) -> None:
        for user in self._active:
            player = self.players[user]
            mu, phi, sigma = player.at(self.period)
            player.mu, player.phi, player.sigma = glicko2.rate(
                mu, phi, sigma, player.games, self.tau
            )
            player.as_of = self.period + 1
            player.games = []
            player.shown = (player.mu, player.phi, player.sigma)
            player.history.append(self._point(self.period, player.shown, provisional=False))
        self._active.clear()
        self.period = new_period
        self._all_changed = True

    def refresh(self) -> set[str]:
        """Compute the provisional ratings that changed; return every player whose row changed."""
        changed = set(self.players) if self._all_changed else set(self._dirty)
        for user in changed:
            player = self.players[user]
            mu, phi, sigma = player.at(self.period)
            if user in self._active:
                player.shown = glicko2.rate(mu, phi, sigma, player.games, self.tau)
            else:
                player.shown = (mu, phi, sigma)
        self._dirty.clear()
        self._all_changed = False
        return changed

    @staticmethod
    def _point(period: int, shown: tuple[float, float, float], provisional: bool) -> dict[str, Any]:
        mu, phi, sigma = shown
        return {
            "period": period,
            "rating": round(mu * SCALE + 1500, 2),
            "rd": round(phi * SCALE, 2),
            "volatility": round(sigma, 6),
            "provisional": provisional,
        }

    def row(self, user: str) -> dict[str, Any]:
        player = self.players[user]
        point = self._point(self.period, player.shown, user in self._active)
        return {
            "user": user,
            "rating": point["rating"],
            "rd": point["rd"],
            "volatility": point["volatility"],
            "games": player.wins + player.draws + player.losses,
            "wins": player.wins,
            "draws": player.draws,
            "losses": player.losses,
        }

    def standings(self) -> list[dict[str, Any]]:
        """Every player, best first (see :func:`ranked`)."""
        self.refresh()
        return ranked([self.row(user) for user in self.players])

    def history(self, user: str) -> list[dict[str, Any]]:
        """The player's rating at the end of each period played, then the provisional one."""
        self.refresh()
        player = self.players.get(user)
        if player is None:
            return []
        points = [dict(p) for p in player.history]
        if user in self._active:
            points.append(self._point(self.period, player.shown, provisional=True))
        return points
