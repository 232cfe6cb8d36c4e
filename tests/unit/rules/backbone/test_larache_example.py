"""The rulebook's worked example "The assault of Larache" (9.1, 9.2, 16.2-16.7), every number.

Fixture: Larache 8,3 (city, Atlantic coast); the CCB/2nd AD and the 70th Tank Btl attack from the
south (9,3), the 7th RI from the south-east (9,4) across a river; the GFRI 3 stands in 8,4, across
a river from Larache and next to the 7th RI; the WTF HQ is 2 hexes away, the IX CE HQ 3."""

from __future__ import annotations

import pytest

from service.rules.backbone import combat_flow
from service.rules.backbone.combat import evaluate
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state


def larache() -> dict:
    mapd = board(
        terrain={"8,2": "sea", "7,3": "sea", "7,2": "sea"},
        hexsides=[("8,3", "9,4", ["river"]), ("8,3", "8,4", ["river"])],
        places=[("Larache", "8,3", True), *REQUIRED_CITIES],
        features={"8,3": ["coast_atlantic"]},
    )
    units = [
        counter("es-gfri3", "spanish", "8,4", type_="regulars", defense=3, efficiency=2, steps=3),
        counter("es-58ri", "spanish", "8,3", defense=2, efficiency=1, steps=2),
        counter("es-2terleg", "spanish", "8,3", type_="legion", defense=3, efficiency=2, steps=2),
        counter("es-hq-ix", "spanish", "5,3", type_="hq", defense=1, steps=1),
        counter("us-ccb2ad", "allied", "9,3", type_="armor", attack=10, mp=5, steps=4),
        counter("us-70tk", "allied", "9,3", type_="armor", attack=3, mp=5, steps=1),
        counter("us-7ri", "allied", "9,4", attack=5, steps=3),
        counter("us-hq-wtf", "allied", "10,3", type_="hq", steps=1, mp=5),
    ]
    return state(units, mapd, step="allied_combat", turn=3)


ATTACK = {
    "type": "attack",
    "target": "8,3",
    "units": ["us-ccb2ad", "us-70tk", "us-7ri"],
    "hq": "us-hq-wtf",
    "air": 3,
    "naval": 1,
    "own_losses": ["us-7ri"],
    "enemy_losses": ["es-2terleg"],
}
DEFENCE = {"type": "defend", "efficiency": 2, "legion": True}


def test_16_2_larache_odds_15_to_5_city_2_to_1_and_plus_5() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    outcome = evaluate(
        combat_flow.situation(st, st["combat"], {"efficiency": 2, "legion": True}, 3)
    )
    assert outcome["attack"]["total"] == 15  # 10 + 3 + 5/2 across the river
    assert outcome["defense"]["total"] == 5
    assert outcome["base_ratio"] == "3:1"
    assert outcome["efficiency"]["defender"]["tied"] == [1, 2]
    assert [s["source"] for s in outcome["column_shifts"]] == [
        "city"
    ]  # no envelopment, no efficiency
    assert outcome["column"] == "2:1"
    assert outcome["caps"]["attacker"]["applied"] == 6  # HQ 2 + naval 1 + air 3
    assert outcome["caps"]["defender"]["applied"] == -1  # the Legion
    assert outcome["net_drm"] == 5
    assert outcome["modified_roll"] == 8 and outcome["result"]["text"] == "1/2R"


def test_16_3_choosing_efficiency_1_would_have_given_4_to_1() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    outcome = evaluate(combat_flow.situation(st, st["combat"], {"efficiency": 1}))
    assert outcome["column"] == "3:1"  # 3:1 +1 efficiency -1 city


def test_9_1_spanish_hq_more_than_1_hex_away_cannot_support() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    with pytest.raises(RuleViolation) as err:
        play(st, "spanish", {**DEFENCE, "hq": "es-hq-ix"}, [3])
    assert err.value.rule == "9.1"


def test_16_6_larache_losses_retreat_and_advance() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    events = play(st, "spanish", DEFENCE, [3])
    resolved = first(events, "CombatResolved")
    assert resolved["result"]["text"] == "1/2R"
    assert resolved["losses"]["attacker"] == [{"unit": "us-7ri", "step": 1, "chosen_by": "owner"}]
    assert resolved["losses"]["defender"] == [
        {"unit": "es-2terleg", "step": 1, "chosen_by": "owner"},  # the Legion used its ability
        {"unit": "es-2terleg", "step": 2, "chosen_by": "opponent"},  # the Allies pick it again
    ]
    assert st["units"]["es-2terleg"]["status"] == "eliminated"
    assert st["units"]["us-7ri"]["steps"] == 2
    assert st["air"]["allied"] == 3 and st["naval"]["points"] == 1
    # 16.5: the 58th RI alone (2 steps, efficiency 1, no HQ) has no last stand modifier
    with pytest.raises(RuleViolation) as err:
        play(st, "spanish", {"type": "retreat", "last_stand": True})
    assert err.value.rule == "16.5"
    # 16.7: 9,2 is an empty hex in the armor's ZOC: not allowed while 8,4 (GFRI 3) is free
    assert combat_flow.retreat_options(st) == {"hexes": ["8,4"], "extra_loss": False}
    with pytest.raises(RuleViolation):
        play(st, "spanish", {"type": "retreat", "to": "9,2"})
    retreat = first(play(st, "spanish", {"type": "retreat", "to": "8,4"}), "UnitsRetreated")
    assert retreat["extra_losses"] == []  # the 7th RI's ZOC is negated by the GFRI 3
    assert st["units"]["es-58ri"]["hex"] == "8,4" and st["units"]["es-58ri"]["steps"] == 2
    with pytest.raises(RuleViolation):
        play(st, "allied", {"type": "advance", "units": []})  # one unit must advance
    play(st, "allied", {"type": "advance", "units": ["us-ccb2ad", "us-70tk"]})
    assert st["units"]["us-ccb2ad"]["hex"] == "8,3" and st["units"]["us-70tk"]["hex"] == "8,3"
    assert st["control"]["8,3"] == "allied"
    assert sorted(st["exploiters"]) == ["us-70tk", "us-ccb2ad"] and st["exploit_target"] == "8,4"


def test_16_7_larache_exploitation_would_be_1_to_1_without_support() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    play(st, "spanish", DEFENCE, [3])
    play(st, "spanish", {"type": "retreat", "to": "8,4"})
    play(st, "allied", {"type": "advance", "units": ["us-ccb2ad", "us-70tk"]})
    exploit = {
        "type": "attack",
        "target": "8,4",
        "units": ["us-ccb2ad", "us-70tk"],
        "exploitation": True,
    }
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {**exploit, "air": 1})
    assert err.value.rule == "16.7"
    play(st, "allied", exploit)
    outcome = evaluate(combat_flow.situation(st, st["combat"], {}))
    assert outcome["attack"]["total"] == 6  # 13 / 2 across the river
    assert outcome["defense"]["total"] == 5  # retreated units defend with full factors
    assert outcome["column"] == "1:1" and outcome["net_drm"] == 0


def test_16_1_a_hex_is_attacked_once_and_a_unit_attacks_once_per_turn() -> None:
    st = larache()
    play(st, "allied", ATTACK)
    play(st, "spanish", {"type": "defend"}, [1])  # 2:1 at 1+6 = 7: -/1R
    assert st["combat"]["stage"] == "retreat"
    play(st, "spanish", {"type": "retreat", "to": "8,4"})
    play(st, "allied", {"type": "advance", "units": ["us-7ri"]})
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "attack", "target": "8,4", "units": ["us-7ri"]})
    assert err.value.rule == "16.1" and "already attacked" in err.value.message
