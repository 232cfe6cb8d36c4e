"""The rulebook's worked example "Zone of Control and combat" (7, 7.1, 7.2, 9.2, 12.1).

The text gives the hexes 6,17 / 7,16 / 7,17 / 8,17 but not the Spanish positions; the fixture puts
the two Spanish units at 6,16 and 8,16 (the gap between them is 7,16) and the Allied units in the
coastal pocket 8,18 whose only land exits are enemy ZOC hexes, so every line of supply must pass
8,17 as in the example."""

from __future__ import annotations

import pytest

from service.rules.backbone import geography as geo
from service.rules.backbone.supply import determine
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import board, counter, play, state


def zoc_state() -> dict:
    mapd = board(
        rows=12,
        cols=18,
        terrain={"7,18": "sea", "9,18": "sea"},
        places=[
            ("Port-Lyautey", "12,17", False),
            ("Taourirt", "12,1", False),
            ("Ceuta", "1,1", True),
            ("Tangier", "1,2", True),
        ],
        sources={"allied": ["12,17"], "spanish": ["1,1"]},
    )
    return state(
        [
            counter("es-a", "spanish", "6,16"),
            counter("es-b", "spanish", "8,16"),
            counter("rangers", "allied", "8,18", type_="ranger_para", mp=4, formation="CTF"),
            counter("cca", "allied", "8,18", type_="armor", mp=5, formation="CTF"),
            counter("eng36", "allied", "10,17", type_="engineer", mp=3, formation="CTF"),
        ],
        mapd,
    )


def test_fixture_geometry_matches_the_example() -> None:
    st = zoc_state()
    zoc = geo.enemy_zoc(st, "allied")
    assert {"7,17", "8,17", "6,17", "7,16"} <= zoc
    assert "9,17" not in zoc and "8,18" not in zoc
    assert not geo.board(st).grid.adjacent("8,18", "9,17")


@pytest.mark.parametrize("end", ["6,17", "7,16"])
def test_9_2_rangers_ignore_the_first_enemy_zoc_and_stop_at_the_second(end: str) -> None:
    st = zoc_state()
    events = play(st, "allied", {"type": "move", "unit": "rangers", "path": ["8,18", "7,17", end]})
    assert events[0].data["ignored_zoc"] == ["7,17"]
    assert st["units"]["rangers"]["hex"] == end


def test_9_2_rangers_cannot_ignore_the_second_enemy_zoc() -> None:
    st = zoc_state()
    with pytest.raises(RuleViolation) as err:
        play(
            st,
            "allied",
            {"type": "move", "unit": "rangers", "path": ["8,18", "7,17", "7,16", "6,15"]},
        )
    assert err.value.rule == "7.1"


def test_7_1_cca_must_stop_on_entering_enemy_zoc() -> None:
    st = zoc_state()
    play(st, "allied", {"type": "move", "unit": "cca", "path": ["8,18", "7,17"]})
    assert st["units"]["cca"]["hex"] == "7,17"
    st2 = zoc_state()
    with pytest.raises(RuleViolation) as err:
        play(st2, "allied", {"type": "move", "unit": "cca", "path": ["8,18", "7,17", "6,17"]})
    assert err.value.rule == "7.1"


def test_7_2_supply_through_the_engineers_in_enemy_zoc_not_through_their_zoc() -> None:
    """Without the 36th Engineers in 8,17 the CCA and the Rangers are out of supply; with them in it
    (their presence, not their ZOC, negates the enemy ZOC) the line reaches both."""
    st = zoc_state()
    play(st, "allied", {"type": "move", "unit": "rangers", "path": ["8,18", "7,17", "7,16"]})
    play(st, "allied", {"type": "move", "unit": "cca", "path": ["8,18", "7,17"]})
    before = determine(st, "allied")
    assert set(before["out_of_supply"]) == {"rangers", "cca"}
    play(st, "allied", {"type": "move", "unit": "eng36", "path": ["10,17", "9,17", "8,17"]})
    assert st["units"]["eng36"]["hex"] == "8,17"
    assert determine(st, "allied")["out_of_supply"] == []


def test_7_1_engineers_stop_in_8_17_on_entering_enemy_zoc() -> None:
    st = zoc_state()
    with pytest.raises(RuleViolation) as err:
        play(
            st,
            "allied",
            {"type": "move", "unit": "eng36", "path": ["10,17", "9,17", "8,17", "8,18"]},
        )
    assert err.value.rule == "7.1"
