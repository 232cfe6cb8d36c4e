import pytest

from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.mapdata import MapData
from service.rules.kernel.movement import MoveError, reachable, reachable_by, walk

GRID = HexGrid("letter-number", Bounds(1, 6, 1, 6), "flat", "odd")
MAP = MapData(
    GRID,
    terrain={"C4": "forest", "D3": "forest"},
    hexsides={("C3", "B3"): ["river"], ("C2", "C3"): ["road"]},
)
COSTS = {"clear": 1.0, "forest": 2.0}


def cost(frm: str, to: str) -> float | None:
    if MAP.has_hexside(frm, to, "river"):
        return None  # prohibited
    if MAP.has_hexside(frm, to, "road"):
        return 0.5
    return COSTS[MAP.terrain(to)]


def test_reachable_costs_and_paths():
    result = reachable(GRID, "C3", 2, cost)
    assert result["C4"].cost == 2.0  # forest
    assert result["C2"].cost == 0.5  # along the road
    assert result["C1"].cost == 1.5  # road then clear
    assert result["C1"].path == ("C3", "C2", "C1")
    # B3 is across the river from C3: reached around it, along the road to C2 then clear
    assert result["B3"].path == ("C3", "C2", "B3")
    assert result["B3"].cost == 1.5
    assert "C3" not in result


def test_reachable_respects_prohibited_hexsides_and_allowance():
    result = reachable(GRID, "C3", 1, cost)
    assert "B3" not in result  # across the river: prohibited; around it costs more than 1
    assert "C4" not in result  # forest costs 2
    assert set(result) == {"C2", "D2", "D4"}


def test_must_stop_hexes_are_reached_but_not_left():
    zoc = {"D3", "D4"}
    result = reachable(GRID, "C3", 6, cost, must_stop=zoc.__contains__)
    assert result["D4"].stops
    for reach in result.values():
        assert not any(h in zoc for h in reach.path[1:-1])


def test_can_end_filters_destinations_but_not_transit():
    result = reachable(GRID, "C3", 3, cost, can_end=lambda h: h != "C2")
    assert "C2" not in result
    assert result["C1"].path == ("C3", "C2", "C1")


def test_minimum_move_allows_one_costly_hex():
    assert "C4" not in reachable(GRID, "C3", 1, cost)
    assert reachable(GRID, "C3", 1, cost, minimum_move=True)["C4"].cost == 2.0


def test_walk_valid_path():
    w = walk(GRID, ["C3", "C2", "C1", "B1"], 3, cost)
    assert w.cost == 2.5
    assert w.costs == (0.5, 1.0, 1.0)
    assert not w.stopped


@pytest.mark.parametrize(
    ("path", "code", "index"),
    [
        (["C3"], "empty", 0),
        (["C3", "C5"], "not_adjacent", 1),  # no skipping hexes
        (["C3", "B3"], "prohibited", 1),
        (["C3", "C4", "C5"], "too_costly", 2),
        (["C3", "C2", "A2"], "not_adjacent", 2),
        (["A1", "A0"], "off_map", 1),
    ],
)
def test_walk_errors(path, code, index):
    with pytest.raises(MoveError) as err:
        walk(GRID, path, 2, cost)
    assert err.value.code == code
    assert err.value.index == index


def test_walk_stops_on_entering_a_must_stop_hex():
    with pytest.raises(MoveError) as err:
        walk(GRID, ["C3", "C2", "C1"], 4, cost, must_stop={"C2"}.__contains__)
    assert err.value.code == "after_stop"
    # starting in such a hex is fine (free exit), and ending in one is flagged
    w = walk(GRID, ["C2", "C1", "D1"], 4, cost, must_stop={"C2", "D1"}.__contains__)
    assert w.stopped


def test_walk_cannot_end():
    with pytest.raises(MoveError) as err:
        walk(GRID, ["C3", "C2"], 4, cost, can_end=lambda h: h != "C2")
    assert err.value.code == "cannot_end"


def test_reachable_by_given_steps_equals_reachable_with_the_same_ties():
    """The search from each hex's permitted steps (in the grid's order) finds the same costs,
    paths (ties broken by the neighbours' order) and stops as the search asking each step."""
    zoc = {"D3", "E4"}

    def edges(here: str):
        for there in GRID.neighbours(here):
            step = cost(here, there)
            if step is not None:
                yield there, step

    for start, mp in (("C3", 2), ("C3", 4), ("A1", 6), ("F6", 3)):
        asked = reachable(GRID, start, mp, cost, must_stop=zoc.__contains__)
        given = reachable_by(start, mp, edges, must_stop=zoc.__contains__)
        assert given == asked
        assert list(given) == list(asked)  # in the order first reached


def test_reachable_never_leaves_a_stop_hex_and_never_returns_to_the_start():
    result = reachable(GRID, "C3", 6, lambda _a, _b: 0.0, must_stop={"C4"}.__contains__)
    assert "C3" not in result
    assert all("C4" not in reach.path[1:-1] for reach in result.values())
