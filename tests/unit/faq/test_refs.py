"""Rule-reference normalisation, with the FAQ's own heading forms."""

from __future__ import annotations

import pytest

from faq.refs import ancestors, europa_refs, query_refs, rulebook_refs


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("Rules 12C1 and 7A -- Supply City Rail Connections", ["12C1", "7A"]),
        ("Rule 12A/B -- Tracing Supply Lines", ["12A", "12B"]),
        ("Rule 38D1-4 -- Timing of Gobernito Collapse Checks", ["38D1", "38D2", "38D3", "38D4"]),
        ("Rule 12C1b, 1st bullet", ["12C1b"]),
        ("Rule 30A2/3 and 34F -- Port Capacity Damage", ["30A2", "30A3", "34F"]),
        (
            "Rules 7A4ac and 40A2 and 43C2 -- Assigning Rail Capacity",
            ["7A4a", "7A4c", "40A2", "43C2"],
        ),
        ("Rules 5, 37C1 and 37D -- Restrictions on projection", ["5", "37C1", "37D"]),
        ("Rules 20C & 20D -- interception and patrol attack", ["20C", "20D"]),
        ("Rule 40, 2nd para., 1st sent, supply", ["40"]),
        ("Rule 37C -- II Jul 36 turn, 3rd special rule bullet", ["37C"]),
        ("38D, 4th para., 1st bullet", ["38D"]),
    ],
)
def test_heading_refs_normalised(text: str, refs: list[str]) -> None:
    assert europa_refs(text) == refs


def test_map_hexes_unit_ratings_and_ordinals_are_not_refs() -> None:
    text = "Oviedo (23A:1007); 1x A-101 1A1 1/9; 2-1-8 Cav III 1E.; the 2nd bullet; TEM 62"
    assert europa_refs(text) == []


def test_refs_in_answer_text() -> None:
    assert europa_refs("per 9F1 (Movement after Combat, Retreats), see 37C") == ["9F1", "37C"]


def test_query_refs() -> None:
    assert query_refs("what does 12c1 say") == ["12C1"]
    assert query_refs("rule 39A pacification") == ["39A"]
    assert query_refs("rule 5 and 16.5") == ["5", "16.5"]
    assert query_refs("attack at 2-1 odds") == []


def test_rulebook_refs_and_ancestors() -> None:
    assert rulebook_refs("see rule 8 on Advance after combat; point 12 Supplies") == ["8", "12"]
    assert ancestors("12C1b") == ["12", "12C", "12C1", "12C1b"]
    assert ancestors("16.5") == ["16", "16.5"]
