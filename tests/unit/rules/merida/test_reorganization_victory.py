"""Rule 9 reorganization and rule 11 victory."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.merida import SYSTEM, board
from service.rules.merida.victory import final_result
from tests.unit.rules.merida.conftest import board_state, play


def reorg_state(formations=("29 Div", "29 Div", "29 Div"), leader_hex="E11", extra=()):
    units = [unit_ for unit_ in extra]
    units += [
        {
            "id": f"e{i}",
            "side": "republican",
            "type": "infantry",
            "name": f"e{i}",
            "values": {"strength": 3},
            "hex": "A12",
        }
        for i in range(3)
    ]
    units.append(
        {
            "id": "l",
            "side": "republican",
            "type": "leader",
            "name": "l",
            "values": {"strength": 0},
            "hex": leader_hex,
        }
    )
    state = board_state(
        units,
        phase="reinforcements",
        side="republican",
        data={"formations": {f"e{i}": f for i, f in enumerate(formations)}},
    )
    for i in range(3):
        state["units"][f"e{i}"].update(status="eliminated", hex=None)
    return state


def test_9_three_eliminated_units_of_one_type_and_command_reorganize_one():
    """Rule 9: one returns with the leader, the other two are gone for good."""
    state = reorg_state()
    [listed] = SYSTEM.actions(state, "republican").of_type("reorganize")
    assert listed.fixed == {"units": ["e0", "e1", "e2"], "return": "e0"}
    assert listed.choose["leader"].options == ("l",)  # the leader is chosen
    play(
        state,
        "republican",
        {"type": "reorganize", "units": ["e0", "e1", "e2"], "return": "e1", "leader": "l"},
    )
    assert state["units"]["e1"]["hex"] == "E11" and state["units"]["e1"]["status"] == "map"
    assert state["units"]["e0"]["status"] == state["units"]["e2"]["status"] == "gone"
    assert not SYSTEM.actions(state, "republican").of_type("reorganize")


def test_9_the_listed_reorganization_is_accepted_as_sent():
    state = reorg_state()
    [listed] = SYSTEM.actions(state, "republican").of_type("reorganize")
    play(state, "republican", listed.command())
    assert state["units"]["e0"]["hex"] == "E11"


def test_9_a_leader_in_an_enemy_zoc_is_not_offered_and_the_reorganization_is_blocked():
    """Rule 9: the leader must not be in an enemy ZOC."""
    enemy = {
        "id": "x",
        "side": "nationalist",
        "type": "infantry",
        "name": "x",
        "values": {"strength": 3},
        "hex": "E10",
    }
    listed = SYSTEM.actions(reorg_state(extra=[enemy]), "republican")
    assert not listed.of_type("reorganize")
    [blocked] = [b for b in listed.blocked if b.type == "reorganize"]
    assert blocked.rule == "9" and "enemy ZOC" in blocked.reason


def test_9_units_of_different_commands_do_not_reorganize():
    state = reorg_state(formations=("29 Div", "29 Div", "37 Div"))
    with pytest.raises(RuleViolation) as err:
        play(
            state,
            "republican",
            {"type": "reorganize", "units": ["e0", "e1", "e2"], "return": "e1", "leader": "l"},
        )
    assert err.value.rule == "9"


def test_9_leader_must_not_be_in_an_enemy_zoc():
    enemy = {
        "id": "n",
        "side": "nationalist",
        "type": "infantry",
        "name": "n",
        "values": {"strength": 3},
        "hex": "E10",
    }
    state = reorg_state(extra=[enemy])
    with pytest.raises(RuleViolation) as err:
        play(
            state,
            "republican",
            {"type": "reorganize", "units": ["e0", "e1", "e2"], "return": "e1", "leader": "l"},
        )
    assert err.value.rule == "9" and "ZOC" in err.value.message


def test_9_the_returning_unit_must_not_overstack():
    full = [
        {
            "id": f"f{i}",
            "side": "republican",
            "type": "infantry",
            "name": f"f{i}",
            "values": {"strength": 1},
            "hex": "E11",
        }
        for i in range(3)
    ]
    state = reorg_state(extra=full)
    with pytest.raises(RuleViolation) as err:
        play(
            state,
            "republican",
            {"type": "reorganize", "units": ["e0", "e1", "e2"], "return": "e1", "leader": "l"},
        )
    assert "overstack" in err.value.message


def scenario_with(units):
    """The shipped scenario's map with only the given (unit id, hex) on it."""
    state = SYSTEM.initial_state("merida-1938", {})
    for unit in state["units"].values():
        unit.update(status="waiting", hex=None)
    for unit_id, hex_ in units:
        state["units"][unit_id].update(status="map", hex=hex_)
    return state


def test_11_points_for_places_held_in_command_and_in_supply():
    """Rule 11 and the VP table: Almaden (AD25) and Zarzacapilla (AC20) are 30 each for the
    Nationalist: 60 points, a marginal victory."""
    state = scenario_with([("n-solans", "AD22"), ("n-19-div", "AD25"), ("n-24-div", "AC20")])
    result = final_result(state)
    assert result["points"] == {"nationalist": 60, "republican": 0}
    assert (result["winner"], result["level"]) == ("nationalist", "Marginal victory")


def test_11_units_out_of_command_do_not_control():
    state = scenario_with([("n-19-div", "AD25"), ("n-24-div", "AC20")])
    result = final_result(state)
    assert result["points"] == {"nationalist": 0, "republican": 0} and result["outcome"] == "draw"


def test_11_units_out_of_supply_do_not_control():
    blockers = [
        ("r-1-25", "AD24"),
        ("r-2-25", "AE24"),
        ("r-1-46", "AC25"),
        ("r-2-46", "AE25"),
        ("r-1-109", "AC24"),
        ("r-2-109", "AD26"),
    ]
    state = scenario_with([("n-solans", "AD22"), ("n-19-div", "AD25"), *blockers])
    assert "n-19-div" in board.status_of(state, "nationalist")[0]
    assert final_result(state)["points"]["nationalist"] == 0


def test_11_the_side_with_more_points_reads_its_level_and_a_low_total_is_a_defeat():
    """Rule 11: 30 points (Guadalupe 5, Zorita 15, Miajadas 10) for the leading Republican is a
    marginal defeat: the Nationalist wins."""
    state = scenario_with([("r-leader-0", "K14"), ("r-1-25", "K16"), ("r-2-25", "J7")])
    state["units"]["r-2-25"]["hex"] = "O10"  # Zorita: 15 Republican
    state["units"]["r-1-46"].update(status="map", hex="Q10")
    state["units"]["r-1-109"].update(status="map", hex="R6")  # Miajadas: 10
    state["units"]["r-persz-salas"].update(status="map", hex="P8")
    result = final_result(state)
    assert result["points"]["republican"] == 30
    assert (result["level"], result["winner"], result["level_of"]) == (
        "Marginal defeat",
        "nationalist",
        "republican",
    )


def test_11_keeping_71_div_costs_10_points():
    state = scenario_with([("n-solans", "AD22"), ("n-19-div", "AD25")])
    state["vp_adjustments"]["republican"] = -10
    assert final_result(state)["points"] == {"nationalist": 30, "republican": -10}
