"""Step losses: take a number of steps from units in a given order, reporting what is left over.

``mode`` ``"in_order"`` takes every step of the first unit before the next (losses fall on the
first-named unit); ``"one_each"`` takes one step from each unit in turn, round and round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class StepLoss:
    unit: str
    steps: int  # steps taken from this unit
    remaining: int  # steps the unit has left
    eliminated: bool


@dataclass(frozen=True)
class LossResult:
    losses: tuple[StepLoss, ...]
    unsatisfied: int  # steps that could not be taken (every unit is gone)

    @property
    def satisfied(self) -> bool:
        return self.unsatisfied == 0


def take_steps(units: Sequence[tuple[str, int]], steps: int, mode: str = "in_order") -> LossResult:
    """``units`` are ``(id, steps it has)`` in the order losses are taken."""
    if mode not in ("in_order", "one_each"):
        raise ValueError(f"mode must be 'in_order' or 'one_each', not {mode!r}")
    if steps < 0:
        raise ValueError("a loss cannot be negative")
    left = {unit: have for unit, have in units}
    taken = {unit: 0 for unit, _ in units}
    order = [unit for unit, _ in units]
    to_take = steps
    if mode == "in_order":
        for unit in order:
            take = min(to_take, left[unit])
            left[unit] -= take
            taken[unit] += take
            to_take -= take
    else:
        while to_take and any(left[unit] for unit in order):
            for unit in order:
                if to_take and left[unit]:
                    left[unit] -= 1
                    taken[unit] += 1
                    to_take -= 1
    losses = tuple(
        StepLoss(unit, taken[unit], left[unit], left[unit] == 0) for unit in order if taken[unit]
    )
    return LossResult(losses, to_take)
