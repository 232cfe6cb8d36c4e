"""A bounded hex grid in offset coordinates: neighbours, adjacency, distance and hexside keys.

``orientation`` is ``"flat"`` (flat-topped hexes in vertical columns; the offset shifts columns) or
``"pointy"`` (pointy-topped hexes in horizontal rows; the offset shifts rows).  ``offset`` names
which columns (flat) or rows (pointy), by their printed number, sit half a hex lower (flat) or
further right (pointy): ``"odd"`` or ``"even"``.  Bounds are inclusive and in printed numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from service.rules.kernel.coords import (
    Coord,
    CoordinateError,
    CoordinateSystem,
    get_coordinate_system,
)

Cube = tuple[int, int, int]
ORIENTATIONS = ("flat", "pointy")
OFFSETS = ("odd", "even")
_CUBE_DIRECTIONS: tuple[Cube, ...] = (
    (1, -1, 0),
    (1, 0, -1),
    (0, 1, -1),
    (-1, 1, 0),
    (-1, 0, 1),
    (0, -1, 1),
)


def hexside_key(a: str, b: str) -> str:
    """The order-independent key of the hexside between two hexes: ``"C3/C4"``."""
    return f"{a}/{b}" if a <= b else f"{b}/{a}"


@dataclass(frozen=True)
class Bounds:
    min_col: int
    max_col: int
    min_row: int
    max_row: int

    def contains(self, col: int, row: int) -> bool:
        return self.min_col <= col <= self.max_col and self.min_row <= row <= self.max_row


class HexGrid:
    def __init__(
        self,
        coordinates: str | CoordinateSystem,
        bounds: Bounds,
        orientation: str = "flat",
        offset: str = "odd",
    ) -> None:
        if orientation not in ORIENTATIONS:
            raise ValueError(f"orientation must be one of {ORIENTATIONS}, not {orientation!r}")
        if offset not in OFFSETS:
            raise ValueError(f"offset must be one of {OFFSETS}, not {offset!r}")
        if bounds.min_col > bounds.max_col or bounds.min_row > bounds.max_row:
            raise ValueError(f"empty bounds {bounds}")
        self.coordinates = (
            get_coordinate_system(coordinates) if isinstance(coordinates, str) else coordinates
        )
        self.bounds = bounds
        self.orientation = orientation
        self.offset = offset
        self._shifted = 1 if offset == "odd" else 0
        self._cubes: dict[str, Cube] = {}
        self._neighbours: dict[str, tuple[str, ...]] = {}
        self._labels: tuple[str, ...] | None = None

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HexGrid:
        b = data["bounds"]
        return cls(
            data["coordinates"],
            Bounds(b["min_col"], b["max_col"], b["min_row"], b["max_row"]),
            data.get("orientation", "flat"),
            data.get("offset", "odd"),
        )

    def to_dict(self) -> dict[str, Any]:
        b = self.bounds
        return {
            "coordinates": self.coordinates.name,
            "orientation": self.orientation,
            "offset": self.offset,
            "bounds": {
                "min_col": b.min_col,
                "max_col": b.max_col,
                "min_row": b.min_row,
                "max_row": b.max_row,
            },
        }

    # -- labels ---------------------------------------------------------------------------------
    def coord(self, label: str) -> Coord:
        return self.coordinates.parse(label)

    def label(self, col: int, row: int) -> str:
        return self.coordinates.format(col, row)

    def in_bounds(self, label: str) -> bool:
        try:
            col, row = self.coordinates.parse(label)
        except CoordinateError:
            return False
        return self.bounds.contains(col, row) and self.coordinates.format(col, row) == label

    def normalise(self, label: str) -> str:
        """The canonical spelling of a label (``j07`` -> ``J7``); raises CoordinateError."""
        return self.label(*self.coord(label))

    def labels(self) -> tuple[str, ...]:
        """Every hex in bounds, column by column."""
        if self._labels is None:
            b = self.bounds
            self._labels = tuple(
                self.label(col, row)
                for col in range(b.min_col, b.max_col + 1)
                for row in range(b.min_row, b.max_row + 1)
            )
        return self._labels

    # -- geometry -------------------------------------------------------------------------------
    def _to_cube(self, col: int, row: int) -> Cube:
        shift = self._shifted
        if self.orientation == "flat":
            x = col
            z = row - (col - (col & 1)) // 2 if shift else row - (col + (col & 1)) // 2
        else:
            z = row
            x = col - (row - (row & 1)) // 2 if shift else col - (row + (row & 1)) // 2
        return x, -x - z, z

    def _from_cube(self, cube: Cube) -> Coord:
        x, _, z = cube
        if self.orientation == "flat":
            row = z + (x - (x & 1)) // 2 if self._shifted else z + (x + (x & 1)) // 2
            return x, row
        col = x + (z - (z & 1)) // 2 if self._shifted else x + (z + (z & 1)) // 2
        return col, z

    def cube(self, label: str) -> Cube:
        cube = self._cubes.get(label)
        if cube is None:
            cube = self._to_cube(*self.coord(label))
            self._cubes[label] = cube
        return cube

    def neighbours(self, label: str) -> tuple[str, ...]:
        """The in-bounds neighbours of a hex (cached)."""
        found = self._neighbours.get(label)
        if found is None:
            x, y, z = self.cube(label)
            result = []
            for dx, dy, dz in _CUBE_DIRECTIONS:
                col, row = self._from_cube((x + dx, y + dy, z + dz))
                if self.bounds.contains(col, row):
                    result.append(self.label(col, row))
            found = tuple(result)
            self._neighbours[label] = found
        return found

    def adjacent(self, a: str, b: str) -> bool:
        return self.distance(a, b) == 1

    def distance(self, a: str, b: str) -> int:
        ax, ay, az = self.cube(a)
        bx, by, bz = self.cube(b)
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def distance_to_nearest(self, label: str, others: Iterable[str]) -> int | None:
        distances = [self.distance(label, other) for other in others]
        return min(distances) if distances else None

    def within(self, label: str, n: int) -> list[str]:
        """The in-bounds hexes at distance ``<= n`` from ``label`` (itself included)."""
        x, y, z = self.cube(label)
        found = []
        for dx in range(-n, n + 1):
            for dy in range(max(-n, -dx - n), min(n, -dx + n) + 1):
                col, row = self._from_cube((x + dx, y + dy, z - dx - dy))
                if self.bounds.contains(col, row):
                    found.append(self.label(col, row))
        return found

    def hexside(self, a: str, b: str) -> str:
        """The hexside key between two adjacent hexes; raises ValueError if they are not."""
        if not self.adjacent(a, b):
            raise ValueError(f"{a} and {b} are not adjacent")
        return hexside_key(a, b)
