"""The map to draw: the kernel's ``board_json`` of the scenario's map, turned to the printed map.

The module reads the printed ``row,column`` labels as the kernel's ``column,row`` on pointy-topped
hexes (docs/rules/backbone.md, "Hex labels"): the adjacency is the printed map's, transposed.  The
drawing swaps each centre's x and y back, so the hexes are flat-topped with the printed columns
across and the rows down, as on the printed map; the labels, terrain and hexsides are unchanged.
The placeholder markers of the scenario's map are kept: ``placeholder`` and each ``placeholders``
entry (``{place, note}``), for a client to say the map is a stand-in a club must replace."""

from __future__ import annotations

from typing import Any

from service.rules.backbone import setup
from service.rules.backbone.crt import crt_table
from service.rules.backbone.data_files import load
from service.rules.hexgame import HexDrawing
from service.rules.kernel.layout import board_json

TRANSPOSED_NOTE = (
    "labels are printed row,column; the kernel reads them as column,row on pointy-topped hexes, "
    "so each centre's x and y are swapped to draw the printed flat-topped map"
)


def board(scenario_id: str) -> dict[str, Any]:
    scen = setup.scenario(scenario_id)
    drawn = as_printed(board_json(scen.map))
    markers = [p.as_dict() for p in scen.placeholders if p.place.startswith("map.")]
    drawn["placeholder"] = bool(markers)
    drawn["placeholders"] = markers
    return drawn


def as_printed(drawn: dict[str, Any]) -> dict[str, Any]:
    """A drawn board (``board_json``, or a club draft's) turned as the printed map is: each hex's
    x and y swapped (labels are row,column on flat-topped hexes)."""
    for hex_ in drawn["hexes"]:
        hex_["x"], hex_["y"] = hex_["y"], hex_["x"]
    size = drawn["size"]
    drawn["size"] = {"width": size["height"], "height": size["width"]}
    drawn["orientation"] = "flat"
    drawn["drawing"] = {"transposed": True, "grid_orientation": "pointy", "note": TRANSPOSED_NOTE}
    return drawn


def tables() -> dict[str, Any]:
    """The CRT (16.6), the data tables the rules read and the sequence of play (8.2: each step
    with the ids ``phase`` reports during it), as the API serves them."""
    named = ("terrain", "weather", "strait", "supports", "events", "replacements", "sequence")
    return {"crt": crt_table(), **{name: load(name) for name in named}}


class BackboneDrawing(HexDrawing):
    """The drawing capability: the printed map (:func:`board`), the counters, the tables."""

    def __init__(self) -> None:
        super().__init__(lambda s: setup.scenario(s).map, tables)

    def board(self, scenario: str) -> dict[str, Any]:
        return board(scenario)
