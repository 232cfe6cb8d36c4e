"""A club's scenario document in its game's terms (issue 32, "scenario code by capability"): each
game's ``CustomScenarios`` draws a draft, says what changed and where a checked field is, and
gives a blank map; the club scenario library asks it and knows no map or table itself."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from service.rules.base import CustomScenarios, ScenarioError
from service.rules.registry import build_registry

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = build_registry()


def custom(system: str) -> CustomScenarios:
    found = REGISTRY.get(system).custom_scenarios
    assert found is not None
    return found


def shipped(system: str, scenario: str) -> dict[str, Any]:
    for path in (ROOT / "service" / "rules" / system).rglob(f"{scenario}.json"):
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("id") == scenario:
            return dict(raw)
    raise AssertionError(f"no {scenario} in {system}")


FIRST = {
    "merida": "merida-1938",
    "backbone": "scenario-1",
    "bizkaya": "bizkaya-1937",
    "barcelona": "skirmish",
}


@pytest.mark.parametrize("system", sorted(FIRST))
def test_every_shipped_game_reads_its_own_documents(system: str) -> None:
    """Drawn, compared with itself (nothing changed) and a field placed, for every game."""
    document = shipped(system, FIRST[system])
    drawn = custom(system).drawn(document)
    assert drawn.get("kind") == "table" if system == "barcelona" else len(drawn["hexes"]) > 100
    assert custom(system).changes(document, copy.deepcopy(document)) == []
    assert custom(system).place_of("turns", document) == "field turns"
    assert custom(system).place_of("", document) == "scenario"


def test_a_table_says_its_pieces_zones_and_entries_and_places_them() -> None:
    old = shipped("barcelona", "skirmish")
    new = copy.deepcopy(old)
    new["areas"].append(
        {"id": "ruin", "name": "Ruined chapel", "effects": ["cover"], "rect": [4, 14, 10, 8]}
    )
    new["areas"] = [a for a in new["areas"] if a["id"] != "road"]
    new["deployment"]["republican"] = {"rect": [0, 28, 48, 8]}
    new["entries"]["nationalist"] = [20, 0.5]
    new["turns"] = 10
    lines = custom("barcelona").changes(old, new)
    assert "turns: 8 → 10" in lines
    assert "piece Ruined chapel added: 10×8 in at (4, 14)" in lines
    assert "piece Ebro road removed: 4×36 in at (22, 0)" in lines
    assert "republican zone: 48×6 in at (0, 30) → 48×8 in at (0, 28)" in lines
    assert "nationalist entry point: (24, 0.5) → (20, 0.5)" in lines
    # the table's fields are said as a piece or a zone, never as a field of the document
    assert not [line for line in lines if line.startswith(("areas", "deployment", "entries"))]
    assert custom("barcelona").place_of("deployment.republican", new) == "zone republican"
    assert custom("barcelona").place_of("entries.nationalist", new) == "entry point nationalist"
    index = [a["id"] for a in new["areas"]].index("ruin")
    assert custom("barcelona").place_of(f"areas[{index}].rect", new) == "piece Ruined chapel"
    assert custom("barcelona").place_of("areas[99].rect", new) == "field areas[99].rect"


def test_a_table_has_no_blank_hex_map() -> None:
    with pytest.raises(ScenarioError) as caught:
        custom("barcelona").blank_document({"bounds": {"columns": 10, "rows": 10}, "sides": []})
    assert "blank" in caught.value.problems


def test_a_hex_draft_is_drawn_while_wrong_and_refused_when_its_grid_is() -> None:
    blank = custom("merida").blank_document(
        {
            "bounds": {"min_col": 1, "max_col": 5, "min_row": 1, "max_row": 5},
            "sides": ["a", "b"],
        }
    )
    assert blank["system"] == "merida" and blank["map"]["terrain"] == {}
    blank["map"]["terrain"] = {"B2": "forest", "Z99": "forest"}  # one hex off the map
    blank["map"]["hexsides"] = [
        {"hexes": ["B2", "B3"], "features": ["river"]},
        {"hexes": ["A1", "E5"], "features": ["river"]},
    ]
    drawn = custom("merida").drawn(blank)
    terrain = {h["hex"]: h["terrain"] for h in drawn["hexes"]}
    assert terrain["B2"] == "forest" and "Z99" not in terrain
    assert len(drawn["hexsides"]) == 1  # A1/E5 are not neighbours: left out, the checks say so
    broken = copy.deepcopy(blank)
    broken["map"]["bounds"] = {}
    with pytest.raises(ScenarioError) as caught:
        custom("merida").drawn(broken)
    assert "map" in caught.value.problems


def test_backbone_draws_a_club_map_as_its_printed_map_is_turned() -> None:
    document = shipped("backbone", "scenario-1")
    turned = custom("backbone").drawn(document)
    assert turned["drawing"]["transposed"] is True and turned["orientation"] == "flat"
    assert "drawing" not in custom("bizkaya").drawn(shipped("bizkaya", FIRST["bizkaya"]))


def test_the_library_knows_no_map_or_table_itself() -> None:
    """application/scenarios.py keeps versions, permissions and edits: it imports nothing of the
    hex kernel or of a game's document readers, and names no hexside, piece or zone."""
    source = (ROOT / "service" / "application" / "scenarios.py").read_text(encoding="utf-8")
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not [
        m for m in imported if m.startswith(("service.rules.kernel", "service.rules.barcelona"))
    ]
    assert "service.rules.scenario.documents" not in imported
    for word in ('"hexsides"', '"areas"', '"deployment"', '"table"', "HexGrid", "board_json"):
        assert word not in source, word
