"""Drawing positions of hexes: adjacent hexes are one hex-width apart in both orientations."""

from __future__ import annotations

import math

import pytest

from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.layout import ROOT3, centre


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
@pytest.mark.parametrize("offset", ["odd", "even"])
def test_neighbours_are_drawn_exactly_one_hex_apart(orientation: str, offset: str) -> None:
    grid = HexGrid("column,row", Bounds(1, 6, 1, 5), orientation, offset)
    for label in grid.labels():
        x, y = centre(grid, label)
        for other in grid.neighbours(label):
            ox, oy = centre(grid, other)
            assert math.isclose(math.hypot(ox - x, oy - y), ROOT3, abs_tol=1e-3), (label, other)


def test_the_first_hex_sits_one_radius_from_the_corner() -> None:
    grid = HexGrid("letter-number", Bounds(1, 8, 1, 6), "flat", "odd")
    assert centre(grid, "A2") == (2.5, 1.0)
    assert centre(grid, "A1")[0] == 1.0
