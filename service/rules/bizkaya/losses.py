"""Step losses (12, 13): the first on the leader, then spread -- no unit loses a second step
before every unit has lost one --, demoralized units last (6), the second echelon only when the
first cannot absorb them (4), artillery never (12)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Unit = dict[str, Any]


def ordered(
    units: Iterable[Unit], preference: Sequence[str] = (), first: str | None = None
) -> list[Unit]:
    """``units`` in the order they take losses: ``first`` (the leader), then those not
    demoralized, each group in the preferred order and then by id."""
    rank = {uid: i for i, uid in enumerate(preference)}

    def key(u: Unit) -> tuple[int, int, int, str]:
        return (
            u["id"] != first,
            bool(u["demoralized"]) and u["id"] != first,
            rank.get(u["id"], len(rank)),
            u["id"],
        )

    return sorted(units, key=key)


def spread(pools: Sequence[Sequence[Unit]], steps: int) -> tuple[list[dict[str, Any]], int]:
    """Take ``steps`` from the pools in turn, round by round within a pool: ``[{"unit", "steps"}]``
    and the steps no unit was left to take."""
    taken: dict[str, int] = {}
    for pool in pools:
        left = {u["id"]: u["steps"] for u in pool}
        while steps and any(left.values()):
            for unit in pool:
                if steps and left[unit["id"]]:
                    left[unit["id"]] -= 1
                    taken[unit["id"]] = taken.get(unit["id"], 0) + 1
                    steps -= 1
    return [{"unit": uid, "steps": n} for uid, n in taken.items()], steps
