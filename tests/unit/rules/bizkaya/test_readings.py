"""Readings of the Bizkaya rulebook that clubs differ on, each a declared conflict with a game
option (``service/rules/bizkaya/rulebook.py``): both readings played, each test citing the rule
and quoting its text."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.base import ScenarioError
from service.rules.bizkaya import SYSTEM
from service.rules.bizkaya.rulebook import OPTIONS, RULEBOOK
from tests.unit.rules.bizkaya.conftest import event, play
from tests.unit.rules.bizkaya.test_combat import attack_all, example

CONFLICTS = {c.key: c for c in RULEBOOK.conflicts}


def _with(state: dict[str, Any], **options: Any) -> dict[str, Any]:
    state["options"] = {**state.get("options", {}), **options}
    return state


# -- 6 Euphoria: which morale difference it doubles (bizkaya:conflict-euphoria-doubling) ------------
def _morale_modifiers(option: str | None, *, euphoric: str, leader: str = "lacar") -> list[dict]:
    """13's example on clear ground: the Nationalists (lacar morale 5, the 6-6/3 groups morale 3)
    attack v16 (morale 2); ``euphoric`` names the side whose stacks are all euphoric."""
    state = example(**{"0404": "clear"})
    if option is not None:
        _with(state, euphoria_doubling=option)
    ids = ("g1", "g2", "g3", "lacar") if euphoric == "nationalist" else ("v16",)
    for uid in ids:
        state["units"][uid]["euphoric"] = True
    if euphoric == "nationalist":
        state["units"]["v16"]["morale"] = 4  # the euphoric attackers' leader has the lower morale
    attack_all(state)
    events = play(state, "nationalist", {"type": "choose_leader", "unit": leader}, dice=[3, 3])
    return [m for m in event(events, "CombatResolved")["modifiers"] if m["rule"] in ("6", "13")]


def test_6_by_default_the_difference_is_doubled_whichever_side_it_favours() -> None:
    """6: "If all attacking stacks are Euphoric, the morale modifier difference of the leader
    unit(s) is doubled. Same if all defending units are euphoric." -- the difference 13 defines
    ("the attacker gets a +2 drm"), as written: a euphoric defender (v16, morale 2) against lacar
    (morale 5) doubles the attacker's +3 to +6."""
    for option in (None, "any_difference"):
        mods = _morale_modifiers(option, euphoric="republican")
        assert [(m["rule"], m["value"]) for m in mods] == [("13", 3), ("6", 3)]
        assert mods[1]["cause"] == "defending stacks euphoric: morale difference doubled"
    # euphoric attackers led by a morale 3 unit against morale 4: -1 doubled to -2
    mods = _morale_modifiers(None, euphoric="nationalist", leader="g1")
    assert [(m["rule"], m["value"]) for m in mods] == [("13", -1), ("6", -1)]


def test_6_option_in_its_favour_doubles_only_the_euphoric_sides_advantage() -> None:
    """6: 'Stacks become "Euphoric" when they get a favorable result', a reward; with the game
    option ``euphoria_doubling: in_its_favour`` "the morale modifier difference ... is doubled"
    only when it favours the euphoric side: the euphoric defender no longer doubles the
    attacker's +3, euphoric attackers no longer double their own -1."""
    mods = _morale_modifiers("in_its_favour", euphoric="republican")
    assert [(m["rule"], m["value"]) for m in mods] == [("13", 3)]
    mods = _morale_modifiers("in_its_favour", euphoric="nationalist", leader="g1")
    assert [(m["rule"], m["value"]) for m in mods] == [("13", -1)]
    # in the euphoric side's favour it is doubled as before: euphoric attackers led by lacar
    mods = _morale_modifiers("in_its_favour", euphoric="nationalist")
    assert [(m["rule"], m["value"]) for m in mods] == [("13", 1), ("6", 1)]


def test_6_the_combat_preview_takes_the_euphoria_reading() -> None:
    """The preview situation names the reading (``euphoria_doubling``); a bad one is refused
    naming the field."""
    from service.rules.base import InvalidCommand
    from service.rules.bizkaya.combat import assess

    situation = {
        "attackers": [{"id": "a", "attack": 6, "morale": 5}],
        "defenders": [{"id": "d", "defence": 3, "morale": 2}],
        "defender_euphoric": True,
    }
    values = [m["value"] for m in assess(situation)["modifiers"]]
    assert values == [3, 3]
    favour = assess({**situation, "euphoria_doubling": "in_its_favour"})["modifiers"]
    assert [m["value"] for m in favour] == [3]
    with pytest.raises(InvalidCommand) as bad:
        assess({**situation, "euphoria_doubling": "never"})
    assert "euphoria_doubling" in bad.value.details


# -- 13 Holding instead of retreating: each unit, or all must pass (bizkaya:conflict-hold-check) ---
def _stack_told_to_retreat(option: str | None, *, demoralized: bool = False) -> dict[str, Any]:
    """13's example with a second Republican brigade (v17) in 0404, both of morale 5: dice 3 and
    3 give DR (no modifier to the morale check; DR1 with v16 demoralized)."""
    from service.rules.bizkaya.setup import _unit
    from service.rules.scenario.model import UnitSpec

    state = example()
    if option is not None:
        _with(state, hold_check=option)
    v17 = UnitSpec("v17", "republican", "brigade", 3, {"attack": 1, "defence": 1, "morale": 5})
    state["units"]["v17"] = {**_unit(v17), "hex": "0404", "status": "map"}
    state["units"]["v16"].update(morale=5, demoralized=demoralized)
    attack_all(state)
    lacar = {"type": "choose_leader", "unit": "lacar"}
    if demoralized:  # v16 may not lead (6): v17 leads without a choice
        events = play(state, "nationalist", lacar, dice=[3, 3])
    else:
        play(state, "nationalist", lacar)
        events = play(state, "republican", {"type": "choose_leader", "unit": "v17"}, dice=[3, 3])
    due = event(events, "RetreatDue")  # a demoralized defender gives the attacker +1 (6): DR1
    expected = ("DR1", 1) if demoralized else ("DR", 0)
    assert (due["reason"], due["drm"], due["units"]) == (*expected, ["v16", "v17"])
    return state


def _hold(state: dict[str, Any]) -> dict[str, Any]:
    """v16 rolls 6 (fails against morale 5), v17 rolls 2 (passes)."""
    return event(play(state, "republican", {"type": "hold"}, dice=[6, 2]), "HoldChecked")


def test_13_by_default_the_units_that_pass_stay_and_those_that_fail_retreat() -> None:
    """13: "To avoid retreat, all units must pass a morale check" -- each unit's check (6: "Roll
    1d6 for each unit"); "If the units fail the morale check, became demoralized and must
    retreat": v16 fails and goes back demoralized, v17 passed and keeps the hex."""
    for option in (None, "each_unit"):
        state = _stack_told_to_retreat(option)
        held = _hold(state)
        assert [c["passed"] for c in held["checks"]] == [False, True]
        assert (held["stay"], held["retreat"]) == (["v17"], ["v16"])
        assert "all_must_pass" not in held
        assert state["units"]["v16"]["demoralized"] and not state["units"]["v17"]["demoralized"]
    # a demoralized unit does not try ("Demoralized units may not attempt avoiding retreat"):
    # the others still may
    state = _stack_told_to_retreat(None, demoralized=True)
    assert state["combat"]["retreat"]["may_hold"] is True
    held = event(play(state, "republican", {"type": "hold"}, dice=[2]), "HoldChecked")
    assert [c["unit"] for c in held["checks"]] == ["v17"]
    assert (held["stay"], held["retreat"]) == (["v17"], ["v16"])


def test_13_option_whole_stack_one_failed_check_sends_every_unit_back() -> None:
    """13: "To avoid retreat, all units must pass a morale check" read as a condition on them
    all (game option ``hold_check: whole_stack``): v17 passes but v16 fails, so both retreat;
    only v16, which failed, is demoralized ("If the units fail the morale check, became
    demoralized and must retreat")."""
    state = _stack_told_to_retreat("whole_stack")
    events = play(state, "republican", {"type": "hold"}, dice=[6, 2])
    held = event(events, "HoldChecked")
    assert [c["passed"] for c in held["checks"]] == [False, True]
    assert (held["stay"], held["retreat"], held["all_must_pass"]) == ([], ["v16", "v17"], True)
    assert state["units"]["v16"]["demoralized"] and not state["units"]["v17"]["demoralized"]
    assert state["combat"]["retreat"]["units"] == ["v16", "v17"]
    words = SYSTEM.describe(events[0], state)
    assert words.endswith("(all must pass the morale check, 13)")
    # both pass: both stay
    state = _stack_told_to_retreat("whole_stack")
    held = event(play(state, "republican", {"type": "hold"}, dice=[5, 2]), "HoldChecked")
    assert (held["stay"], held["retreat"]) == (["v16", "v17"], [])


def test_13_option_whole_stack_a_demoralized_unit_keeps_the_stack_from_holding() -> None:
    """13: "Demoralized units may not attempt avoiding retreat" -- with ``hold_check:
    whole_stack`` one of them means not all can pass: no hold is offered, and one sent is
    refused citing rule 13."""
    from service.rules.base import RuleViolation

    state = _stack_told_to_retreat("whole_stack", demoralized=True)
    assert state["combat"]["retreat"]["may_hold"] is False
    listed = [t["type"] for t in SYSTEM.actions(state, "republican").as_dict()["actions"]]
    assert "hold" not in listed and "retreat" in listed
    with pytest.raises(RuleViolation) as refused:
        play(state, "republican", {"type": "hold"}, dice=[2])
    assert refused.value.rule == "13"


# -- the options: declared by the system, defaulted, checked, each a conflict entry ----------------
@pytest.mark.parametrize(
    ("option", "key", "default", "other"),
    [
        ("euphoria_doubling", "euphoria-doubling", "any_difference", "in_its_favour"),
        ("hold_check", "hold-check", "each_unit", "whole_stack"),
    ],
)
def test_the_readings_are_game_options_and_conflict_entries(
    option: str, key: str, default: str, other: str
) -> None:
    assert SYSTEM.default_options("bizkaya-1937")[option] == default
    offered = {o["name"]: o for o in SYSTEM.scenarios()[0].options}[option]
    assert offered["choices"] == [default, other] and "rules search" in offered["description"]
    assert option not in SYSTEM.initial_state("bizkaya-1937", {})["options"]
    assert SYSTEM.initial_state("bizkaya-1937", {option: other})["options"][option] == other
    with pytest.raises(ScenarioError) as bad:
        SYSTEM.initial_state("bizkaya-1937", {option: "neither"})
    assert f"options.{option}" in bad.value.problems
    assert CONFLICTS[key].option == option and option in OPTIONS
    assert "by default" in CONFLICTS[key].engine_reading
    assert f"set the game option {option} to {other}" in CONFLICTS[key].engine_reading
