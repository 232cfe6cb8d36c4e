"""Per-scenario side adjustment: how many rating points a scenario's sides are worth, learned from
the ladder's own results (see docs/ladders.md).

For each scenario the adjustment ``delta`` favours the first side in alphabetical order (a negative
delta favours the other).  After each result it moves like an Elo rating of the side:
``delta += K * (S - E)``, where ``S`` is the first side's score (1, 0.5, 0) and ``E`` its expected
score given both players' ratings at the start of the rating period and the current ``delta``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

K = 8.0
LIMIT = 400.0


def expected_score(rating_a: float, rating_b: float, delta: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-(rating_a + delta - rating_b) / 400.0))


@dataclass
class ScenarioSides:
    first: str
    second: str
    delta: float = 0.0
    results: int = 0
    wins: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "favoured": self.first if self.delta >= 0 else self.second,
            "sides": [self.first, self.second],
            "delta": round(self.delta, 2),
            "results": self.results,
            "wins": {self.first: 0, self.second: 0, "draw": 0} | self.wins,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything, to be stored (JSON) and read back by :meth:`from_dict`."""
        return {
            "first": self.first,
            "second": self.second,
            "delta": self.delta,
            "results": self.results,
            "wins": dict(self.wins),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioSides:
        return cls(
            data["first"], data["second"], data["delta"], data["results"], dict(data["wins"])
        )


class SideAdjustment:
    def __init__(self) -> None:
        self.scenarios: dict[str, ScenarioSides] = {}

    def to_dict(self) -> dict[str, Any]:
        return {name: s.to_dict() for name, s in self.scenarios.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SideAdjustment:
        found = cls()
        found.scenarios = {name: ScenarioSides.from_dict(s) for name, s in data.items()}
        return found

    def delta_for(self, scenario: str, side: str) -> float:
        """The points ``side`` is worth in ``scenario`` now (0 before any result)."""
        known = self.scenarios.get(scenario)
        if known is None:
            return 0.0
        return known.delta if side == known.first else -known.delta

    def observe(
        self, scenario: str, ratings: dict[str, float], winner: str | None
    ) -> ScenarioSides:
        """Learn from one result: ``ratings`` are the two sides' players' period-start ratings."""
        first, second = sorted(ratings)
        entry = self.scenarios.setdefault(scenario, ScenarioSides(first, second))
        score = 0.5 if winner is None else (1.0 if winner == first else 0.0)
        e = expected_score(ratings[first], ratings[second], entry.delta)
        entry.delta = max(-LIMIT, min(LIMIT, entry.delta + K * (score - e)))
        entry.results += 1
        key = winner or "draw"
        entry.wins[key] = entry.wins.get(key, 0) + 1
        return entry
