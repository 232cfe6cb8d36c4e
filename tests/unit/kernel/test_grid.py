import pytest

from service.rules.kernel.grid import Bounds, HexGrid, hexside_key


@pytest.fixture
def flat_odd():
    """8 columns x 6 rows, letter-number, flat-topped, odd columns half a hex lower."""
    return HexGrid("letter-number", Bounds(1, 8, 1, 6), "flat", "odd")


def test_flat_odd_neighbours_of_an_odd_column(flat_odd):
    # C3 is column 3 (odd, shifted down): its side neighbours are rows C and D of columns 2 and 4.
    assert set(flat_odd.neighbours("C3")) == {"B3", "D3", "C2", "D2", "C4", "D4"}


def test_flat_odd_neighbours_of_an_even_column(flat_odd):
    # B2 is column 2 (even, not shifted): side neighbours are rows A and B of columns 1 and 3.
    assert set(flat_odd.neighbours("B2")) == {"A2", "C2", "A1", "B1", "A3", "B3"}


def test_neighbours_at_map_edges(flat_odd):
    assert set(flat_odd.neighbours("A1")) == {"B1", "A2", "B2"}
    assert set(flat_odd.neighbours("F8")) == {"E8", "E7", "F7"}
    assert set(flat_odd.neighbours("A2")) == {"B2", "A1", "A3"}
    # C8: east edge, even column: its own column and column 7 rows B and C
    assert set(flat_odd.neighbours("C8")) == {"B8", "D8", "B7", "C7"}


def test_flat_even_offset():
    grid = HexGrid("column,row", Bounds(1, 5, 1, 5), "flat", "even")
    # column 2 is even, so shifted down: sides touch rows 2 and 3 of columns 1 and 3
    assert set(grid.neighbours("2,2")) == {"2,1", "2,3", "1,2", "1,3", "3,2", "3,3"}


def test_pointy_odd_offset():
    grid = HexGrid("four-digit", Bounds(1, 10, 1, 10), "pointy", "odd")
    # row 3 is odd, so shifted right: rows 2 and 4 touch at columns 3 and 4
    assert set(grid.neighbours("0303")) == {"0203", "0403", "0302", "0402", "0304", "0404"}
    assert set(grid.neighbours("0304")) == {"0204", "0404", "0203", "0303", "0205", "0305"}


def test_pointy_even_offset():
    grid = HexGrid("column,row", Bounds(1, 5, 1, 5), "pointy", "even")
    assert set(grid.neighbours("3,2")) == {"2,2", "4,2", "3,1", "4,1", "3,3", "4,3"}


def test_distances_flat(flat_odd):
    assert flat_odd.distance("C3", "C3") == 0
    assert flat_odd.distance("C3", "D4") == 1
    # A1 -> F8: 7 columns east and the diagonal only gains 3.5 rows: one extra step
    assert flat_odd.distance("A1", "F8") == 8
    assert flat_odd.distance("A1", "F1") == 5  # straight down a column
    assert flat_odd.distance("A1", "A8") == 7
    assert flat_odd.distance("A2", "A4") == 2


def test_distances_pointy():
    grid = HexGrid("column,row", Bounds(1, 10, 1, 10), "pointy", "odd")
    assert grid.distance("1,1", "5,1") == 4  # along a row
    assert grid.distance("1,1", "1,5") == 4  # zig-zag down the rows
    assert grid.distance("1,1", "3,5") == 4
    assert grid.distance("1,1", "4,5") == 5


def test_within(flat_odd):
    assert len(flat_odd.within("C4", 1)) == 7
    assert len(flat_odd.within("C4", 2)) == 19
    assert set(flat_odd.within("A1", 1)) == {"A1", "B1", "A2", "B2"}
    assert all(flat_odd.distance("C4", h) <= 2 for h in flat_odd.within("C4", 2))


def test_labels_and_bounds(flat_odd):
    assert len(flat_odd.labels()) == 48
    assert flat_odd.in_bounds("F8")
    assert not flat_odd.in_bounds("G1")
    assert not flat_odd.in_bounds("A9")
    assert not flat_odd.in_bounds("Z99")
    assert not flat_odd.in_bounds("A01")  # not the canonical spelling
    assert flat_odd.normalise("A01") == "A1"


def test_hexside_keys_are_order_independent(flat_odd):
    assert hexside_key("C3", "C4") == hexside_key("C4", "C3") == "C3/C4"
    assert flat_odd.hexside("D4", "C3") == "C3/D4"
    with pytest.raises(ValueError):
        flat_odd.hexside("A1", "C3")


def test_round_trip(flat_odd):
    again = HexGrid.from_dict(flat_odd.to_dict())
    assert again.to_dict() == flat_odd.to_dict()
    assert again.neighbours("C3") == flat_odd.neighbours("C3")


def test_bad_orientation():
    with pytest.raises(ValueError):
        HexGrid("letter-number", Bounds(1, 2, 1, 2), "round", "odd")
