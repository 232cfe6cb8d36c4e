"""The preview of an attack before it is declared (16.1-16.4, 9.1, 9.2, 19.2), on the rulebook's
worked example "The assault of Larache": the same checks and assessment as the declaration, the
defender's supports not yet known, and with limited intelligence nothing the attacker cannot see."""

from __future__ import annotations

import copy
import json

import pytest

from service.rules.backbone import SYSTEM
from service.rules.base import InvalidCommand, RuleViolation
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import counter, first, play
from tests.unit.rules.backbone.test_larache_example import ATTACK, DEFENCE, larache


def test_16_2_larache_preview_15_to_5_city_2_to_1_and_the_attackers_plus_6() -> None:
    """16.2 example: 10 + 3 + 5/2 across the river = 15 against 5 is 3:1, the city shifts it to
    2:1; HQ +2 (9.1), naval +1 (16.3) and air +3 (16.4) make +6.  The Legion's -1 comes with the
    defender's supports, designated after the declaration (16.3): the preview says it is pending."""
    st = larache()
    before = copy.deepcopy(st)
    preview = SYSTEM.previews.preview(st, "allied", ATTACK)
    assert st == before  # nothing declared, nothing spent
    assert (preview["attack"], preview["defence"]) == (15, 5)
    assert (preview["base_ratio"], preview["column"], preview["odds"]["column"]) == (
        "3:1",
        "2:1",
        "2:1",
    )
    assert preview["shifts"] == [{"cause": "city", "shift": -1, "rule": "16.3"}]
    assert [(m["cause"], m["value"], m["rule"]) for m in preview["modifiers"]] == [
        ("air support", 3, "16.4"),
        ("naval support", 1, "16.3"),
        ("HQ support", 2, "9.1"),
    ]
    assert preview["net_drm"] == 6 and preview["caps"]["attacker"]["cap"] == 6
    assert preview["defender_supports"]["designated"] is False
    assert preview["defender_supports"]["cap"] == -3
    assert sorted(preview["defenders"]) == ["es-2terleg", "es-58ri"]
    assert preview["table"] == "crt" and "limited_intelligence" not in preview

    play(st, "allied", ATTACK)
    resolved = first(play(st, "spanish", DEFENCE, [3]), "CombatResolved")
    assert resolved["odds"]["column"] == preview["column"]
    assert resolved["odds"]["column_shifts"] == [
        {"source": s["cause"], "columns": s["shift"], "rule": s["rule"]} for s in preview["shifts"]
    ]
    assert resolved["die_modifiers"]["attacker"] == [
        {"source": m["cause"], "drm": m["value"], "rule": m["rule"]} for m in preview["modifiers"]
    ]
    assert resolved["net_drm"] == preview["net_drm"] - 1  # the Legion, designated afterwards


def test_16_3_die_modifiers_capped_at_plus_6_the_correction_is_listed() -> None:
    """16.3: the attacker's modifiers never exceed +6: with the engineers' +1 against a city (9.2)
    the sum is 7, capped to 6, and the listed modifiers add up to the net modifier."""
    st = larache()
    st["units"]["us-eng"] = counter("us-eng", "allied", "9,4", type_="engineer", attack=1, steps=1)
    st["units"]["us-eng"]["seq"] = 99
    preview = SYSTEM.previews.preview(
        st, "allied", {**ATTACK, "units": ["us-ccb2ad", "us-70tk", "us-7ri", "us-eng"]}
    )
    assert preview["caps"]["attacker"]["raw"] == 7 and preview["caps"]["attacker"]["applied"] == 6
    assert preview["modifiers"][-1] == {
        "side": "attacker",
        "cause": "the attacker's modifiers capped at +6",
        "value": -1,
        "rule": "16.3",
    }
    assert sum(m["value"] for m in preview["modifiers"]) == preview["net_drm"] == 6


def fogged_larache() -> dict:
    st = larache()
    st["options"] = {**st["options"], "limited_intelligence": True}
    return st


def test_19_2_the_preview_on_the_attackers_view_reveals_nothing_under_the_top_unit() -> None:
    """19.2: only the top unit of an enemy stack is seen (the Legion, placed last in Larache).  The
    preview on the Allied view counts it alone, says so, and is exactly the preview of a board
    without the hidden 58th RI: nothing in it comes from the unit the Allies cannot see."""
    st = fogged_larache()
    view = SYSTEM.view(st, "allied")
    assert "es-58ri" not in view["units"]
    preview = SYSTEM.previews.preview(view, "allied", ATTACK)
    assert preview["defenders"] == ["es-2terleg"] and preview["defence"] == 3
    assert "es-58ri" not in json.dumps(preview)
    assert preview["limited_intelligence"]["rule"] == "19.2"
    assert preview["limited_intelligence"]["assessed_on"] == "visible units"
    without = copy.deepcopy(st)
    del without["units"]["es-58ri"]
    assert SYSTEM.previews.preview(without, "allied", ATTACK) == preview
    # once declared, the whole stack is revealed and fought (19.2, 16.1)
    declared = first(play(st, "allied", ATTACK), "CombatDeclared")
    assert sorted(declared["combat"]["defenders"]) == ["es-2terleg", "es-58ri"]


def test_19_2_a_refusal_judged_on_the_visible_units_says_so() -> None:
    """16.1: an attack whose final ratio is below 1:2 cannot be made; with limited intelligence the
    preview can only judge it on the units the attacker sees, and its refusal says so."""
    st = fogged_larache()
    st["units"]["es-2terleg"]["defense"] = 40
    with pytest.raises(RuleViolation) as err:
        SYSTEM.previews.preview(
            SYSTEM.view(st, "allied"),
            "allied",
            {"type": "attack", "target": "8,3", "units": ["us-7ri"]},
        )
    assert err.value.rule == "16.1" and "19.2" in err.value.message


def refusal(st: dict, side: str, command: dict) -> RuleViolation:
    with pytest.raises(RuleViolation) as err:
        SYSTEM.previews.preview(st, side, command)
    with pytest.raises(RuleViolation) as decided:
        SYSTEM.decide(copy.deepcopy(st), side, command, ScriptedDice())
    assert err.value.rule == decided.value.rule
    return err.value


def test_16_1_and_8_2_the_preview_refuses_what_the_declaration_refuses() -> None:
    """8.2: only the side whose combat phase it is attacks; 16.1: a target holding enemy units,
    adjacent attackers, each unit and each hex once a turn."""
    st = larache()
    assert refusal(st, "spanish", ATTACK).rule == "8.2"
    assert refusal(st, "allied", {**ATTACK, "target": "5,5"}).rule == "16.1"  # no enemy there
    assert refusal(st, "allied", {**ATTACK, "units": ["us-hq-wtf"]}).rule == "4"
    moved = larache()
    moved["step"] = "allied_movement"
    assert refusal(moved, "allied", ATTACK).rule == "8.2"
    st["attacked_hexes"] = ["8,3"]
    assert refusal(st, "allied", ATTACK).rule == "16.1"


def test_16_2_no_preview_while_a_declared_combat_is_resolved_and_attacks_only() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    with pytest.raises(RuleViolation) as err:
        SYSTEM.previews.preview(st, "spanish", ATTACK)
    assert err.value.rule == "16.2"
    with pytest.raises(InvalidCommand) as bad:
        SYSTEM.previews.preview(larache(), "allied", {"type": "end_phase"})
    assert "type" in bad.value.details
