"""Combat in play: losses (16.6), retreats (16.7), last stand (16.5), supports once per turn (9.1,
16.4), one Spanish attack per corps and limited offensive supply (12.3)."""

from __future__ import annotations

import pytest

from service.rules.backbone.losses import satisfiable
from service.rules.base import RuleViolation
from tests.unit.rules.backbone.fixtures import REQUIRED_CITIES, board, counter, first, play, state


def duel(
    attackers: list[dict],
    defenders: list[dict],
    terrain: dict | None = None,
    places: list | None = None,
    hexsides: list | None = None,
    **kw,
) -> dict:
    mapd = board(terrain=terrain, places=[*REQUIRED_CITIES, *(places or [])], hexsides=hexsides)
    return state(attackers + defenders, mapd, step=kw.pop("step", "allied_combat"), **kw)


def test_16_6_unsatisfiable_losses_examples() -> None:
    """16.6 example: 2/2 with 3 attacking steps and 1 defending: 1 and 1; 1/2: 0 and 1."""
    assert satisfiable(2, 2, 3, 1) == (1, 1)
    assert satisfiable(1, 2, 3, 1) == (0, 1)
    assert satisfiable(3, 0, 2, 5) == (2, 0)


def test_16_6_loss_order_owner_opponent_owner_opponent() -> None:
    st = duel(
        [counter("a", "allied", "6,5", attack=30, steps=4)],
        [
            counter("d1", "spanish", "5,5", defense=1, steps=2, efficiency=2),
            counter("d2", "spanish", "5,5", defense=1, steps=2, efficiency=1),
        ],
    )
    play(
        st,
        "allied",
        {"type": "attack", "target": "5,5", "units": ["a"], "enemy_losses": ["d2", "d1"]},
    )
    resolved = first(
        play(st, "spanish", {"type": "defend", "own_losses": ["d2"], "efficiency": 2}, [6]),
        "CombatResolved",
    )
    assert resolved["result"]["text"] == "-/3R"  # 6:1 (15:1), roll 6
    assert [(x["unit"], x["chosen_by"]) for x in resolved["losses"]["defender"]] == [
        ("d1", "owner"),  # efficiency 2 was used: a unit of that efficiency takes the first loss
        ("d2", "opponent"),
        ("d2", "owner"),
    ]


def retreat_state(**kw) -> dict:
    return duel(
        [counter("a", "allied", "6,5", attack=12), counter("b", "allied", "5,6", attack=12)],
        kw.pop("defenders", [counter("d", "spanish", "5,5", defense=4, steps=3)]),
        **kw,
    )


def test_16_7_retreat_into_an_empty_enemy_zoc_costs_a_step() -> None:
    st = retreat_state(terrain={"5,4": "sea"})
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend"}, [4])  # 6:1 on 4: -/2R
    from service.rules.backbone.combat_flow import retreat_options

    assert retreat_options(st) == {"hexes": ["4,5", "6,4"], "extra_loss": True}
    retreated = first(play(st, "spanish", {"type": "retreat", "to": "4,5"}), "UnitsRetreated")
    assert retreated["extra_losses"] == ["d"]
    assert retreated["eliminated"] == ["d"]  # 3 steps - 2 - 1 extra


def test_16_7_retreat_to_a_free_hex_away_from_the_attackers() -> None:
    st = retreat_state()
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend"}, [4])
    from service.rules.backbone.combat_flow import retreat_options

    assert retreat_options(st) == {"hexes": ["5,4"], "extra_loss": False}


def test_15_2_armour_never_retreats_into_a_mountain_hex_but_by_road() -> None:
    """15.2: "Mountain: 3 MP. *For armored units (tanks or tank destroyers), it is impassable
    terrain, except through the roads that are reflected on the map." A retreat (16.7) enters its
    hex as any move does: the free hex away from the attackers is a mountain, so a tank retreats
    only into the enemy ZOC beside it -- unless a road leads into the mountain."""
    from service.rules.backbone.combat_flow import retreat_options

    tank = [counter("d", "spanish", "5,5", type_="armor", defense=4, steps=3)]
    st = retreat_state(defenders=tank, terrain={"5,4": "mountain"})
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend"}, [4])
    assert retreat_options(st) == {"hexes": ["4,5", "6,4"], "extra_loss": True}

    road = [("5,5", "5,4", ["road"])]
    tank = [counter("d", "spanish", "5,5", type_="armor", defense=4, steps=3)]
    st = retreat_state(defenders=tank, terrain={"5,4": "mountain"}, hexsides=road)
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend"}, [4])
    assert retreat_options(st) == {"hexes": ["5,4"], "extra_loss": False}


def test_16_7_no_retreat_but_into_enemy_units_eliminates() -> None:
    st = retreat_state(terrain={"5,4": "sea", "4,5": "sea", "6,4": "sea"})
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend"}, [4])
    events = play(st, "spanish", {"type": "retreat", "to": None})
    assert first(events, "UnitsRetreated")["eliminated"] == ["d"]
    assert st["combat"]["stage"] == "advance"


def test_16_5_last_stand_in_a_city_with_10_steps_and_hq_succeeds_on_3() -> None:
    """16.5 example: 10 steps, more than half efficiency 2, an HQ: +3, so 1-3 cancels the retreat
    at the cost of one more step."""
    defenders = [
        counter("d1", "spanish", "5,5", defense=1, steps=4, efficiency=2),
        counter("d2", "spanish", "5,5", defense=1, steps=4, efficiency=2),
        counter("d3", "spanish", "5,5", defense=1, steps=2, efficiency=1),
        counter("hq", "spanish", "5,5", type_="hq", defense=1, steps=1),
    ]
    st2 = retreat_state(defenders=defenders, places=[("Town", "5,5", True)])
    play(st2, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(
        st2, "spanish", {"type": "defend", "own_losses": ["d3"], "enemy_losses": []}, [4]
    )  # 5:1 on 4: 1/2R
    assert st2["combat"]["stage"] == "retreat"
    stand = first(
        play(st2, "spanish", {"type": "retreat", "last_stand": True}, [3]), "LastStandRolled"
    )
    assert stand["needed"] == 3 and stand["success"]
    assert st2["combat"] is None and st2["units"]["d1"]["hex"] == "5,5"


def test_16_5_failed_last_stand_retreats_without_the_extra_step() -> None:
    defenders = [
        counter("d1", "spanish", "5,5", defense=1, steps=4, efficiency=2),
        counter("hq", "spanish", "5,5", type_="hq", steps=1),
    ]
    st = retreat_state(defenders=defenders, places=[("Town", "5,5", True)])
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend", "own_losses": ["d1"]}, [4])
    stand = first(
        play(st, "spanish", {"type": "retreat", "last_stand": True}, [3]), "LastStandRolled"
    )
    assert stand["needed"] == 2 and not stand["success"]
    steps = st["units"]["d1"]["steps"]
    with pytest.raises(RuleViolation):
        play(st, "spanish", {"type": "retreat", "last_stand": True}, [1])
    play(st, "spanish", {"type": "retreat", "to": "5,4"})
    assert st["units"]["d1"]["steps"] == steps


def test_9_1_hq_supports_once_in_attack_per_turn_within_range() -> None:
    st = duel(
        [
            counter("a", "allied", "6,5", attack=8),
            counter("b", "allied", "6,7", attack=8),
            counter("hq", "allied", "7,5", type_="hq", steps=1),
        ],
        [counter("d", "spanish", "5,5", defense=2), counter("e", "spanish", "5,7", defense=2)],
    )
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "hq": "hq"})
    play(st, "spanish", {"type": "defend"}, [1])
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "attack", "target": "5,7", "units": ["b"], "hq": "hq"})
    assert err.value.rule == "9.1"


def test_16_4_air_points_are_spent_and_limited() -> None:
    st = duel(
        [counter("a", "allied", "6,5", attack=8)], [counter("d", "spanish", "5,5", defense=2)]
    )
    st["air"]["allied"] = 2
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "air": 3})
    assert err.value.rule == "16.4"
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "air": 2})
    assert st["air"]["allied"] == 0


def test_12_3_one_spanish_attack_per_corps_per_turn() -> None:
    st = duel(
        [
            counter("a", "spanish", "6,5", attack=8, formation="IX CE"),
            counter("b", "spanish", "6,7", attack=8, formation="IX CE"),
        ],
        [counter("d", "allied", "5,5", defense=2), counter("e", "allied", "5,7", defense=2)],
        step="spanish_combat",
    )
    play(st, "spanish", {"type": "attack", "target": "5,5", "units": ["a"]})
    play(st, "allied", {"type": "defend"}, [1])
    with pytest.raises(RuleViolation) as err:
        play(st, "spanish", {"type": "attack", "target": "5,7", "units": ["b"]})
    assert err.value.rule == "12.3"


@pytest.mark.parametrize(("column", "shifted"), [(12, False), (13, True), (14, True)])
def test_12_3_limited_offensive_supply_in_or_east_of_column_13(column: int, shifted: bool) -> None:
    from service.rules.backbone import combat_flow
    from service.rules.backbone.combat import evaluate

    st = duel(
        [counter("a", "allied", f"6,{column}", attack=8)],
        [counter("d", "spanish", f"5,{column}", defense=2)],
    )
    play(st, "allied", {"type": "attack", "target": f"5,{column}", "units": ["a"]})
    sources = [
        s["source"] for s in evaluate(combat_flow.situation(st, st["combat"], {}))["column_shifts"]
    ]
    assert ("limited offensive supply" in sources) == shifted
    st["strait"] = {"open": True, "turn": 1}  # lifted the turn after the Strait was taken
    sources = [
        s["source"] for s in evaluate(combat_flow.situation(st, st["combat"], {}))["column_shifts"]
    ]
    assert "limited offensive supply" not in sources


def test_16_1_final_ratio_below_1_to_2_is_refused_in_play() -> None:
    st = duel(
        [counter("a", "allied", "6,5", attack=1)], [counter("d", "spanish", "5,5", defense=8)]
    )
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    assert err.value.rule == "16.1"


def test_10_2_baraka_rerolls_a_combat_die_once_per_turn() -> None:
    st = duel(
        [counter("a", "allied", "6,5", attack=8)], [counter("d", "spanish", "5,5", defense=2)]
    )
    st["events"]["in_force"].append("baraka")
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    events = play(st, "spanish", {"type": "defend"}, [6])  # 4:1 on 6: 1/2R
    assert events[-1].type == "CombatRolled" and events[-1].data["result"] == "1/2R"
    assert st["combat"]["stage"] == "baraka"
    events = play(st, "spanish", {"type": "baraka", "reroll": True}, [1])  # 4:1 on 1: 2/2
    assert first(events, "BarakaUsed")["ignored"]["value"] == 6
    assert first(events, "CombatResolved")["result"]["text"] == "2/2"
    assert st["baraka_turn"] == st["turn"]


def test_9_1_hq_supports_only_units_of_its_corps_or_tf_and_in_supply() -> None:
    st = duel(
        [
            counter("a", "allied", "6,5", attack=8, formation="WTF"),
            counter("hq", "allied", "7,5", type_="hq", steps=1, formation="CTF"),
        ],
        [counter("d", "spanish", "5,5", defense=2)],
    )
    attack = {"type": "attack", "target": "5,5", "units": ["a"], "hq": "hq"}
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", attack)
    assert err.value.rule == "9.1" and "not of CTF" in err.value.message
    st["units"]["hq"].update(formation="WTF", supplied=False)
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", attack)
    assert err.value.rule == "12.2"
    st["units"]["hq"]["supplied"] = True
    declared = first(play(st, "allied", attack), "CombatDeclared")
    assert declared["combat"]["supports"]["hq"] == "hq"


def test_9_1_hq_supports_once_in_defence_per_turn() -> None:
    st = duel(
        [counter("a", "allied", "6,5", attack=8), counter("b", "allied", "6,7", attack=8)],
        [
            counter("d", "spanish", "5,5", defense=2),
            counter("e", "spanish", "5,7", defense=2),
            counter("hq", "spanish", "5,6", type_="hq", steps=1),
        ],
    )
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    play(st, "spanish", {"type": "defend", "hq": "hq"}, [1])
    assert st["hq_used"] == {"hq": ["defence"]} and st["combat"] is None
    play(st, "allied", {"type": "attack", "target": "5,7", "units": ["b"]})
    with pytest.raises(RuleViolation) as err:
        play(st, "spanish", {"type": "defend", "hq": "hq"}, [1])
    assert err.value.rule == "9.1" and "in defence" in err.value.message


def test_9_1_an_hq_does_not_advance_after_combat() -> None:
    st = duel(
        [
            counter("a", "allied", "6,5", attack=8),
            counter("hq", "allied", "7,5", type_="hq", steps=1),
        ],
        [counter("d", "spanish", "5,5", defense=1, steps=1)],
    )
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"], "hq": "hq"})
    play(st, "spanish", {"type": "defend"}, [6])
    assert st["units"]["d"]["status"] == "eliminated" and st["combat"]["stage"] == "advance"
    with pytest.raises(RuleViolation) as err:
        play(st, "allied", {"type": "advance", "units": ["hq"]})
    assert err.value.rule == "9.1"
    play(st, "allied", {"type": "advance", "units": ["a"]})
    assert st["units"]["a"]["hex"] == "5,5" and st["units"]["hq"]["hex"] == "7,5"
