"""CLOSE COMBAT and MORALE with scripted dice."""

from __future__ import annotations

from service.rules.barcelona import melee, morale
from tests.support.dice import ScriptedDice
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, table_state, vehicle


def fight(state, a, d, dice):
    scripted = ScriptedDice(dice)
    event = melee.resolve(state, a, d, scripted)
    assert scripted.unused == []
    return event.data


def test_close_combat_figures_losing_by_2_or_more_are_removed():
    """CLOSE COMBAT: d6 each figure; figures losing by 2 or more are removed."""
    state = table_state(
        foot("n1", NAT, 30, 10, figures=2, moved=True), foot("r1", REP, 30, 10.8, figures=2)
    )
    data = fight(state, "n1", "r1", [1, 5, 3, 5])  # r1 rolls 1, 5; n1 rolls 3, 5
    assert data["casualties"] == {"r1": 1} and [b["loser"] for b in data["bouts"]] == ["r1", None]


def test_close_combat_second_figure_fighting_single_opponent_plus_2():
    """CLOSE COMBAT: +2 second figure fighting single opponent."""
    state = table_state(
        foot("n1", NAT, 30, 10, figures=2, moved=True), foot("r1", REP, 30, 10.8, figures=1)
    )
    data = fight(state, "n1", "r1", [4, 4, 4])
    assert [b["second_figure"] for b in data["bouts"]] == [False, True]
    assert data["bouts"][1]["totals"] == {"n1": 6, "r1": 4} and data["casualties"] == {"r1": 1}


def test_close_combat_ferocious_or_stubborn_plus_1_and_defences_minus_1():
    """CLOSE COMBAT: +1 ferocious or stubborn; -1 fighting to cross defences (not trench)."""
    state = table_state(
        foot("n1", NAT, 35, 15.2, troop="Moors", figures=1, moved=True),
        foot("r1", REP, 35, 16, figures=1),
    )
    data = fight(state, "n1", "r1", [3, 3])
    assert [m["value"] for m in data["modifiers"]["n1"]] == [-1, 1] and data["bouts"][0][
        "totals"
    ] == {"n1": 3, "r1": 3}


def test_close_combat_cavalry_vs_foot_in_the_open_plus_1():
    state = table_state(
        foot("n1", NAT, 30, 10, figures=1, attributes=["cavalry"], moved=True),
        foot("r1", REP, 30, 10.8, figures=1),
    )
    data = fight(state, "n1", "r1", [2, 3])
    assert data["modifiers"]["n1"][0]["modifier"] == "cavalry vs foot in the open" and data[
        "casualties"
    ] == {"r1": 1}


def test_close_combat_defender_shoots_if_not_moved_and_attacker_within_angle():
    """CLOSE COMBAT: defender may shoot only if he has not moved and attacker is within shooting angle."""
    state = table_state(
        foot("n1", NAT, 30, 10, figures=2, moved=True, contacted=["r1"]),
        foot("r1", REP, 30, 10.8, figures=1, bombs=False),
    )
    data = fight(
        state, "n1", "r1", [6, 3, 3]
    )  # r1 shoots (6 -1 moved into contact = hit), then 1 v 1
    assert data["shooting"]["casualties"] == {"n1": 1} and data["figures"] == {"n1": 1, "r1": 1}
    state = table_state(
        foot("n1", NAT, 30, 10, figures=1, moved=True, contacted=["r1"]),
        foot("r1", REP, 30, 10.8, figures=1, facing=90),
    )
    data = fight(state, "n1", "r1", [3, 3])
    assert data["shooting"] is None and not data["defender_may_shoot"]["allowed"]


def test_morale_unit_with_2_failures_removed_in_close_combat():
    state = table_state(
        foot("n1", NAT, 30, 10, figures=1), foot("r1", REP, 30, 10.8, figures=1, failures=2)
    )
    assert fight(state, "n1", "r1", [])["removed"] == ["r1"]


def test_morale_casualty_thresholds_by_unit_size_at_start_of_turn():
    """MORALE: 6 or less = 1; 7 to 12 = 2; over 13 = 3 (13 itself: labelled placeholder, 3)."""
    assert [morale.threshold(n) for n in (1, 6, 7, 12, 13, 14, 16)] == [1, 1, 2, 2, 3, 3, 3]


def test_morale_fail_if_roll_over_rating_and_the_three_failures():
    """MORALE: fail if they roll over their morale rating; third failure - remove unit."""
    state = table_state(
        foot(
            "r1",
            REP,
            30,
            20,
            figures=10,
            casualties=2,
            start_figures=12,
            failures=1,
            sources=["artillery"],
        )
    )
    event = morale.test(state, state["units"]["r1"], ScriptedDice([2, 3]))  # Militia morale 2
    assert event is not None
    assert [t["failed"] for t in event.data["tests"]] == [False, True]
    assert (
        event.data["failures"] == 2 and event.data["effect"] == "Second failure \u2013 no advance"
    )
    event = morale.test(state, {**state["units"]["r1"], "failures": 2}, ScriptedDice([6, 6]))
    assert event is not None
    assert event.data["removed"]


def test_morale_first_time_within_8_inches_of_afvs_and_acs_only_in_open():
    state = table_state(foot("r1", REP, 30, 20), vehicle("n7", NAT, "T26", 30, 13))
    assert [c["first"] for c in morale.causes(state, state["units"]["r1"])] == ["afv"]
    state = table_state(foot("r1", REP, 35, 18), vehicle("n7", NAT, "FAI A/C", 35, 12))
    assert morale.causes(state, state["units"]["r1"]) == []  # in cover: armoured cars do not count
    state["units"]["r1"]["tested"] = ["afv"]
    assert morale.causes(state, state["units"]["r1"]) == []


def test_morale_advancing_ferocious_ignore_first_test_in_any_move():
    """MORALE: advancing ferocious, defending stubborn, advancing cavalry ignore first test."""
    state = table_state(
        foot(
            "n1",
            NAT,
            30,
            20,
            troop="Moors",
            advanced=True,
            moved=True,
            sources=["artillery", "aircraft"],
        )
    )
    event = morale.test(state, state["units"]["n1"], ScriptedDice([6]))
    assert event is not None
    assert (
        event.data["tests"][0]["ignored"] == "advancing ferocious" and event.data["failures"] == 1
    )
    assert event.data["first"] == ["artillery", "aircraft"]


def test_morale_foot_in_open_contacted_by_cavalry():
    state = table_state(foot("r1", REP, 30, 20, cavalry_contact=True))
    assert [c["cause"] for c in morale.causes(state, state["units"]["r1"])] == [
        "foot in open contacted by cavalry"
    ]


def test_sequence_of_play_rallying_placeholder_removes_one_failure_on_morale_or_less():
    """SEQUENCE OF PLAY names "Rallying" without its rule: house.json ``rally`` (placeholder) -- a
    unit with failures, without casualties this turn and not in contact, removes one failure on a
    d6 at most its morale."""
    state = table_state(foot("n1", NAT, 30, 5, failures=2), foot("r1", REP, 30, 30))
    u = state["units"]["n1"]
    passed = morale.rally(state, u, ScriptedDice([u["morale"]]))
    assert passed is not None
    assert (passed.data["rallied"], passed.data["failures"], passed.data["placeholder"]) == (
        True,
        1,
        True,
    )
    failed = morale.rally(state, u, ScriptedDice([u["morale"] + 1]))
    assert failed is not None and (failed.data["rallied"], failed.data["failures"]) == (False, 2)
    u["casualties"] = 1
    assert morale.rally(state, u, ScriptedDice()) is None  # casualties this turn
    u["casualties"] = 0
    state["units"]["r1"].update(x=30.0, y=5.5)
    assert morale.rally(state, u, ScriptedDice()) is None  # in contact
    u["failures"] = 0
    state["units"]["r1"].update(y=30.0)
    assert morale.rally(state, u, ScriptedDice()) is None  # nothing to rally from
