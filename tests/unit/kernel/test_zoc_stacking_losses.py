from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.losses import take_steps
from service.rules.kernel.mapdata import MapData
from service.rules.kernel.stacking import StackLimit, check_stacking, fits, stacks_by_hex
from service.rules.kernel.zoc import all_of, blocked_across, blocked_into, zoc_hexes, zoc_sources

GRID = HexGrid("letter-number", Bounds(1, 6, 1, 6), "flat", "odd")
MAP = MapData(GRID, terrain={"D3": "swamp"}, hexsides={("C3", "B3"): ["river"]})


def test_zoc_covers_the_six_neighbours():
    assert zoc_hexes(GRID, [("C3", "inf")]) == set(GRID.neighbours("C3"))
    assert len(zoc_hexes(GRID, [("C3", "inf")])) == 6


def test_zoc_exerted_only_by_units_that_have_one():
    units = [("C3", {"type": "artillery"}), ("A1", {"type": "infantry"})]
    assert zoc_hexes(GRID, units, exerts=lambda u: u["type"] != "artillery") == {"B1", "A2", "B2"}


def test_zoc_blocked_across_a_hexside_and_into_terrain():
    projects = all_of(blocked_across(MAP, ["river"]), blocked_into(MAP, ["swamp"]))
    found = zoc_hexes(GRID, [("C3", "inf")], projects=projects)
    assert found == set(GRID.neighbours("C3")) - {"B3", "D3"}


def test_zoc_sources_count_the_projecting_hexes():
    sources = zoc_sources(GRID, [("C3", 1), ("C5", 2)])
    assert sources["C4"] == {"C3", "C5"}
    assert sources["D3"] == {"C3"}


LIMITS = [
    StackLimit("units", lambda u: 1, 3),
    StackLimit(
        "artillery", lambda u: 1 if u == "art" else 0, lambda hex_: 0 if hex_ == "A1" else 1
    ),
]


def test_stacking_reports_every_violation():
    stacks = stacks_by_hex(
        [("B2", "inf"), ("B2", "inf"), ("B2", "art"), ("B2", "art"), ("A1", "art")]
    )
    violations = check_stacking(stacks, LIMITS)
    assert [(v.hex, v.limit, v.total, v.allowed) for v in violations] == [
        ("A1", "artillery", 1, 0),
        ("B2", "units", 4, 3),
        ("B2", "artillery", 2, 1),
    ]


def test_fits():
    assert fits("B2", ["inf", "inf"], ["art"], LIMITS)
    assert not fits("B2", ["inf", "art"], ["art"], LIMITS)
    assert not fits("B2", ["inf", "inf", "inf"], ["inf"], LIMITS)


def test_losses_in_order_fall_on_the_first_unit():
    result = take_steps([("a", 2), ("b", 2)], 3)
    assert [(x.unit, x.steps, x.remaining, x.eliminated) for x in result.losses] == [
        ("a", 2, 0, True),
        ("b", 1, 1, False),
    ]
    assert result.satisfied


def test_losses_one_each_round_robin():
    result = take_steps([("a", 2), ("b", 1), ("c", 2)], 4, mode="one_each")
    assert {x.unit: x.steps for x in result.losses} == {"a": 2, "b": 1, "c": 1}


def test_unsatisfiable_losses_are_reported():
    result = take_steps([("a", 1), ("b", 2)], 5)
    assert result.unsatisfied == 2
    assert not result.satisfied
    assert all(x.eliminated for x in result.losses)
