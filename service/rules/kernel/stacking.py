"""Stacking: points per unit against limits per hex, reporting every violation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

U = TypeVar("U")


@dataclass(frozen=True)
class StackLimit(Generic[U]):
    """One limit: ``points(unit)`` summed over a hex must not exceed ``limit`` (a number or a
    function of the hex).  Several limits may apply at once (e.g. "3 units" and "2 artillery")."""

    name: str
    points: Callable[[U], float]
    limit: float | Callable[[str], float]

    def allowed(self, hex_: str) -> float:
        return self.limit(hex_) if callable(self.limit) else self.limit


@dataclass(frozen=True)
class StackViolation:
    hex: str
    limit: str
    total: float
    allowed: float

    def as_dict(self) -> dict[str, object]:
        return {"hex": self.hex, "limit": self.limit, "total": self.total, "allowed": self.allowed}


def check_stacking(
    stacks: Mapping[str, Sequence[U]], limits: Iterable[StackLimit[U]]
) -> list[StackViolation]:
    """Every (hex, limit) over its allowance, in hex then limit order."""
    limits = list(limits)
    violations = []
    for hex_ in sorted(stacks):
        for limit in limits:
            total = sum(limit.points(unit) for unit in stacks[hex_])
            allowed = limit.allowed(hex_)
            if total > allowed:
                violations.append(StackViolation(hex_, limit.name, total, allowed))
    return violations


def fits(
    hex_: str, present: Sequence[U], adding: Sequence[U], limits: Iterable[StackLimit[U]]
) -> bool:
    """Whether ``adding`` may join ``present`` in ``hex_`` within every limit."""
    return not check_stacking({hex_: [*present, *adding]}, limits)


def stacks_by_hex(units: Iterable[tuple[str, U]]) -> dict[str, list[U]]:
    """Group ``(hex, unit)`` pairs by hex."""
    stacks: dict[str, list[U]] = {}
    for hex_, unit in units:
        stacks.setdefault(hex_, []).append(unit)
    return stacks
