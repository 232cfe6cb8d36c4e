"""MOVEMENT: dice by troop type and going, roads and towing, the AFVs table, a lost d6 to
un/limber or un/load, the measured move within the rolled distance; alternate unit moves."""

from __future__ import annotations

import pytest

from service.rules.barcelona import movement
from service.rules.base import RuleViolation
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, run, table_state, team, vehicle


def roll(state, side, unit, dice, **extra):
    [event] = run(
        movement.roll_move, state, side, {"type": "roll_move", "unit": unit, **extra}, dice
    )
    return event.data


def test_movement_infantry_2d6_good_1d6_bad():
    """MOVEMENT: Infantry 2d6 good going, 1d6 bad."""
    state = table_state(foot("n1", NAT, 10, 5), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n1", [3, 4])["distance"] == 7
    state = table_state(foot("n1", NAT, 10, 5), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n1", [5], going="bad")["distance"] == 5


def test_movement_cavalry_4d6_and_mortar_d6_minus_2_never_below_zero():
    """MOVEMENT: Cavalry 4d6 good; Mortar/HMG d6-2 in bad going."""
    state = table_state(foot("n1", NAT, 10, 5, attributes=["cavalry"]), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n1", [1, 2, 3, 4])["distance"] == 10
    state = table_state(team("n2", NAT, "Mortar", 10, 5), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n2", [1], going="bad")["distance"] == 0


def test_movement_field_guns_manhandled_d6_minus_3():
    state = table_state(team("n2", NAT, "Field Gun", 10, 5), foot("r1", REP, 10, 31))
    data = roll(state, NAT, "n2", [5], going="bad")
    assert (data["dice_expr"], data["distance"]) == ("d6-3", 2)


def test_movement_wheeled_vehicles_on_road_4d6_towing_3d6_and_a_lost_die_to_limber():
    """MOVEMENT notes: on road 4d6 but if towing gun 3d6; lose a d6 to un/limber gun."""
    state = table_state(
        vehicle("n3", NAT, "Lorry", 24, 3),
        team("n2", NAT, "Field Gun", 24, 4),
        foot("r1", REP, 10, 31),
    )
    assert roll(state, NAT, "n3", [1, 1, 1, 1], going="road")["distance"] == 4
    state = table_state(
        vehicle("n3", NAT, "Lorry", 24, 3),
        team("n2", NAT, "Field Gun", 24, 4),
        foot("r1", REP, 10, 31),
    )
    data = roll(state, NAT, "n3", [2, 2], going="road", limber="n2")
    assert (data["dice_expr"], data["lost"], data["distance"]) == ("3d6", 1, 4)
    run(movement.move, state, NAT, {"type": "move", "unit": "n3", "path": [[24, 7]]})
    assert state["units"]["n2"]["status"] == "towed" and state["units"]["n2"]["y"] == 7


def test_movement_wheeled_vehicles_cannot_move_in_bad_going():
    state = table_state(vehicle("n3", NAT, "Lorry", 10, 3), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n3", [], going="bad")["distance"] == 0


def test_movement_tanks_from_the_afvs_table():
    """MOVEMENT Tanks: varies, see the AFVs table (Renault FT road 1D6+2, bad going 1D6-2)."""
    state = table_state(vehicle("n4", NAT, "Renault FT (VMG)", 24, 3), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n4", [3], going="road")["distance"] == 5
    state = table_state(vehicle("n4", NAT, "Renault FT (VMG)", 24, 3), foot("r1", REP, 10, 31))
    assert roll(state, NAT, "n4", [1], going="bad")["distance"] == 0


def test_movement_unloading_loses_a_die():
    """MOVEMENT: lose a d6 to un/load vehicle."""
    state = table_state(
        vehicle("n3", NAT, "Lorry", 10, 3), foot("n1", NAT, 10, 3.5), foot("r1", REP, 10, 31)
    )
    data = roll(state, NAT, "n3", [6], load="n1")
    assert data["lost"] == 1 and data["distance"] == 6
    run(movement.move, state, NAT, {"type": "move", "unit": "n3", "path": [[10, 9]]})
    assert state["units"]["n1"]["status"] == "carried" and state["units"]["n1"]["y"] == 9


def test_movement_a_move_longer_than_the_rolled_distance_is_refused():
    """MOVEMENT: the measured length (7.07") exceeds the rolled 7"."""
    state = table_state(foot("n1", NAT, 10, 5), foot("r1", REP, 40, 31))
    roll(state, NAT, "n1", [3, 4])
    with pytest.raises(RuleViolation) as err:
        run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[15, 10]]})
    assert err.value.rule == "MOVEMENT" and "7.07" in err.value.message
    [event] = run(
        movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[10, 8], [14, 8]]}
    )
    assert event.data["length"] == 7.0 and state["units"]["n1"]["moved"]


def test_movement_good_going_roll_may_not_enter_bad_going():
    """MOVEMENT Good/Bad: a unit that rolled for good going may not enter the wood."""
    state = table_state(foot("n1", NAT, 9, 11), foot("r1", REP, 40, 31))
    roll(state, NAT, "n1", [6, 6])
    with pytest.raises(RuleViolation):
        run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[9, 16]]})


def test_movement_road_roll_must_stay_on_the_road():
    state = table_state(vehicle("n3", NAT, "Lorry", 24, 3), foot("r1", REP, 40, 31))
    roll(state, NAT, "n3", [5, 5, 5, 5], going="road")
    with pytest.raises(RuleViolation):
        run(movement.move, state, NAT, {"type": "move", "unit": "n3", "path": [[30, 10]]})
    run(movement.move, state, NAT, {"type": "move", "unit": "n3", "path": [[24, 20]]})


def test_sequence_alternate_unit_moves():
    """SEQUENCE OF PLAY: attacker moves unit / defender moves unit."""
    state = table_state(foot("n1", NAT, 10, 5), foot("n2", NAT, 20, 5), foot("r1", REP, 10, 31))
    roll(state, NAT, "n1", [1, 1])
    run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": []})
    assert state["mover"] == REP
    with pytest.raises(RuleViolation):
        roll(state, NAT, "n2", [1, 1])


def test_morale_second_failure_no_advance():
    """MORALE: second failure - no advance."""
    state = table_state(foot("n1", NAT, 10, 5, failures=2), foot("r1", REP, 10, 31))
    roll(state, NAT, "n1", [3, 3])
    with pytest.raises(RuleViolation) as err:
        run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[10, 9]]})
    assert err.value.rule == "MORALE"
    run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[10, 2]]})


def test_morale_unit_with_two_failures_removed_when_contacted():
    """MORALE: a unit with 2 morale failures will be removed if contacted."""
    state = table_state(
        foot("n1", NAT, 30, 20, figures=1), foot("r1", REP, 30, 25, figures=1, failures=2)
    )
    roll(state, NAT, "n1", [3, 2])
    [event] = run(movement.move, state, NAT, {"type": "move", "unit": "n1", "path": [[30, 24.5]]})
    assert event.data["contacts"] == ["r1"] and event.data["removed"] == ["r1"]
    assert state["units"]["r1"]["status"] == "removed"
