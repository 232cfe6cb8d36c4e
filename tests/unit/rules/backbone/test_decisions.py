"""Decisions the rules give a player: where the German units arrive (18.1).

18.1: "If the Strait of Gibraltar is under Spanish control, the player can choose to have the German
units deploy in Ceuta, Tangier or Tetouan (or hex adjacent to this last city), while if it is not,
they will only be able to deploy in Tetouan or a hex adjacent to this city, when arriving by air."
"""

from __future__ import annotations

import pytest

from service.rules.backbone import SYSTEM, admin
from service.rules.backbone import geography as geo
from service.rules.base import RuleViolation
from tests.support.dice import ScriptedDice
from tests.unit.rules.backbone.fixtures import play

CEUTA, TANGIER, TETOUAN = "1,7", "1,4", "4,7"


def at_turn_2_strait(**options: object) -> dict:
    st = SYSTEM.initial_state("scenario-1", options)
    play(st, "spanish", {"type": "deploy", "fortifications": []})
    play(st, "allied", {"type": "deploy"})
    st["turn"], st["step"] = 2, "strait"
    return st


def strait_roll(st: dict, die: int) -> list:
    """11: turn 2 opens the Strait on 2 or less (no modifier here): 6 keeps it Spanish."""
    return play(st, "allied", {"type": "roll_strait"}, [die])


def arrival_template(st: dict) -> dict:
    [template] = [t for t in SYSTEM.actions(st, "spanish").as_dict()["actions"]]
    return template


def test_18_1_strait_spanish_the_game_waits_for_the_spanish_choice_of_three_cities() -> None:
    st = at_turn_2_strait()
    events = strait_roll(st, 6)
    awaited = next(e for e in events if e.type == "ArrivalAwaited")
    assert awaited.data["units"][0]["unit"] == "de-5fjr"
    assert events[-1].type == "ArrivalAwaited"  # the segment does not end before the choice
    assert SYSTEM.active_sides(st) == ["spanish"]
    assert SYSTEM.actions(st, "allied").as_dict()["actions"] == []
    template = arrival_template(st)
    assert template["type"] == "place_arrival"
    assert template["fixed"] == {"unit": "de-5fjr"}
    places = template["choose"]["hex"]["one_of"]
    assert {CEUTA, TANGIER, TETOUAN} <= set(places)
    labels = template["choose"]["hex"]["labels"]
    assert {"Ceuta (1,7)", "Tangier (1,4)", "Tetouan (4,7)"} <= set(labels)
    assert set(places) - {CEUTA, TANGIER} <= {TETOUAN, *geo.board(st).grid.neighbours(TETOUAN)}
    text = SYSTEM.describe(awaited, st)
    assert "chooses where 5" in text and "Ceuta, Tangier or Tetouan" in text


@pytest.mark.parametrize("place", [TETOUAN, CEUTA, TANGIER], ids=["Tetouan", "Ceuta", "Tangier"])
def test_18_1_the_preferred_and_the_other_places_are_accepted(place: str) -> None:
    st = at_turn_2_strait()
    strait_roll(st, 6)
    events = play(st, "spanish", {"type": "place_arrival", "unit": "de-5fjr", "hex": place})
    assert events[0].type == "ReinforcementsArrived"
    assert st["units"]["de-5fjr"]["hex"] == place and st["units"]["de-5fjr"]["status"] == "map"
    assert st.get("pending") is None
    assert st["step"] == "replacements"  # 8.2: the segment ends, the game goes on
    assert set(SYSTEM.active_sides(st)) == {"allied", "spanish"}


def test_18_1_a_place_outside_the_three_cities_is_refused_citing_the_rule() -> None:
    st = at_turn_2_strait()
    strait_roll(st, 6)
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "spanish",
            {"type": "place_arrival", "unit": "de-5fjr", "hex": "10,10"},
            ScriptedDice([]),
        )
    assert refused.value.rule == "18.1" and refused.value.field == "hex"
    assert "Ceuta, Tangier or Tetouan" in refused.value.message


def test_18_1_while_the_choice_waits_nothing_else_is_played() -> None:
    st = at_turn_2_strait()
    strait_roll(st, 6)
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(st, "allied", {"type": "replace", "steps": []}, ScriptedDice([]))
    assert refused.value.rule == "8.2"  # not the Allies' decision
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(st, "spanish", {"type": "replace", "steps": []}, ScriptedDice([]))
    assert refused.value.rule == "18.1"
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "spanish",
            {"type": "place_arrival", "unit": "de-756gjr", "hex": TETOUAN},
            ScriptedDice([]),
        )
    assert refused.value.rule == "18.1" and refused.value.field == "unit"


def test_18_1_strait_open_only_tetouan_or_next_to_it() -> None:
    st = at_turn_2_strait()
    events = strait_roll(st, 1)  # 11: 1 <= 2, the Allies open the Strait this turn
    assert next(e for e in events if e.type == "StraitRolled").data["success"]
    places = arrival_template(st)["choose"]["hex"]["one_of"]
    assert TETOUAN in places and CEUTA not in places and TANGIER not in places
    assert set(places) <= {TETOUAN, *geo.board(st).grid.neighbours(TETOUAN)}
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "spanish",
            {"type": "place_arrival", "unit": "de-5fjr", "hex": CEUTA},
            ScriptedDice([]),
        )
    assert refused.value.rule == "18.1"
    assert "no longer under Spanish control" in refused.value.message
    nxt = next(h for h in places if h != TETOUAN)  # a non-preferred legal place
    play(st, "spanish", {"type": "place_arrival", "unit": "de-5fjr", "hex": nxt})
    assert st["units"]["de-5fjr"]["hex"] == nxt


def test_18_1_option_automatic_keeps_the_old_preference() -> None:
    st = at_turn_2_strait(decisions="automatic")
    events = strait_roll(st, 6)
    assert "ArrivalAwaited" not in [e.type for e in events]
    assert st["units"]["de-5fjr"]["hex"] == TETOUAN
    assert st["step"] == "replacements"


def test_18_1_a_single_legal_place_is_taken_automatically_and_the_event_says_so() -> None:
    st = at_turn_2_strait()
    grid = geo.board(st).grid
    # the Allies hold Ceuta and Tangier; every hex next to Tetouan is held by an Allied unit
    for city in (CEUTA, TANGIER):
        st["control"][city] = "allied"
    blockers = [h for h in grid.neighbours(TETOUAN) if not geo.impassable(st, h)]
    allied = [
        u
        for u in st["units"].values()
        if u["side"] == "allied" and u["status"] == "map" and u["type"] != "hq"
    ]
    for u, hex_ in zip(allied, blockers, strict=False):
        u["hex"] = hex_
    events = strait_roll(st, 6)
    arrived = next(e for e in events if e.type == "ReinforcementsArrived")
    item = next(i for i in arrived.data["units"] if i["unit"] == "de-5fjr")
    assert item == {"unit": "de-5fjr", "hex": TETOUAN, "only_choice": True}
    assert "taken automatically" in SYSTEM.describe(arrived, st)
    assert "ArrivalAwaited" not in [e.type for e in events]


def test_18_1_admin_reinforcements_without_the_roll_reads_the_strait_state() -> None:
    st = at_turn_2_strait()
    [awaited] = admin.reinforcements(st)
    assert awaited.data["units"][0]["where"] == "Ceuta, Tangier or Tetouan"
    assert CEUTA in awaited.data["units"][0]["places"]
    st["strait"] = {"open": True, "turn": 1}
    [awaited] = admin.reinforcements(st)
    assert awaited.data["units"][0]["where"] == "Tetouan"
    assert CEUTA not in awaited.data["units"][0]["places"]


# -- 9.1: a lost HQ comes back in a city at the player's choice -------------------------------------
def hq_lost() -> dict:
    """The IX CE HQ lost in turn 1 comes back in turn 3 (9.1); turn 3's German unit too (13.1)."""
    st = at_turn_2_strait()
    play(st, "allied", {"type": "roll_strait"}, [6])
    play(st, "spanish", {"type": "place_arrival", "unit": "de-5fjr", "hex": TETOUAN})
    st["units"]["es-hq-ix"].update(status="eliminated", hex=None, steps=0, eliminated_turn=1)
    st["turn"], st["step"] = 3, "strait"
    return st


def test_9_1_the_hq_city_is_the_players_choice() -> None:
    st = hq_lost()
    events = strait_roll(st, 6)
    [awaited] = [e for e in events if e.type == "ArrivalAwaited"]
    assert [i["unit"] for i in awaited.data["units"]] == ["de-756gjr", "es-hq-ix"]
    assert "chooses the city where" in SYSTEM.describe(awaited, st)
    play(st, "spanish", {"type": "place_arrival", "unit": "de-756gjr", "hex": TETOUAN})
    [offer] = SYSTEM.actions(st, "spanish").as_dict()["actions"]
    assert offer["fixed"] == {"unit": "es-hq-ix"} and "(9.1)" in offer["label"]
    cities = offer["choose"]["hex"]["one_of"]
    assert cities[0] == TETOUAN and {CEUTA, TANGIER} <= set(cities)  # the IX CE's cities
    play(
        st, "spanish", {"type": "place_arrival", "unit": "es-hq-ix", "hex": CEUTA}
    )  # not the first
    hq = st["units"]["es-hq-ix"]
    assert hq["hex"] == CEUTA and hq["status"] == "map" and hq["steps"] == hq["max_steps"]
    assert st.get("pending") is None and st["step"] == "replacements"


def test_9_1_a_city_outside_the_list_is_refused_citing_the_rule() -> None:
    st = hq_lost()
    strait_roll(st, 6)
    play(st, "spanish", {"type": "place_arrival", "unit": "de-756gjr", "hex": TETOUAN})
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "spanish",
            {"type": "place_arrival", "unit": "es-hq-ix", "hex": "10,10"},
            ScriptedDice([]),
        )
    assert refused.value.rule == "9.1" and refused.value.field == "hex"


# -- 16.7: a retreating stack may split (knowledge-base entry backbone:conflict-retreat-stack) ------
def split_state() -> dict:
    """Two Spanish units in 5,5 attacked from 6,5 only: 4,5, 5,4 and 5,6 lie away from it, free."""
    from tests.unit.rules.backbone.fixtures import counter
    from tests.unit.rules.backbone.test_combat_play import duel

    defenders = [
        counter("d1", "spanish", "5,5", defense=2, steps=3),
        counter("d2", "spanish", "5,5", defense=2, steps=3),
    ]
    st = duel([counter("a", "allied", "6,5", attack=30)], defenders)
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    play(st, "spanish", {"type": "defend"}, [4])  # 6:1 on 4: -/2R
    assert st["combat"]["stage"] == "retreat"
    return st


def test_16_7_the_stack_together_and_each_unit_alone_are_offered() -> None:
    st = split_state()
    templates = SYSTEM.actions(st, "spanish").as_dict()["actions"]
    whole = [t for t in templates if t["type"] == "retreat" and not t["fixed"]]
    alone = [t for t in templates if t["type"] == "retreat" and t["fixed"].get("units")]
    assert whole[0]["choose"]["to"]["one_of"] == ["4,5", "5,4", "5,6"]
    assert sorted(t["fixed"]["units"][0] for t in alone) == ["d1", "d2"]
    assert all(t["label"].endswith("alone (16.7)") for t in alone)


def test_16_7_preferred_the_stack_retreats_together() -> None:
    st = split_state()
    play(st, "spanish", {"type": "retreat", "to": "4,5"})
    assert {st["units"][u]["hex"] for u in ("d1", "d2") if st["units"][u]["status"] == "map"} <= {
        "4,5"
    }
    assert st["combat"]["stage"] == "advance"


def test_16_7_a_stack_splits_each_part_to_its_own_hex() -> None:
    st = split_state()
    first_part = play(st, "spanish", {"type": "retreat", "units": ["d1"], "to": "5,6"})
    assert [e.type for e in first_part] == ["UnitsRetreated"]  # d2 still has to retreat
    assert st["combat"]["stage"] == "retreat" and st["combat"]["retreating"] == ["d2"]
    assert st["units"]["d1"]["hex"] == "5,6"
    blocked = SYSTEM.actions(st, "spanish").as_dict()["blocked"]
    assert any(b["rule"] == "16.5" for b in blocked)  # no last stand once part has gone
    play(st, "spanish", {"type": "retreat", "to": "4,5"})
    assert st["units"]["d1"]["hex"] == "5,6"
    assert st["units"]["d2"]["status"] != "map" or st["units"]["d2"]["hex"] == "4,5"
    assert st["combat"]["stage"] == "advance"
    assert st["combat"]["retreated_hexes"] == ["5,6", "4,5"]
    play(st, "allied", {"type": "advance", "units": ["a"]})
    assert st["combat"] is None


def test_16_7_a_unit_not_retreating_or_a_partial_last_stand_is_refused() -> None:
    st = split_state()
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st, "spanish", {"type": "retreat", "units": ["a"], "to": "4,5"}, ScriptedDice([])
        )
    assert refused.value.rule == "16.7" and refused.value.field == "units"
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st, "spanish", {"type": "retreat", "units": ["d1"], "to": "6,5"}, ScriptedDice([])
        )
    assert refused.value.rule == "16.7" and refused.value.field == "to"
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "spanish",
            {"type": "retreat", "units": ["d1"], "last_stand": True},
            ScriptedDice([]),
        )
    assert refused.value.rule == "16.5"


def test_16_7_exploitation_may_follow_either_part_of_a_split_stack() -> None:
    from service.rules.backbone.combat_flow import exploit_targets

    st = split_state()
    assert exploit_targets({"exploit_target": "4,5"}) == ["4,5"]
    assert exploit_targets({"exploit_target": "4,5", "exploit_targets": ["4,5", "6,4"]}) == [
        "4,5",
        "6,4",
    ]
    assert exploit_targets({"exploit_target": None}) == []
    assert st["combat"]["stage"] == "retreat"


def test_readings_are_conflict_entries() -> None:
    from service.rules.backbone.rulebook import RULEBOOK

    conflicts = {c.key: c for c in RULEBOOK.conflicts}
    assert "re-rolls his own dice or those of the enemy in a combat" in str(
        conflicts["baraka-dice"].readings
    )
    assert "16.7" in conflicts["retreat-stack"].refs


def test_16_7_armor_advancing_after_a_split_may_exploit_against_either_part() -> None:
    from tests.unit.rules.backbone.fixtures import counter
    from tests.unit.rules.backbone.test_combat_play import duel

    defenders = [
        counter("d1", "spanish", "5,5", defense=2, steps=3),
        counter("d2", "spanish", "5,5", defense=2, steps=3),
    ]
    st = duel([counter("tk", "allied", "6,5", type_="armor", attack=30)], defenders)
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["tk"]})
    play(st, "spanish", {"type": "defend"}, [4])
    play(st, "spanish", {"type": "retreat", "units": ["d1"], "to": "5,6"})
    play(st, "spanish", {"type": "retreat", "to": "4,5"})
    play(st, "allied", {"type": "advance", "units": ["tk"]})
    assert st["exploit_targets"] == ["5,6", "4,5"]
    attacks = SYSTEM.actions(st, "allied").of_type("attack")
    exploiting = {
        t.fixed.get("target") or t.as_dict()["fixed"].get("target")
        for t in attacks
        if t.as_dict()["fixed"].get("exploitation")
    }
    assert exploiting == {"5,6", "4,5"}


def _last_stand_state() -> dict:
    """16.5 example: 10 steps, more than half efficiency 2, an HQ: +3 (a roll of 1-3 holds)."""
    from tests.unit.rules.backbone.fixtures import counter
    from tests.unit.rules.backbone.test_combat_play import retreat_state

    defenders = [
        counter("d1", "spanish", "5,5", defense=1, steps=4, efficiency=2),
        counter("d2", "spanish", "5,5", defense=1, steps=4, efficiency=2),
        counter("d3", "spanish", "5,5", defense=1, steps=2, efficiency=1),
        counter("hq", "spanish", "5,5", type_="hq", defense=1, steps=1, efficiency=1),
    ]
    st = retreat_state(defenders=defenders, places=[("Town", "5,5", True)])
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a", "b"]})
    play(st, "spanish", {"type": "defend", "own_losses": ["d3"], "enemy_losses": []}, [4])
    return st


def test_16_5_the_last_stand_step_is_lost_among_the_most_efficient_as_the_defender_chooses() -> (
    None
):
    st = _last_stand_state()
    [stand] = [
        t
        for t in SYSTEM.actions(st, "spanish").as_dict()["actions"]
        if t["fixed"].get("last_stand")
    ]
    losers = stand["choose"]["loss"]["one_of"]
    assert sorted(losers) == ["d1", "d2"]  # efficiency 2; not d3 nor the HQ (efficiency 1)
    other = losers[-1]  # not the default (the first)
    steps = st["units"][other]["steps"]
    play(st, "spanish", {"type": "retreat", "last_stand": True, "loss": other}, [3])
    assert st["units"][other]["steps"] == steps - 1 and st["combat"] is None


def test_16_5_a_last_stand_loss_outside_the_most_efficient_is_refused() -> None:
    st = _last_stand_state()
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st, "spanish", {"type": "retreat", "last_stand": True, "loss": "d3"}, ScriptedDice([3])
        )
    assert refused.value.rule == "16.5" and refused.value.field == "loss"
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st, "spanish", {"type": "retreat", "to": "5,4", "loss": "d1"}, ScriptedDice([])
        )
    assert refused.value.rule == "16.5"


# -- 16.6: losses in turn, owner and opponent, named with the attack and the defence --------------
def _loss_state() -> dict:
    from tests.unit.rules.backbone.fixtures import counter
    from tests.unit.rules.backbone.test_combat_play import duel

    return duel(
        [counter("a", "allied", "6,5", attack=30, steps=4)],
        [
            counter("d1", "spanish", "5,5", defense=1, steps=2, efficiency=1),
            counter("d2", "spanish", "5,5", defense=1, steps=2, efficiency=1),
        ],
    )


def test_16_6_the_defend_template_offers_the_loss_picks() -> None:
    st = _loss_state()
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    [defend] = SYSTEM.actions(st, "spanish").as_dict()["actions"]
    assert sorted(defend["choose"]["own_losses"]["some_of"]) == ["d1", "d2"]
    assert defend["choose"]["own_losses"]["min"] == 0
    [attack] = SYSTEM.actions(_loss_state(), "allied").of_type("attack")
    assert sorted(attack.as_dict()["choose"]["enemy_losses"]["some_of"]) == ["d1", "d2"]


@pytest.mark.parametrize("pick", [[], ["d1"], ["d2"]], ids=["preferred", "d1", "d2"])
def test_16_6_the_owner_names_the_unit_taking_the_first_loss(pick: list[str]) -> None:
    st = _loss_state()
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    events = play(st, "spanish", {"type": "defend", "own_losses": pick}, [1])
    resolved = next(e.data for e in events if e.type == "CombatResolved")
    first_loss = resolved["losses"]["defender"][0]
    assert first_loss["chosen_by"] == "owner"
    if pick:
        assert first_loss["unit"] == pick[0]


def test_16_6_a_loss_pick_outside_the_combat_is_refused_citing_the_rule() -> None:
    st = _loss_state()
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(
            st,
            "allied",
            {"type": "attack", "target": "5,5", "units": ["a"], "own_losses": ["d1"]},
            ScriptedDice([]),
        )
    assert refused.value.rule == "16.6" and refused.value.field == "own_losses"
    play(st, "allied", {"type": "attack", "target": "5,5", "units": ["a"]})
    with pytest.raises(RuleViolation) as refused:
        SYSTEM.decide(st, "spanish", {"type": "defend", "enemy_losses": ["d1"]}, ScriptedDice([1]))
    assert refused.value.rule == "16.6" and refused.value.field == "enemy_losses"


# -- 10.2 Baraka: which dice (knowledge-base entry backbone:conflict-baraka-dice) ------------------
def _baraka_last_stand(option: str) -> dict:
    st = _last_stand_state()
    st["options"]["baraka_dice"] = option
    st["events"]["in_force"].append("baraka")
    return st


def test_10_2_by_default_baraka_does_not_reroll_the_last_stand_die() -> None:
    st = _baraka_last_stand("combat_result")
    events = play(st, "spanish", {"type": "retreat", "last_stand": True}, [6])
    assert [e.type for e in events] == ["LastStandRolled"]  # +3 needed: 6 fails, no Baraka
    assert st["combat"]["stage"] == "retreat"


@pytest.mark.parametrize("reroll", [False, True], ids=["keep", "roll again"])
def test_10_2_option_any_combat_die_lets_baraka_reroll_the_last_stand(reroll: bool) -> None:
    st = _baraka_last_stand("any_combat_die")
    events = play(st, "spanish", {"type": "retreat", "last_stand": True, "loss": "d2"}, [6])
    assert [e.type for e in events] == ["LastStandDieRolled"]
    assert SYSTEM.active_sides(st) == ["spanish"] and st["combat"]["stage"] == "baraka"
    [offer] = SYSTEM.actions(st, "spanish").as_dict()["actions"]
    assert offer["type"] == "baraka"
    steps = st["units"]["d2"]["steps"]
    events = play(st, "spanish", {"type": "baraka", "reroll": reroll}, [2] if reroll else [])
    stand = next(e.data for e in events if e.type == "LastStandRolled")
    if reroll:  # the 6 is ignored: 2 <= 3 holds the hex, d2 (the defender's pick) loses the step
        assert stand["die"]["value"] == 2 and stand["success"] and st["combat"] is None
        assert st["units"]["d2"]["steps"] == steps - 1 and st["baraka_turn"] == st["turn"]
    else:
        assert not stand["success"] and st["combat"]["stage"] == "retreat"
        assert st.get("baraka_turn") != st["turn"]  # kept: Baraka stays available this turn


def test_10_2_the_baraka_option_is_recorded_and_checked() -> None:
    from service.rules.base import ScenarioError

    assert SYSTEM.default_options("scenario-1")["baraka_dice"] == "combat_result"
    with pytest.raises(ScenarioError) as bad:
        SYSTEM.initial_state("scenario-1", {"baraka_dice": "all"})
    assert "options.baraka_dice" in bad.value.problems
