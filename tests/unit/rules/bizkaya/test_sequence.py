"""The sequence of play (2), reinforcements (7), leaders (8), trenches (9), supply (10), reserves
(11), the Bilbao withdrawal (15), victory (16) and the orders of battle (17)."""

from __future__ import annotations

import pytest

from service.rules.base import RuleViolation
from service.rules.bizkaya import SYSTEM, setup
from tests.unit.rules.bizkaya.conftest import board_state, event, play, ready, types, unit


def campaign():  # type: ignore[no-untyped-def]
    return SYSTEM.initial_state("bizkaya-1937", {})


def two_sides(**kw):  # type: ignore[no-untyped-def]
    units = [
        unit("n1", "nationalist", "0204"),
        unit("n2", "nationalist", "0203"),
        unit("r1", "republican", "0704"),
    ]
    units += kw.pop("extra", [])
    return board_state(units, **kw)


def through_admin(state, side):  # type: ignore[no-untyped-def]
    if side == "nationalist":
        for leader in ("garcia-valino", "alonso-vega"):
            play(state, side, {"type": "place_leader", "leader": leader, "unit": "n1"})
    play(state, side, {"type": "end_admin"})
    play(state, side, {"type": "end_supply"})


def test_2_3_the_turn_opens_with_the_nationalist_weather_roll_from_rainy() -> None:
    state = campaign()
    assert SYSTEM.active_sides(state) == ["nationalist"] and state["weather"] == "rainy"
    with pytest.raises(RuleViolation):
        play(state, "republican", {"type": "roll_weather"}, dice=[2])
    events = play(state, "nationalist", {"type": "roll_weather"}, dice=[2])
    assert event(events, "WeatherRolled")["weather"] == "winter"
    assert (state["phase"], state["side"]) == ("admin", "nationalist")
    arrived = {i["unit"]: i["hex"] for i in event(events, "ReinforcementsArrived")["units"]}
    assert arrived == {  # 17: I April 1937
        "n-2-v-navarra": "1109",
        "n-1-gpo-francisci": "0703",
        "n-2-gpo-francisci": "0703",
        "n-art-65-francisci": "0703",
    }


def test_2_13_three_operations_impulses_each_followed_by_the_opponents_reserve_impulse() -> None:
    state = ready(two_sides(), "nationalist", phase="admin", impulse=0)
    through_admin(state, "nationalist")
    seen = []
    for _ in range(6):
        seen.append((state["phase"], state["impulse"], SYSTEM.active_sides(state)[0]))
        play(state, SYSTEM.active_sides(state)[0], {"type": "end_impulse"})
    assert seen == [
        ("operations", 1, "nationalist"),
        ("reserve", 1, "republican"),
        ("operations", 2, "nationalist"),
        ("reserve", 2, "republican"),
        ("operations", 3, "nationalist"),
        ("reserve", 3, "republican"),
    ]
    assert (state["phase"], state["side"]) == ("admin", "republican")


def test_2_the_active_player_may_stop_operations_at_the_start_of_an_impulse() -> None:
    state = ready(two_sides(), "nationalist", phase="admin", impulse=0)
    through_admin(state, "nationalist")
    play(state, "nationalist", {"type": "move", "units": ["n2"], "path": ["0203", "0303"]})
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "stop_operations"})
    play(state, "nationalist", {"type": "end_impulse"})
    play(state, "republican", {"type": "end_impulse"})
    play(state, "nationalist", {"type": "stop_operations"})
    assert (state["phase"], state["side"]) == ("admin", "republican")


def test_8_leaders_are_placed_each_turn_and_follow_their_stack() -> None:
    state = ready(two_sides(), "nationalist", phase="admin", impulse=0)
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "end_admin"})
    assert info.value.rule == "8"
    through_admin(state, "nationalist")
    assert state["leaders"]["garcia-valino"]["unit"] == "n1"
    play(state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0204", "0304"]})
    assert state["units"][state["leaders"]["garcia-valino"]["unit"]]["hex"] == "0304"


def test_8_each_leader_is_offered_on_each_unit_as_a_command_sent_as_it_is() -> None:
    """8: the Nationalist places each leader on one of his stacks: one template per leader, its
    units by printed name, each command built from it accepted by ``decide`` unchanged; a placed
    leader is no longer offered."""
    state = ready(two_sides(), "nationalist", phase="admin", impulse=0)
    offered = SYSTEM.actions(state, "nationalist").of_type("place_leader")
    assert [t.label for t in offered] == ["Place Garcia Valino (8)", "Place Alonso Vega (8)"]
    assert [t.fixed for t in offered] == [{"leader": "garcia-valino"}, {"leader": "alonso-vega"}]
    assert offered[0].choose["unit"].options == ("n1", "n2")
    assert offered[0].choose["unit"].labels[0].startswith("n1 (")
    events = play(state, "nationalist", offered[0].command(unit="n2"))
    assert event(events, "LeaderPlaced") == {
        "leader": "garcia-valino",
        "name": "Garcia Valino",
        "unit": "n2",
        "hex": "0203",
    }
    left = SYSTEM.actions(state, "nationalist").of_type("place_leader")
    assert [t.fixed for t in left] == [{"leader": "alonso-vega"}]
    play(state, "nationalist", left[0].command())
    assert state["leaders"]["alonso-vega"]["unit"] == "n1"


def test_11_reserves_next_to_the_enemy_in_the_second_echelon_never_artillery() -> None:
    extra = [
        unit("art", "republican", "0704", kind="artillery-light", barrage=1, steps=1),
        unit("r2", "republican", "0704", steps=1),
        unit("r3", "republican", "0704", steps=1),
    ]
    state = ready(two_sides(extra=extra), "republican", phase="admin", impulse=0)
    state["units"]["n1"]["hex"] = "0604"
    with pytest.raises(RuleViolation) as info:
        play(state, "republican", {"type": "reserve", "units": ["art"]})
    assert info.value.rule == "11"
    with pytest.raises(RuleViolation):
        play(state, "republican", {"type": "reserve", "units": ["r2"]})
    play(state, "republican", {"type": "set_echelon", "units": ["r2"], "echelon": 2})
    play(state, "republican", {"type": "reserve", "units": ["r2"]})
    assert state["units"]["r2"]["reserve"] and state["units"]["r2"]["echelon"] == 2


def test_11_13_reserves_wait_through_their_own_impulses_and_act_in_the_opponents_reserve_impulse() -> (
    None
):
    state = ready(two_sides(), "nationalist", phase="operations", impulse=1)
    state["units"]["n2"]["reserve"] = True
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "move", "units": ["n2"], "path": ["0203", "0303"]})
    assert info.value.rule == "11"
    # the Republican's phase: the Nationalist reserve acts in the reserve impulse
    state.update(side="republican", phase="reserve", impulse=2)
    state["units"]["n2"]["spent"] = 0
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "move", "units": ["n2"], "path": ["0203", "0303"]})
    play(state, "nationalist", {"type": "activate", "units": ["n2"]})
    assert not state["units"]["n2"]["reserve"] and state["units"]["n2"]["activated"]
    play(
        state,
        "nationalist",
        {"type": "move", "units": ["n2"], "path": ["0203", "0303", "0403", "0503"]},
    )
    assert state["units"]["n2"]["mp"] == 0  # all its 6 MPs, no impulse limit (13)
    with pytest.raises(RuleViolation):  # n1 is not an activated reserve
        play(state, "nationalist", {"type": "move", "units": ["n1"], "path": ["0204", "0304"]})


def test_11_a_first_echelon_reserve_loses_its_status_when_attacked() -> None:
    state = ready(two_sides(), "nationalist")
    state["units"]["r1"].update(hex="0304", reserve=True)
    play(state, "nationalist", {"type": "attack", "hex": "0304", "units": ["n1"]}, dice=[1, 1])
    assert state["units"]["r1"]["reserve"] is False


def test_6_10_recovery_in_the_administrative_segment_but_not_out_of_supply() -> None:
    state = ready(two_sides(), "republican", phase="reserve", impulse=3)
    state["side"] = "nationalist"
    state["units"]["n1"].update(demoralized=True, morale=3)
    state["units"]["n2"].update(demoralized=True, morale=3, oos=True)
    state["units"]["r1"].update(demoralized=True, morale=4)
    events = play(state, "republican", {"type": "end_impulse"}, dice=[4])
    checks = event(events, "RecoveryRolled")["checks"]
    assert [(c["unit"], c["passed"]) for c in checks] == [("r1", True)]
    assert not state["units"]["r1"]["demoralized"]


def test_10_out_of_supply_halves_movement_and_factors_and_two_turns_demoralize() -> None:
    extra = [unit("z1", "republican", "0205", zoc=1), unit("z2", "republican", "0203", zoc=1)]
    units = [unit("n1", "nationalist", "0304"), *extra]
    state = ready(board_state(units), "nationalist", phase="admin", impulse=0)
    state["leaders"] = {}
    play(state, "nationalist", {"type": "end_admin"})
    unit_state = state["units"]["n1"]
    assert unit_state["oos"] and unit_state["mp"] == 3 and not unit_state["demoralized"]
    from service.rules.bizkaya import board

    assert board.factor(unit_state, "attack") == 2
    state.update(phase="admin")
    events = play(state, "nationalist", {"type": "end_admin"})
    assert (
        event(events, "SupplyChecked")["demoralized"] == ["n1"]
        and state["units"]["n1"]["demoralized"]
    )


def test_9_a_trench_is_completed_at_the_next_supply_phase_if_the_unit_stayed() -> None:
    extra = [unit("bn", "nationalist", "0203", kind="battalion", steps=1)]
    state = ready(
        board_state([unit("n1", "nationalist", "0204"), unit("n3", "nationalist", "0104"), *extra]),
        "nationalist",
        phase="supply",
    )
    with pytest.raises(RuleViolation):
        play(state, "nationalist", {"type": "entrench", "unit": "bn"})
    play(state, "nationalist", {"type": "entrench", "unit": "n1"})
    play(state, "nationalist", {"type": "entrench", "unit": "n3"})
    assert state["trenches"]["0204"]["status"] == "building"
    play(state, "nationalist", {"type": "end_supply"})
    play(state, "nationalist", {"type": "move", "units": ["n3"], "path": ["0104", "0105"]})
    assert "0104" not in state["trenches"]  # the builder moved (9)
    state.update(phase="admin")
    state["leaders"] = {}
    events = play(state, "nationalist", {"type": "end_admin"})
    assert event(events, "SupplyChecked")["trenches_completed"] == ["0204"]
    assert state["trenches"]["0204"]["status"] == "complete"


def test_4_overstacking_after_reinforcements_must_be_eliminated() -> None:
    units = [unit(f"b{i}", "nationalist", "0204") for i in range(4)]
    state = ready(board_state(units), "nationalist", phase="admin", impulse=0)
    state["leaders"] = {}
    with pytest.raises(RuleViolation) as info:
        play(state, "nationalist", {"type": "end_admin"})
    assert info.value.rule == "4"
    play(state, "nationalist", {"type": "eliminate", "units": ["b3"]})
    play(state, "nationalist", {"type": "end_admin"})
    assert state["phase"] == "supply"


def test_15_a_quarter_of_the_republican_brigades_withdrawn_after_bilbao_falls() -> None:
    extra = [unit(f"r{i}", "republican", "0704") for i in range(2, 6)] + [
        unit("bn", "republican", "0703", kind="battalion", steps=1)
    ]
    state = ready(two_sides(extra=extra), "republican", phase="reserve", impulse=3)
    state.update(side="republican", turn=4, bilbao_fell=3)
    state["phase"] = "reserve"
    state["side"] = "nationalist"
    state["turn"] = 4
    # the Republican phase ends the turn; the Nationalist's reinforcement phase of turn 5 withdraws
    state["side"] = "republican"
    play(state, "nationalist", {"type": "end_impulse"})
    assert state["phase"] == "weather"
    events = play(state, "nationalist", {"type": "roll_weather"}, dice=[3, 4, 2])
    withdrawn = event(events, "BrigadesWithdrawn")
    assert withdrawn["count"] == 2 and withdrawn["units"] == [
        "r4",
        "r2",
    ]  # 5 brigades: a quarter rounded up
    assert state["units"]["bn"]["status"] == "map" and state["withdrawal_done"]


def test_16_the_nationalist_wins_with_bilbao_and_the_santander_limit() -> None:
    state = ready(
        two_sides(data={"bilbao": "0504", "santander_limit": ["0801", "0802"]}),
        "republican",
        phase="reserve",
        impulse=3,
    )
    state["control"]["0504"] = "nationalist"
    state["units"]["n2"]["hex"] = "0802"
    events = play(state, "nationalist", {"type": "end_impulse"})
    assert event(events, "VictoryChecked")["limit_reached"] == ["0802"]
    result = SYSTEM.result(state)
    assert result and result["winner"] == "nationalist" and SYSTEM.active_sides(state) == []


def test_16_otherwise_the_republican_wins_after_iv_june() -> None:
    state = ready(two_sides(), "republican", phase="reserve", impulse=3)
    state["turn"] = 11
    events = play(state, "nationalist", {"type": "end_impulse"})
    assert types(events)[-1] == "TurnBegan" and state["turn"] == 12
    state.update(phase="reserve", side="republican", impulse=3)
    play(state, "nationalist", {"type": "end_impulse"})
    assert SYSTEM.result(state) == {
        "winner": "republican",
        "outcome": "win",
        "level": "Republican victory",
        "rule": "16",
        "turn": 12,
    }


def test_17_orders_of_battle_set_up_on_the_deployment_lines() -> None:
    scenario = setup.load("bizkaya-1937")
    state = campaign()
    lines = scenario.data["deployment_lines"]
    on_map = [u for u in state["units"].values() if u["status"] == "map"]
    nat = [u for u in on_map if u["side"] == "nationalist"]
    rep = [u for u in on_map if u["side"] == "republican"]
    assert (
        sum(u["kind"] == "combat" for u in nat),
        sum(u["kind"] == "artillery" for u in nat),
    ) == (31, 10)
    assert (
        sum(u["kind"] == "combat" for u in rep),
        sum(u["kind"] == "artillery" for u in rep),
    ) == (17, 5)
    assert all(u["hex"] in lines[u["side"]] for u in on_map)
    groups = {u["hex"] for u in nat if u["type"] == "brigade"}
    assert all(u["hex"] in groups for u in nat if u["kind"] == "artillery")  # with a group (17)
    assert set(state["trenches"]) == set(lines["republican"])  # trench markers (17)
    from service.rules.bizkaya import board

    assert all(
        not board.stacking_problems(state, h, board.stack(state, h))
        for h in board.occupied_by(state, "nationalist")
    )
    turns = sorted({r.turn for r in scenario.reinforcements})
    assert turns == [1, 4, 5, 6, 7, 8, 9]
    assert (
        scenario.map.places["Bilbao"].hex == "1404"
        and scenario.map.places["Baracaldo/Sestao"].hex == "1503"
    )
    assert scenario.map.supply_sources == {"nationalist": ("1109",), "republican": ("1404",)}  # 15
    assert scenario.map.hexside_features("1502", "1603") == {
        "major_river",
        "no_combat",
    }  # the ferry (1)
    assert scenario.map.hexside_features("1102", "1202") == {
        "major_river"
    }  # the ria of Mundaca (1)
    assert scenario.map.hexsides_with("iron_belt")  # 15


def test_17_the_i_june_reorganization_of_the_mixto_into_the_mixta() -> None:
    state = campaign()
    state.update(turn=9)
    events = play(state, "nationalist", {"type": "roll_weather"}, dice=[3])
    arrived = event(events, "ReinforcementsArrived")
    hex_ = state["units"]["n-art-mixta"]["hex"]
    assert arrived["reorganized"] == [{"from": "n-art-mixed", "to": "n-art-mixta", "hex": hex_}]
    assert state["units"]["n-art-mixed"]["status"] == "reorganized" and hex_ != "1109"
