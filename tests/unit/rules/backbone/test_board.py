"""``board()``: the scenario's map to draw, as printed (flat-topped, columns across), with its
placeholder markers (the rulebook prints no map)."""

from __future__ import annotations

import pytest

from service.rules.backbone import SYSTEM
from service.rules.backbone.setup import scenario
from service.rules.kernel.layout import board_json


@pytest.mark.parametrize("scenario_id", ["scenario-1", "scenario-2"])
def test_board_is_the_scenario_map_with_every_hex_and_feature(scenario_id: str) -> None:
    drawn = SYSTEM.drawing.board(scenario_id)
    kernel = board_json(scenario(scenario_id).map)
    assert len(drawn["hexes"]) == len(kernel["hexes"]) == 18 * 28
    assert drawn["coordinates"] == "column,row"
    for key in ("terrain", "hexsides", "places", "hex_features", "entries", "supply_sources"):
        assert drawn[key] == kernel[key]
    tetouan = next(p for p in drawn["places"] if p["name"] == "Tetouan")
    assert tetouan["hex"] == "4,7"  # the example's Tetouan (placeholder position)


def test_board_is_drawn_as_printed_rows_down_and_columns_across() -> None:
    """Labels are printed row,column ("X, 13" is column 13): the printed column grows to the
    right and the row downwards; odd columns are shifted half a hex down (flat-topped)."""
    drawn = SYSTEM.drawing.board("scenario-1")
    at = {h["hex"]: (h["x"], h["y"]) for h in drawn["hexes"]}
    assert drawn["orientation"] == "flat" and drawn["drawing"]["transposed"] is True
    assert at["1,5"][0] - at["1,4"][0] == pytest.approx(1.5)  # next column: 1.5 radii right
    assert at["2,4"][1] - at["1,4"][1] == pytest.approx(3**0.5, abs=1e-3)  # next row: down
    assert at["1,5"][1] - at["1,4"][1] == pytest.approx(3**0.5 / 2, abs=1e-3)  # odd column shift
    assert drawn["size"]["width"] > drawn["size"]["height"]  # 28 columns across, 18 rows down
    assert max(x for x, _ in at.values()) < drawn["size"]["width"]
    assert max(y for _, y in at.values()) < drawn["size"]["height"]


def test_board_keeps_the_map_placeholder_markers() -> None:
    drawn = SYSTEM.drawing.board("scenario-1")
    assert drawn["placeholder"] is True
    places = {p["place"] for p in drawn["placeholders"]}
    assert {"map.terrain", "map.hexsides", "map.places", "map.hex_features"} <= places
    assert all(p["note"] for p in drawn["placeholders"])
