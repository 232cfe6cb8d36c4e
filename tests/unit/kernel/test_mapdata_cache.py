"""``cached_map``: a state's embedded map is parsed once, however often the rules ask for it."""

from __future__ import annotations

from service.rules.kernel.mapdata import cached_map

MAP = {
    "coordinates": "letter-number",
    "orientation": "flat",
    "offset": "odd",
    "bounds": {"min_col": 1, "max_col": 3, "min_row": 1, "max_row": 3},
    "terrain": {"B2": "forest"},
}


def test_the_same_dict_gives_the_same_mapdata_and_equal_content_is_parsed_once() -> None:
    first = cached_map(MAP)
    assert cached_map(MAP) is first and first.terrain("B2") == "forest"
    copy = {**MAP, "terrain": dict(MAP["terrain"])}
    assert cached_map(copy) is first  # same content: the parse is shared
    other = {**MAP, "terrain": {"B2": "hill"}}
    assert cached_map(other).terrain("B2") == "hill"
