"""Malformed commands (InvalidCommand, field by field) and the refusals of an advance after combat
(rule 8, with rules 5, 6 and the TEC) that the combat tests do not reach."""

from __future__ import annotations

import pytest

from service.rules.base import InvalidCommand, RuleViolation
from service.rules.merida import SYSTEM
from tests.unit.rules.merida.conftest import board_state, play, unit


def state_for(phase: str = "movement"):
    return board_state(
        [
            unit("a", "nationalist", "infantry", 18, "E4"),
            unit("l", "nationalist", "leader", 1, "E3"),
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase=phase,
    )


def invalid(command, phase: str = "movement") -> dict:
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state_for(phase), "nationalist", command, None)
    return err.value.details


def test_a_command_must_be_an_object():
    assert set(invalid(["move"])) == {"command"}


def test_an_unknown_command_type_lists_the_known_ones():
    assert "move" in invalid({"type": "fly"})["type"][0]


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"type": "move", "path": ["E4", "E3"]}, "units"),
        ({"type": "move", "units": "a", "path": ["E4", "E3"]}, "units"),
        ({"type": "move", "units": ["a"], "path": "E4"}, "path"),
        ({"type": "deploy", "unit": 3, "hex": "E4"}, "unit"),
        ({"type": "attack", "attackers": ["a"]}, "hex"),
        ({"type": "allocate_air", "hex": "E5", "air": "Fiat"}, "air"),
        ({"type": "reorganize", "units": ["a"], "leader": "l"}, "return"),
        ({"type": "keep"}, "unit"),
        ({"type": "place_reinforcement", "unit": "a", "hex": 7}, "hex"),
        ({"type": "declare_overrun", "hex": "E5"}, "attackers"),
        ({"type": "advance", "units": ["a"]}, "path"),
        ({"type": "remove", "unit": "d", "instead": ["a"]}, "instead"),
    ],
)
def test_missing_or_mistyped_fields_are_named(command, field):
    """Each command type's declaration: a missing or mistyped field is named, alone."""
    assert set(invalid(command)) == {field}


def test_unknown_fields_are_named():
    assert set(invalid({"type": "end_phase", "force": True})) == {"force"}
    assert set(invalid({"type": "move", "units": ["a"], "path": ["E4", "E3"], "fast": 1})) == {
        "fast"
    }


def test_list_fields_hold_strings():
    details = invalid({"type": "move", "units": ["a", 7], "path": ["E4", None]})
    assert set(details) == {"units[1]", "path[1]"}


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"type": "deploy", "unit": "ghost", "hex": "E4"}, "unit"),
        ({"type": "remove", "unit": "ghost"}, "unit"),
        ({"type": "remove", "unit": "d", "instead": "ghost"}, "instead"),
        (
            {"type": "reorganize", "units": ["a"], "return": "ghost", "leader": "l"},
            "return",
        ),
        ({"type": "reorganize", "units": ["a"], "return": "a", "leader": "ghost"}, "leader"),
        ({"type": "attack", "attackers": ["a", "ghost"], "hex": "E5"}, "attackers"),
    ],
)
def test_unknown_units_are_named_by_field(command, field):
    assert invalid(command)[field] == ["unknown unit ghost"]


def test_unknown_hexes_are_named():
    assert invalid({"type": "attack", "attackers": ["a"], "hex": "Z99"}) == {
        "hex": ["unknown hex Z99"]
    }
    assert invalid({"type": "move", "units": ["a"], "path": ["E4", "E99"]}) == {
        "path": ["unknown hex E99"]
    }


def test_5_an_unknown_movement_mode_is_refused_on_its_field():
    """Rule 5 knows tactical, strategic and rail movement: another mode is malformed."""
    details = invalid({"type": "move", "units": ["a"], "path": ["E4", "E3"], "mode": "flying"})
    assert set(details) == {"mode"} and "tactical" in details["mode"][0]


def won(extra=()):
    """6-1, roll 5: D3 on one defender, which is eliminated; 4 extra movement points."""
    state = board_state(
        [
            unit("a", "nationalist", "infantry", 18, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
            *extra,
        ],
        phase="combat",
    )
    play(state, "nationalist", {"type": "attack", "attackers": ["a"], "hex": "E5"}, [5])
    assert state["advance"]["extra_mp"] == 4
    return state


def refused_advance(state, units, path):
    with pytest.raises(RuleViolation) as err:
        play(state, "nationalist", {"type": "advance", "units": units, "path": path})
    return err.value


def test_8_no_advance_without_a_vacated_hex():
    err = refused_advance(state_for("combat"), ["a"], ["E5"])
    assert (err.rule, err.field) == ("8", "type")


def test_8_an_advance_needs_units_and_a_path():
    assert refused_advance(won(), [], ["E5"]).rule == "8"
    assert refused_advance(won(), ["a"], []).field == "path"


def test_8_only_the_surviving_attackers_advance():
    state = won([unit("b", "nationalist", "infantry", 3, "A1")])
    err = refused_advance(state, ["b"], ["E5"])
    assert (err.rule, err.field) == ("8", "units")


def test_5_an_advance_may_not_skip_hexes():
    assert refused_advance(won(), ["a"], ["E5", "E7"]).rule == "5"


def test_6_an_advance_may_not_enter_enemy_units():
    state = won([unit("z", "republican", "infantry", 3, "E7")])
    assert refused_advance(state, ["a"], ["E5", "E6", "E7"]).rule == "6"


def test_6_an_advance_may_not_overstack():
    friends = [unit(f"f{i}", "nationalist", "infantry", 1, "E6") for i in range(3)]
    assert refused_advance(won(friends), ["a"], ["E5", "E6"]).rule == "6"


def test_tec_an_advance_may_not_cross_prohibited_terrain():
    state = board_state(
        [
            unit("a", "nationalist", "artillery", 18, "E4"),
            unit("i", "nationalist", "infantry", 1, "E4"),
            unit("d", "republican", "infantry", 3, "E5"),
        ],
        phase="combat",
        hexsides=[{"hexes": ["E5", "E6"], "features": ["river"]}],
    )
    play(state, "nationalist", {"type": "attack", "attackers": ["a", "i"], "hex": "E5"}, [5])
    assert refused_advance(state, ["a"], ["E5", "E6"]).rule == "TEC"
