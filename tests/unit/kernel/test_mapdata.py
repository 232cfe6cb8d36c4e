import pytest

from service.rules.kernel.mapdata import Entry, MapData, Place

MAP = {
    "coordinates": "letter-number",
    "orientation": "flat",
    "offset": "odd",
    "bounds": {"min_col": 1, "max_col": 8, "min_row": 1, "max_row": 6},
    "default_terrain": "clear",
    "terrain": {"C3": "forest", "D5": "hill"},
    "hex_features": {"C3": ["town"]},
    "hexsides": [
        {"hexes": ["C4", "C3"], "features": ["river"]},
        {"hexes": ["B2", "B3"], "features": ["road", "bridge"]},
    ],
    "places": [{"name": "Mill", "hex": "D5", "kind": "objective", "values": {"vp": 2}}],
    "supply_sources": {"red": ["A1", "B1"], "blue": ["F8"]},
    "entries": [{"name": "west road", "side": "red", "hexes": ["C1"]}],
}


def test_terrain_with_default():
    m = MapData.from_dict(MAP)
    assert m.terrain("C3") == "forest"
    assert m.terrain("D5") == "hill"
    assert m.terrain("A1") == "clear"
    assert m.hex_features("C3") == {"town"}
    assert m.hex_features("A1") == frozenset()


def test_hexside_features_either_direction():
    m = MapData.from_dict(MAP)
    assert m.has_hexside("C3", "C4", "river")
    assert m.has_hexside("C4", "C3", "river")
    assert m.hexside_features("B3", "B2") == {"road", "bridge"}
    assert not m.has_hexside("C3", "D3", "river")
    assert m.hexsides_with("river") == [("C3", "C4")]


def test_places_sources_entries():
    m = MapData.from_dict(MAP)
    assert m.places["Mill"] == Place("Mill", "D5", "objective", {"vp": 2})
    assert m.places_at("D5")[0].name == "Mill"
    assert [p.name for p in m.places_of_kind("objective")] == ["Mill"]
    assert m.supply_sources["red"] == ("A1", "B1")
    assert m.entry_hexes("west road") == ("C1",)
    assert m.entries["west road"] == Entry("west road", ("C1",), "red")


def test_round_trip():
    m = MapData.from_dict(MAP)
    again = MapData.from_dict(m.to_dict())
    assert again.to_dict() == m.to_dict()
    assert again.to_dict()["hexsides"][1] == {"hexes": ["C3", "C4"], "features": ["river"]}


def test_refuses_unknown_hex_and_non_adjacent_hexside():
    with pytest.raises(ValueError, match="unknown hex Z99"):
        MapData.from_dict({**MAP, "terrain": {"Z99": "forest"}})
    with pytest.raises(ValueError, match="not adjacent"):
        MapData.from_dict({**MAP, "hexsides": [{"hexes": ["A1", "C3"], "features": ["river"]}]})
