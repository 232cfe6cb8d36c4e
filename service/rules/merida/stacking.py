"""Rule 6: stacking.  Three ground units of any type plus two more artillery; three cavalry count as
one infantry; leaders (and air units, which are never on the map) do not count."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

LIMIT = 9  # three ground units, counted in thirds so that a cavalry unit is 1
FREE_ARTILLERY = 2


def points(units: Iterable[dict[str, Any]]) -> int:
    """Stacking points in thirds of a unit."""
    total = 0
    artillery = 0
    for unit in units:
        kind = unit["type"]
        if kind == "leader":
            continue
        if kind == "artillery":
            artillery += 1
            if artillery <= FREE_ARTILLERY:
                continue
        total += 1 if kind == "cavalry" else 3
    return total


def fits(units: Iterable[dict[str, Any]]) -> bool:
    return points(units) <= LIMIT
