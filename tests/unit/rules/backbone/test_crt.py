"""The Combat Results Table (16.6) with the errata."""

from __future__ import annotations

import pytest

from service.rules.backbone.crt import CombatResult, crt_table, lookup, row_for


def test_16_6_crt_shape_columns_and_rows() -> None:
    table = crt_table()
    assert table["columns"] == ["1:2", "1:1", "2:1", "3:1", "4:1", "5:1", "6:1"]
    assert [row["roll"] for row in table["rows"]] == ["<0", 1, 2, 3, 4, 5, 6, 7, 8]
    assert all(len(row["results"]) == 7 for row in table["rows"])


def test_errata_crt_6_to_1_at_7_and_8_is_minus_slash_4() -> None:
    """Errata: the last two values of the 6 to 1 column (modified 7 or 8) are -/4, not -/4R."""
    assert lookup("6:1", 7) == "-/4"
    assert lookup("6:1", 8) == "-/4"
    assert lookup("5:1", 7) == "-/3R"  # the errata touches only the 6:1 column


@pytest.mark.parametrize(
    ("column", "roll", "result"),
    [
        ("1:2", 0, "3/-"),
        ("1:1", 4, "2/1"),
        ("2:1", 8, "1/2R"),  # the assault of Larache
        ("4:1", 4, "1/1R"),  # the amphibious landing
        ("4:1", 3, "1/2"),  # the landing's "if he had rolled a 1"
        ("3:1", 6, "-/1R"),
        ("6:1", 1, "1/1R"),
    ],
)
def test_16_6_crt_cells_as_printed(column: str, roll: int, result: str) -> None:
    assert lookup(column, roll) == result


def test_16_6_modified_rolls_beyond_the_table_use_the_end_rows() -> None:
    assert row_for(-2) == 0 and lookup("3:1", -2) == "1/-"
    assert row_for(11) == 8 and lookup("1:1", 12) == "-/1R"


def test_16_6_result_parsing() -> None:
    assert CombatResult.parse("1/2R").as_dict() == {
        "text": "1/2R",
        "attacker_steps": 1,
        "defender_steps": 2,
        "retreat": True,
    }
    assert CombatResult.parse("3/-") == CombatResult("3/-", 3, 0, False)
    assert CombatResult.parse("-/4") == CombatResult("-/4", 0, 4, False)
