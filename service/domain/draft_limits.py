"""How large a club's scenario draft may grow (README "Configuration": ``ARBITER_DRAFT_MAX_*``).

A member with the club's admin role edits the draft, and every edit is kept as an event and
replayed; without a bound one member could grow a draft (and the time of every later edit, check
and publish) without end.  The built-in scenarios are far inside the defaults (at most 125 units
with reinforcements, Bizkaya; a 26 x 43 map of 1,118 hexes, Merida; 45 KB of JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.domain.errors import LimitReached


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list | dict) else 0


def units_of(document: Mapping[str, Any]) -> int:
    """Counters on the map at the start and arriving later."""
    return _count(document.get("units")) + _count(document.get("reinforcements"))


def hexes_of(document: Mapping[str, Any]) -> int:
    """The map's hexes: the area its bounds enclose, or the hexes its terrain names if more."""
    board = document.get("map") if isinstance(document.get("map"), Mapping) else {}
    assert isinstance(board, Mapping)
    bounds = board.get("bounds") if isinstance(board.get("bounds"), Mapping) else {}
    assert isinstance(bounds, Mapping)
    try:
        cols = int(bounds["max_col"]) - int(bounds["min_col"]) + 1
        rows = int(bounds["max_row"]) - int(bounds["min_row"]) + 1
        area = max(0, cols) * max(0, rows)
    except (KeyError, TypeError, ValueError):
        area = 0
    return max(area, _count(board.get("terrain")))


@dataclass(frozen=True)
class DraftLimits:
    units: int = 2000
    hexes: int = 10000
    bytes: int = 1024 * 1024

    def check(self, document: Mapping[str, Any], size: int) -> None:
        """Refuse a draft past a limit (``size``: its canonical JSON's length in bytes)."""
        units, hexes = units_of(document), hexes_of(document)
        if units > self.units:
            raise LimitReached(
                "the scenario would hold too many units",
                {"units": [f"{units} units; a club's scenario holds at most {self.units}"]},
            )
        if hexes > self.hexes:
            raise LimitReached(
                "the scenario's map would be too large",
                {"map": [f"{hexes} hexes; a club's scenario map holds at most {self.hexes}"]},
            )
        if size > self.bytes:
            raise LimitReached(
                "the scenario would be too large",
                {"document": [f"{size:,} bytes; a club's scenario is at most {self.bytes:,}"]},
            )
