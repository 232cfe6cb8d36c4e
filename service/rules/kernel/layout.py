"""Where each hex sits when drawn: centres in units of the hex's outer radius (size 1), so a client
draws the board without doing any hex arithmetic of its own.

Flat-topped: columns are 1.5 apart, rows sqrt(3) apart, shifted columns half a row lower.
Pointy-topped: rows are 1.5 apart, columns sqrt(3) apart, shifted rows half a column to the right."""

from __future__ import annotations

import math
from typing import Any

from service.rules.kernel.grid import HexGrid
from service.rules.kernel.mapdata import MapData

ROOT3 = math.sqrt(3)


def centre(grid: HexGrid, label: str) -> tuple[float, float]:
    col, row = grid.coord(label)
    b = grid.bounds
    shifted = (col if grid.orientation == "flat" else row) % 2 == (1 if grid.offset == "odd" else 0)
    if grid.orientation == "flat":
        x = 1.5 * (col - b.min_col)
        y = ROOT3 * (row - b.min_row) + (ROOT3 / 2 if shifted else 0.0)
    else:
        x = ROOT3 * (col - b.min_col) + (ROOT3 / 2 if shifted else 0.0)
        y = 1.5 * (row - b.min_row)
    return round(x + 1.0, 4), round(y + 1.0, 4)


def board_json(mapdata: MapData) -> dict[str, Any]:
    """The map as data for drawing: the map's own fields plus every hex's centre and terrain."""
    grid = mapdata.grid
    hexes: list[dict[str, Any]] = []
    for label in grid.labels():
        x, y = centre(grid, label)
        hexes.append({"hex": label, "x": x, "y": y, "terrain": mapdata.terrain(label)})
    width = max(h["x"] for h in hexes) + 1.0
    height = max(h["y"] for h in hexes) + 1.0
    return {
        **mapdata.to_dict(),
        "hexes": hexes,
        "size": {"width": round(width, 4), "height": round(height, 4)},
    }
