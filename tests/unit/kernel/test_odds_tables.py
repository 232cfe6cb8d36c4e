import pytest

from service.rules.kernel.odds import OddsColumns, column_ratio
from service.rules.kernel.tables import ResultTable

COLUMNS = OddsColumns(["1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1"])


def test_odds_rounded_down_in_defenders_favour():
    assert COLUMNS.odds(11, 4).label == "2-1"  # 2.75 -> 2-1
    assert COLUMNS.odds(5, 11).label == "1-3"  # 1:2.2 -> 1-3, not 1-2
    assert COLUMNS.odds(12, 4).label == "3-1"  # exact
    assert COLUMNS.odds(5, 10).label == "1-2"  # exact
    assert COLUMNS.odds(9, 10).label == "1-2"  # just short of 1-1


def test_colon_labels_and_fractional_columns():
    columns = OddsColumns(["1:2", "1:1", "3:2", "2:1", "3:1"])
    assert columns.odds(7, 5).label == "1:1"  # 1.4 < 1.5
    assert columns.odds(3, 2).label == "3:2"
    assert column_ratio("3:2") == column_ratio("3-2")


def test_below_min_has_no_column_unless_fought_on_the_first():
    odds = COLUMNS.odds(1, 4)
    assert odds.below_min and odds.label is None and odds.index is None
    first = COLUMNS.odds(1, 4, below_min="first")
    assert first.below_min and first.label == "1-3"


def test_above_max_is_fought_on_the_last_column():
    assert COLUMNS.odds(13, 2).label == "6-1"  # 6.5 rounds down to 6-1: not above it
    assert not COLUMNS.odds(13, 2).above_max
    seven = COLUMNS.odds(7, 1)
    assert seven.label == "6-1" and seven.above_max
    assert COLUMNS.odds(3, 0).above_max


def test_column_shifts_are_clamped_to_the_table():
    assert COLUMNS.odds(11, 4, shift=-1).label == "1-1"
    assert COLUMNS.odds(11, 4, shift=2).label == "4-1"
    left = COLUMNS.odds(5, 11, shift=-2)
    assert left.label == "1-3" and left.clamped and left.base_index == 0
    right = COLUMNS.odds(20, 1, shift=3)
    assert right.label == "6-1" and right.clamped
    assert COLUMNS.shift(3, -5) == (0, True)
    assert COLUMNS.shift(3, 1) == (4, False)


def test_columns_must_rise():
    with pytest.raises(ValueError):
        OddsColumns(["2-1", "1-1"])
    with pytest.raises(ValueError):
        OddsColumns(["two to one"])


TABLE = ResultTable(
    "crt",
    ["1-1", "2-1"],
    {0: ["A1", "AR"], 1: ["AR", "EX"], 2: ["EX", "DR"], 3: ["DR", "D1"]},
)


def test_lookup_and_modified_roll_clamped():
    assert TABLE.lookup("2-1", 1).result == "EX"
    high = TABLE.lookup("1-1", 3, modifier=2)
    assert (high.modified, high.used, high.result, high.clamped) == (5, 3, "DR", True)
    low = TABLE.lookup("2-1", 0, modifier=-1)
    assert (low.modified, low.used, low.result) == (-1, 0, "AR")
    assert not TABLE.lookup("1-1", 2).clamped


def test_table_shape_checks_and_dict_form():
    assert TABLE.to_dict() == {
        "columns": ["1-1", "2-1"],
        "rows": [
            {"roll": 0, "results": ["A1", "AR"]},
            {"roll": 1, "results": ["AR", "EX"]},
            {"roll": 2, "results": ["EX", "DR"]},
            {"roll": 3, "results": ["DR", "D1"]},
        ],
    }
    assert ResultTable.from_dict("crt", TABLE.to_dict()).rows == TABLE.rows
    with pytest.raises(ValueError, match="lacks rows"):
        ResultTable("t", ["a"], {1: ["x"], 3: ["y"]})
    with pytest.raises(ValueError, match="results for"):
        ResultTable("t", ["a", "b"], {1: ["x"]})
    with pytest.raises(KeyError):
        TABLE.lookup("9-1", 1)
