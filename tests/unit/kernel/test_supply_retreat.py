from service.rules.kernel.grid import Bounds, HexGrid
from service.rules.kernel.retreat import choose_retreat, longest_retreats, retreat_paths
from service.rules.kernel.supply import standard_line, supplied_hexes, trace

# a corridor: 7 columns x 1 row, so lines and retreats have one way to go
LINE = HexGrid("letter-number", Bounds(1, 7, 1, 1), "flat", "odd")
GRID = HexGrid("letter-number", Bounds(1, 6, 1, 6), "flat", "odd")


def test_unbounded_and_bounded_supply_lines():
    free = standard_line(set(), set())
    assert trace(LINE, "A7", {"A1"}.__contains__, free) == [
        "A7",
        "A6",
        "A5",
        "A4",
        "A3",
        "A2",
        "A1",
    ]
    assert trace(LINE, "A7", {"A1"}.__contains__, free, max_length=6) is not None
    assert trace(LINE, "A7", {"A1"}.__contains__, free, max_length=5) is None


def test_supply_blocked_by_enemy_unit():
    line = standard_line(enemy_units={"A4"}, enemy_zoc=set())
    assert trace(LINE, "A7", {"A1"}.__contains__, line) is None


def test_supply_blocked_by_enemy_zoc_but_negated_by_a_friendly_unit():
    enemy_zoc = {"A4"}  # an enemy unit off the corridor projects its ZOC into A4
    blocked = standard_line(enemy_units=set(), enemy_zoc=enemy_zoc)
    assert trace(LINE, "A7", {"A1"}.__contains__, blocked) is None
    negated = standard_line(enemy_units=set(), enemy_zoc=enemy_zoc, friendly_units={"A4"})
    assert trace(LINE, "A7", {"A1"}.__contains__, negated) == [
        "A7",
        "A6",
        "A5",
        "A4",
        "A3",
        "A2",
        "A1",
    ]
    # a friendly unit does not open an enemy-occupied hex
    occupied = standard_line(enemy_units={"A4"}, enemy_zoc=set(), friendly_units={"A4"})
    assert trace(LINE, "A7", {"A1"}.__contains__, occupied) is None


def test_the_start_hex_is_not_judged():
    line = standard_line(enemy_units=set(), enemy_zoc={"A7"})
    assert trace(LINE, "A7", {"A1"}.__contains__, line) is not None


def test_supplied_hexes_from_sources():
    reached = supplied_hexes(LINE, ["A1"], standard_line({"A5"}, set()), max_length=3)
    assert reached == {"A1": 0, "A2": 1, "A3": 2, "A4": 3}
    assert supplied_hexes(LINE, ["A1", "A7"], standard_line(set(), set()), max_length=1) == {
        "A1": 0,
        "A2": 1,
        "A7": 0,
        "A6": 1,
    }


def always(_frm, _to):
    return True


def test_retreat_paths_of_length_n_move_away_from_the_attacker():
    paths = retreat_paths(GRID, "C3", 2, always, away_from=["C4"])
    assert paths
    for path in paths:
        assert len(path) == 3 and path[0] == "C3"
        distances = [GRID.distance(h, "C4") for h in path]
        assert distances == sorted(set(distances))  # strictly increasing


def test_retreat_blocked_by_zoc():
    # A3 (top edge) attacked from B3 below it: only A2 and A4 lead away, both in an enemy ZOC
    assert {h for h in GRID.neighbours("A3") if GRID.distance(h, "B3") == 2} == {"A2", "A4"}
    enemy_zoc = {"A2", "A4"}

    def can_enter(_frm, to):
        return to not in enemy_zoc

    assert retreat_paths(GRID, "A3", 1, can_enter, away_from=["B3"]) == []
    assert longest_retreats(GRID, "A3", 2, can_enter, away_from=["B3"]) == (0, [("A3",)])
    free = retreat_paths(GRID, "A3", 1, always, away_from=["B3"])
    assert sorted(free) == [("A3", "A2"), ("A3", "A4")]


def test_retreat_can_end_and_longest():
    paths = retreat_paths(LINE, "A3", 2, always, away_from=["A2"])
    assert paths == [("A3", "A4", "A5")]
    assert retreat_paths(LINE, "A3", 2, always, can_end=lambda h: h != "A5", away_from=["A2"]) == []
    assert longest_retreats(LINE, "A6", 3, always, away_from=["A5"]) == (1, [("A6", "A7")])


def test_choose_retreat():
    paths = [("C3", "D3"), ("C3", "B3")]
    assert choose_retreat(paths) == ("C3", "D3")
    assert choose_retreat(paths, lambda p: p[-1]) == ("C3", "B3")
    assert choose_retreat([]) is None
