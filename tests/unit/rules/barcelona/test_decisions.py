"""Choices the sheet gives a player in shooting, offered by the action list and judged by decide:
"Artillery: Choose target figure" and an MG's dice on different targets ("HMG may use up to 6 d6";
WEAPONS LIST: "each shot on different target").  The preferred choice (the first offered) and a
non-preferred one are accepted; an illegal one is refused citing the rule."""

from __future__ import annotations

import pytest

from service.rules.barcelona import SYSTEM
from service.rules.base import RuleViolation
from tests.support.dice import ScriptedDice
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, table_state, team


def shoot_template(state, unit):
    found = [
        t
        for t in SYSTEM.actions(state, NAT).as_dict()["actions"]
        if t["type"] == "shoot" and t["fixed"]["unit"] == unit
    ]
    assert found, "no shoot template"
    return found[0]


def artillery():
    return table_state(
        team("n5", NAT, "Field Gun", 30, 2), foot("r1", REP, 30, 30, figures=5), step="artillery"
    )


def test_artillery_offers_every_target_figure() -> None:
    template = shoot_template(artillery(), "n5")
    options = template["choose"]["targets"]["one_of"]
    assert [o[0]["figure"] for o in options] == [0, 1, 2, 3, 4]
    assert template["choose"]["targets"]["labels"][2].startswith("Militia company 1, figure 3")


@pytest.mark.parametrize("figure", [0, 3], ids=["preferred", "other figure"])
def test_artillery_the_chosen_figure_is_the_template_centre(figure: int) -> None:
    state = artillery()
    option = shoot_template(state, "n5")["choose"]["targets"]["one_of"][figure]
    command = {"type": "shoot", "unit": "n5", "weapon": "Field Gun", "targets": option}
    events = SYSTEM.decide(state, NAT, command, ScriptedDice([1]))  # a miss: no template tests
    assert events[0].data["targets"][0]["figure"] == figure


def test_artillery_a_figure_the_target_does_not_have_is_refused_citing_the_rule() -> None:
    command = {
        "type": "shoot",
        "unit": "n5",
        "weapon": "Field Gun",
        "targets": [{"unit": "r1", "dice": 1, "figure": 9}],
    }
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(artillery(), NAT, command, ScriptedDice([]))
    assert refused.value.rule == "SHOOTING" and "choose a target figure" in refused.value.message


def machine_gun():
    return table_state(
        team("n3", NAT, "HMG", 30, 5),
        foot("r1", REP, 26, 12, figures=10),
        foot("r2", REP, 34, 12, figures=10),
        step="hmg",
    )


def test_an_hmg_may_split_its_dice_between_two_targets() -> None:
    state = machine_gun()
    template = shoot_template(state, "n3")
    options = template["choose"]["targets"]["one_of"]
    whole = [o for o in options if len(o) == 1]
    split = [o for o in options if len(o) == 2]
    assert whole and whole[0][0]["dice"] == 6  # preferred: all six dice at one target
    assert split == [
        [{"unit": "r1", "dice": 3, "figure": 0}, {"unit": "r2", "dice": 3, "figure": 0}]
    ]
    for choice in (whole[0], split[0]):
        command = {"type": "shoot", "unit": "n3", "weapon": "HMG", "targets": choice}
        events = SYSTEM.decide(state, NAT, command, ScriptedDice([1] * 6))
        assert sum(len(t["dice"]) for t in events[0].data["targets"]) == 6


def test_an_hmg_over_six_dice_is_refused_citing_the_rule() -> None:
    command = {
        "type": "shoot",
        "unit": "n3",
        "weapon": "HMG",
        "targets": [{"unit": "r1", "dice": 4}, {"unit": "r2", "dice": 3}],
    }
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(machine_gun(), NAT, command, ScriptedDice([]))
    assert refused.value.rule == "SHOOTING" and "up to 6 d6" in refused.value.message
