"""Backbone's combat as written (issue 47): rules 16.7, 16.3, 9.2 and 10.2 read line by line
against the code. Each test cites the rule and quotes its text."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.actions import Template
from service.rules.backbone import SYSTEM
from service.rules.backbone.combat import evaluate, parse_situation
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state
from tests.unit.rules.backbone.test_larache_example import ATTACK, DEFENCE, larache


def combat(units: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return state(units, board(places=REQUIRED_CITIES), step=kw.pop("step", "allied_combat"), **kw)


def built_from(command: dict[str, Any], templates: list[Template]) -> bool:
    """Whether ``command`` is one a template makes: its fixed fields, one option per ``one_of``
    and a subset of each ``some_of`` (order kept)."""
    for t in templates:
        if {**t.fixed, "type": t.type} != {
            k: command[k] for k in [*t.fixed, "type"] if k in command
        }:
            continue
        rest = {k: v for k, v in command.items() if k not in t.fixed and k != "type"}
        if set(rest) - set(t.choose):
            continue
        ok = True
        for name, value in rest.items():
            choice = t.choose[name]
            if choice.many:
                ok = ok and set(value) <= set(choice.options) and choice.min <= len(value)
            else:
                ok = ok and value in choice.options
        if ok:
            return True
    return False


# -- 16.7: units that retreated to a vacant hex ----------------------------------------------------
def retreated_alone(exploiter: bool = False) -> dict[str, Any]:
    """A Spanish unit that retreated this turn into 5,5, empty before; a fresh Allied unit next to it
    (and, with ``exploiter``, armor that advanced after that combat)."""
    units = [
        counter("d", "spanish", "5,5", defense=4, steps=2, retreated_turn=2, retreated_into="5,5"),
        counter("fresh", "allied", "6,5", attack=4),
    ]
    extra: dict[str, Any] = {}
    if exploiter:
        units.append(counter("tk", "allied", "5,6", type_="armor", attack=4))
        extra = {"exploiters": ["tk"], "exploit_target": "5,5", "attacked_units": ["tk"]}
    return combat(units, **extra)


def test_16_7_a_unit_of_no_previous_combat_may_not_attack_units_retreated_to_a_vacant_hex() -> None:
    """16.7: "If they retreat to a vacant hex, an enemy unit(s) that did not participate in the
    previous combat may not attack those retreating units." Before, the attack was listed and
    accepted, and the retreated unit counted for nothing (a defence of 1: 4:1 where 1:1 was due)."""
    st = retreated_alone()
    assert [t.fixed.get("target") for t in SYSTEM.actions(st, "allied").of_type("attack")] == []
    with pytest.raises(RuleViolation) as refused:
        play(st, "allied", {"type": "attack", "target": "5,5", "units": ["fresh"]})
    assert (refused.value.rule, refused.value.field) == ("16.7", "target")
    assert st["combat"] is None  # nothing declared


def test_16_7_the_exploiting_armor_attacks_them_and_they_defend_with_their_full_factor() -> None:
    """16.7: "Units that have retreated, and that do so to a vacant hex or with friendly units, may
    be attacked again by units that exploited the previous combat, and will defend themselves with
    their full defense factor." """
    st = retreated_alone(exploiter=True)
    attack = {"type": "attack", "target": "5,5", "units": ["tk"], "exploitation": True}
    assert built_from(attack, SYSTEM.actions(st, "allied").of_type("attack"))
    play(st, "allied", attack)
    resolved = first(play(st, "spanish", {"type": "defend"}, [1]), "CombatResolved")
    assert (resolved["attack"], resolved["defense"]) == (4, 4)  # 1:1, the full factor


def test_16_7_retreated_into_their_own_units_they_add_no_defensive_value() -> None:
    """16.7: "If the retreat takes them to a hex with their own units that will be attacked in
    another subsequent combat, the previously retired units do not add any defensive value"."""
    st = combat(
        [
            counter("d", "spanish", "5,5", defense=4, retreated_turn=2, retreated_into="5,5"),
            counter("held", "spanish", "5,5", defense=2),
            counter("fresh", "allied", "6,5", attack=4),
        ]
    )
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["fresh"]})
    resolved = first(play(st, "spanish", {"type": "defend"}, [1]), "CombatResolved")
    assert (resolved["attack"], resolved["defense"]) == (4, 2)


def test_16_7_the_combat_preview_refuses_a_fresh_attack_on_retreated_units_alone() -> None:
    """16.7 in a situation sent to the combat preview: every defender ``retreated`` and no
    exploitation is the attack 16.7 forbids."""
    situation = {
        "attacker_side": "allied",
        "attackers": [{"attack": 4, "efficiency": 2, "steps": 3, "tags": ["armor"]}],
        "defenders": [{"defense": 4, "efficiency": 2, "steps": 2, "retreated": True}],
    }
    from service.rules.backbone.combat import CombatError

    with pytest.raises(CombatError) as refused:
        evaluate(parse_situation(situation))
    assert refused.value.rule == "16.7"
    full = evaluate(parse_situation({**situation, "exploitation": True}))
    assert full["defense"]["total"] == 4


# -- 16.3 and 16.1: the supports and the attackers are the player's choice --------------------------
def test_16_3_the_larache_attack_and_defence_are_built_from_the_action_list() -> None:
    """16.3: "Supports. They will be designated first by the attacker and then by the defender";
    16.1: "The attacker can choose to attack with one, some or all units from those adjacent
    hexes". The Larache attack (HQ, 3 air, 1 naval) and defence (the Legion's -1, efficiency 2)
    are commands the action list makes; before, the attack's units were fixed and no support
    could be chosen."""
    st = larache()
    attacks = SYSTEM.actions(st, "allied").of_type("attack")
    assert built_from(ATTACK, attacks)
    template = next(t for t in attacks if "units" in t.choose)
    assert template.choose["units"].min == 1  # one, some or all
    assert built_from({**ATTACK, "units": ["us-7ri"]}, attacks)
    play(st, "allied", ATTACK)
    assert built_from(DEFENCE, SYSTEM.actions(st, "spanish").of_type("defend"))


def test_16_3_hq_support_needs_the_supported_units_in_supply() -> None:
    """16.3: "CG / HQ support: ... of the combat target hex, provided the units are in supply"
    (9.1: the units that want this support must "have supply line to him"). The HQ in supply
    does not give its +2 to an attacker out of supply; before, only the HQ's supply was checked."""
    st = combat(
        [
            counter("a", "allied", "6,5", attack=8, supplied=False),
            counter("hq", "allied", "6,6", type_="hq", attack=0),
            counter("d", "spanish", "5,5", defense=2),
        ]
    )
    templates = SYSTEM.actions(st, "allied").of_type("attack")
    assert all("hq" not in t.choose for t in templates)
    with pytest.raises(RuleViolation) as refused:
        play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "hq": "hq"})
    assert (refused.value.rule, refused.value.field) == ("16.3", "hq")
    st["units"]["a"]["supplied"] = True
    assert any("hq" in t.choose for t in SYSTEM.actions(st, "allied").of_type("attack"))
    declared = first(
        play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "hq": "hq"}),
        "CombatDeclared",
    )
    assert declared["combat"]["supports"]["hq"] == "hq"


# -- 10.2: Dissensions in the Axis -----------------------------------------------------------------
def _dissensions(attackers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    situation = {
        "attacker_side": "spanish",
        "dissensions": True,
        "attackers": attackers,
        "defenders": [{"defense": 2, "efficiency": 2, "steps": 3, "nation": "us"}],
    }
    return [m for m in evaluate(parse_situation(situation))["die_modifiers"]["attacker"]]


def test_10_2_dissensions_only_where_spanish_and_german_units_are_stacked_together() -> None:
    """10.2 Dissensions in the Axis: "Effects: where Spanish and German units are stacked together.
    These when defending or attacking, will have a penalty of +1MD or -1MD in combat." A Spanish
    and a German unit attacking from two hexes are not stacked: no penalty (before: -1)."""
    es = {"attack": 4, "efficiency": 2, "steps": 3, "nation": "es", "from": "6,5"}
    apart = _dissensions([es, {**es, "nation": "de", "from": "5,6"}])
    assert [m["source"] for m in apart] == []
    together = _dissensions([es, {**es, "nation": "de"}])
    assert [(m["source"], m["drm"], m["rule"]) for m in together] == [
        ("Dissensions in the Axis", -1, "10.2")
    ]


# -- 9.2 and 16.6: the engineers' first loss (backbone:conflict-engineer-first-loss) --------------
def _engineers_first_loss(option: str | None, city: bool) -> list[str]:
    situation: dict[str, Any] = {
        "attacker_side": "allied",
        "city": city,
        "attackers": [
            {"id": "eng", "attack": 2, "efficiency": 1, "steps": 1, "tags": ["engineer"]},
            {"id": "inf", "attack": 8, "efficiency": 2, "steps": 3},
        ],
        "defenders": [{"id": "d", "defense": 2, "efficiency": 2, "steps": 3}],
    }
    if option is not None:
        situation["engineer_first_loss"] = option
    return list(evaluate(parse_situation(situation))["first_loss"]["attacker"])


def test_16_6_by_default_the_engineers_take_the_first_loss_when_their_modifier_applied() -> None:
    """16.6: "The first step of the casualties is for a unit that has used its special abilities,
    (engineers or legionnaires)." and "If units with special abilities have not been used, the
    first step of casualties go over to the unit whose efficiency has been used"; 9.2: "these
    units provide +1 MD when attacking city hexes or hexes containing fortifications"."""
    assert _engineers_first_loss(None, city=True) == ["eng"]
    assert _engineers_first_loss(None, city=False) == ["inf"]
    assert _engineers_first_loss("ability_used", city=False) == ["inf"]


def test_9_2_option_always_the_engineers_take_the_first_loss_wherever_they_fight() -> None:
    """9.2 Engineers: "If there are casualties, the engineers will compulsorily receive the first
    of them." With the game option ``engineer_first_loss: always`` they do, city or not; before,
    the option did not exist (the preview refused the field) and the engineers took the first loss
    only attacking a city or fortification, a reading nowhere declared."""
    assert _engineers_first_loss("always", city=False) == ["eng"]
    assert _engineers_first_loss("always", city=True) == ["eng"]


def test_9_2_the_engineer_option_is_a_declared_reading_of_every_scenario() -> None:
    """The other reading is a game option of every scenario, played in a game (9.2)."""
    from service.rules.backbone.rulebook import OPTIONS, RULEBOOK

    assert OPTIONS["engineer_first_loss"]["choices"] == ["ability_used", "always"]
    assert "engineer-first-loss" in [c.key for c in RULEBOOK.conflicts]
    for info in SYSTEM.scenarios():
        assert SYSTEM.default_options(info.id).get("engineer_first_loss", "ability_used") == (
            "ability_used"
        )
    st = combat(
        [
            counter("eng", "allied", "6,5", type_="engineer", attack=2, efficiency=1, steps=1),
            counter("inf", "allied", "5,6", attack=8, efficiency=2, steps=3),
            counter("d", "spanish", "5,5", defense=2, steps=3),
        ]
    )
    st["options"]["engineer_first_loss"] = "always"
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["eng", "inf"]})
    resolved = first(play(st, "spanish", {"type": "defend"}, [1]), "CombatResolved")
    assert resolved["losses"]["attacker"][0]["unit"] == "eng"


def test_16_3_the_fjr_defending_offers_its_efficiency() -> None:
    """16.3 note: "Use the efficiency of the Paratrooper Regiment (FJR) or German Mountain
    Regiment (GJR) as 3 or 2 as appropriate to the Spanish player." The defence offers it
    (``efficiency_as``), and each option is accepted."""
    st = combat(
        [
            counter("a", "allied", "6,5", attack=12),
            counter("fjr", "spanish", "5,5", type_="fallschirmjager", nation="de", efficiency=3),
            counter("ri", "spanish", "5,5", defense=2, efficiency=2, steps=3),
        ]
    )
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    (template,) = SYSTEM.actions(st, "spanish").of_type("defend")
    assert template.choose["efficiency_as"].options == ({}, {"fjr": 3}, {"fjr": 2})
    for option in template.choose["efficiency_as"].options:
        SYSTEM.decide(st, "spanish", {"type": "defend", "efficiency_as": option}, _dice())


def _dice() -> Any:
    from tests.support.dice import ScriptedDice

    return ScriptedDice([1])


# -- 10.2: the German offensive in Tunisia ---------------------------------------------------------
def test_10_2_tunisia_takes_battalions_on_the_map_or_ready_paratroopers_not_units_afloat() -> None:
    """10.2 German limited Offensive in Tunisia: the Allied player "has to withdraw two battalions
    (of armored / tank destroyers / commandos / rangers or paratroopers), from the game ... from
    among those units on the map (or ready for use in the case of paratroopers), and are in
    supply." A battalion still afloat (14) is neither; before, it was offered and taken."""
    from service.rules.backbone.playing import tunisia_battalions

    st = combat(
        [
            counter("tk", "allied", "6,5", type_="armor", battalion=True),
            counter("cdo", "allied", None, type_="commando", battalion=True, status="afloat"),
            counter("para", "allied", None, type_="paratroop", battalion=True, status="ready"),
        ]
    )
    assert sorted(u["id"] for u in tunisia_battalions(st)) == ["para", "tk"]
