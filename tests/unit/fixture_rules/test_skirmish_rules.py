"""Rules of the skirmish fixture (its made-up sections S2-S10) and its RulesSystem hooks."""

import pytest

from service.rules.base import InvalidCommand, RuleViolation, ScenarioError
from service.rules.registry import Registry
from tests.fixtures.skirmish import SYSTEM
from tests.support.dice import ScriptedDice

MOVEMENT, COMBAT = 0, 1  # red's phases


def start(options=None):
    return SYSTEM.initial_state("meeting", options or {})


def position(state, phase, **hexes):
    """The state with units moved by hand (a test set-up) and the phase set."""
    for uid, hex_ in hexes.items():
        state["units"][uid]["hex"] = hex_
    state["phase"] = phase
    return state


def violation(state, side, command):
    with pytest.raises(RuleViolation) as err:
        SYSTEM.decide(state, side, command, ScriptedDice())
    return err.value.rule


def move(unit, *path):
    return {"type": "move", "unit": unit, "path": list(path)}


def test_s3_1_only_the_active_side_acts_in_its_phase():
    state = start()
    assert SYSTEM.active_sides(state) == ["red"]
    assert violation(state, "blue", move("b1", "C5")) == "S3.1"
    assert violation(state, "red", move("b1", "C5")) == "S3.1"  # not a red unit
    assert (
        violation(state, "red", {"type": "attack", "attackers": ["r1"], "defender_hex": "C6"})
        == "S3.1"
    )
    assert not SYSTEM.actions(state, "blue")
    assert SYSTEM.actions(state, "red").types()[-1] == "end_phase"


def test_s4_2_no_skipping_hexes():
    assert violation(start(), "red", move("r1", "C4", "C6")) == "S4.2"


def test_s4_1_movement_allowance():
    # C2 -> C3 forest (2) -> B3 forest (2) -> B4 clear (1) = 5 > 4
    assert violation(start(), "red", move("r1", "C3", "B3", "B4")) == "S4.1"


def test_s4_1_a_unit_moves_once_per_phase():
    state = start()
    for event in SYSTEM.decide(state, "red", move("r1", "C3"), ScriptedDice()):
        state = SYSTEM.apply(state, event)
    assert violation(state, "red", move("r1", "C4")) == "S4.1"


def test_s4_3_never_into_an_enemy_unit():
    state = position(start(), MOVEMENT, r2="D5")
    assert violation(state, "red", move("r2", "D6", "D7")) == "S5.1"  # D6 is in blue's ZOC
    state = position(start(), MOVEMENT, r3="E6")
    assert violation(state, "red", move("r3", "D7")) == "S4.3"


def test_s5_1_stop_on_entering_an_enemy_zoc():
    assert violation(start(), "red", move("r2", "D3", "D4", "D5", "D6", "E6")) == "S5.1"
    template = next(
        t for t in SYSTEM.actions(start(), "red").templates if t.label == "Move 2nd Foot"
    )
    assert template.fixed == {"unit": "r2"}
    choice = template.choose["path"]
    reach = {
        path[-1]: (path, label) for path, label in zip(choice.options, choice.labels, strict=True)
    }
    assert reach["D6"] == (["D2", "D3", "D4", "D5", "D6"], "D6 (2 MP)")
    assert "E6" in reach and "D6" not in reach["E6"][0][:-1]


def test_s5_2_no_zoc_across_a_river():
    # b1 on the Mill C5; C4 lies across the river from it, B5 does not
    state = position(start(), MOVEMENT, b1="C5", r1="B4")
    events = SYSTEM.decide(state, "red", move("r1", "C4", "D4"), ScriptedDice())
    assert events[0].data["stopped_in_zoc"] is False
    assert violation(state, "red", move("r1", "B5", "A5")) == "S5.1"
    # with the option off, the ZOC reaches C4 too
    state = position(start({"river_blocks_zoc": False}), MOVEMENT, b1="C5", r1="B4")
    assert violation(state, "red", move("r1", "C4", "D4")) == "S5.1"


def test_s6_1_at_most_two_units_per_hex():
    state = start()
    for command in (move("r1", "D2"),):
        for event in SYSTEM.decide(state, "red", command, ScriptedDice()):
            state = SYSTEM.apply(state, event)
    assert violation(state, "red", move("r3", "D1", "D2")) == "S6.1"


def test_s7_2_attackers_must_be_adjacent_to_an_enemy_hex():
    state = position(start(), COMBAT, r2="D6")
    assert (
        violation(state, "red", {"type": "attack", "attackers": ["r1"], "defender_hex": "C6"})
        == "S7.2"
    )
    assert (
        violation(state, "red", {"type": "attack", "attackers": ["r2"], "defender_hex": "D5"})
        == "S7.2"
    )


def test_s7_3_each_hex_attacked_once_and_s7_1_each_unit_attacks_once():
    state = position(start(), COMBAT, r2="D6", r1="C7")
    attack = {"type": "attack", "attackers": ["r2"], "defender_hex": "D7"}
    for event in SYSTEM.decide(state, "red", attack, ScriptedDice([3])):  # 1-1, 3: AR
        state = SYSTEM.apply(state, event)
    assert state["units"]["b2"]["hex"] == "D7"
    again = {"type": "attack", "attackers": ["r1"], "defender_hex": "D7"}
    assert violation(state, "red", again) == "S7.3"
    twice = {"type": "attack", "attackers": ["r2"], "defender_hex": "C6"}
    assert violation(state, "red", twice) == "S7.1"
    assert state["units"]["r2"]["attacked"] is True


def test_s7_7_no_attack_worse_than_1_2():
    state = position(start(), COMBAT, b2="C6", r3="C5")  # b1 and b2 stacked: defence 7
    assert (
        violation(state, "red", {"type": "attack", "attackers": ["r3"], "defender_hex": "C6"})
        == "S7.7"
    )
    actions = SYSTEM.actions(state, "red")
    assert not actions.of_type("attack")
    assert [(b.label, b.rule) for b in actions.blocked] == [("Attack C6", "S7.7")]


def test_s8_3_a_defender_that_cannot_retreat_loses_a_step():
    state = position(start({"supply_range": 20}), COMBAT, b1="A8", r1="A7", r2="B8")
    events = SYSTEM.decide(
        state,
        "red",
        {"type": "attack", "attackers": ["r1", "r2"], "defender_hex": "A8"},
        ScriptedDice([5]),
    )
    assert events[0].data["odds"] == "2-1" and events[0].data["result"] == "DR"
    assert [(e.type, e.data) for e in events[1:]] == [
        ("StepLost", {"unit": "b1", "steps": 1, "steps_left": 1}),
    ]


def test_s9_2_out_of_supply_attackers_are_halved():
    state = position(start(), COMBAT, b1="A8", r1="A7", r2="B8")  # 6+ hexes from red's sources
    events = SYSTEM.decide(
        state,
        "red",
        {"type": "attack", "attackers": ["r1", "r2"], "defender_hex": "A8"},
        ScriptedDice([1]),
    )
    assert events[0].data["attack"] == 4  # 4 + 4 halved
    assert events[0].data["odds"] == "1-1"
    assert events[0].data["result"] == "AE"
    assert {e.data["unit"] for e in events[1:] if e.type == "UnitEliminated"} == {"r1", "r2"}


def test_invalid_commands():
    state = start()
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state, "red", {"type": "fly"}, ScriptedDice())
    assert "type" in err.value.details
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state, "red", {"type": "move", "unit": "r1"}, ScriptedDice())
    assert "path" in err.value.details
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state, "red", {"type": "move", "unit": "zz", "path": ["C3"]}, ScriptedDice())
    assert err.value.details == {"unit": ["unknown unit zz"]}


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"type": "move", "unit": "r1", "path": []}, "path"),
        ({"type": "move", "unit": "r1", "path": ["C3", "Z99"]}, "path"),
        ({"type": "move", "unit": 7, "path": ["C3"]}, "unit"),
        ({"type": "move", "unit": "r1", "path": ["C3"], "speed": 2}, "speed"),
        ({"type": "attack", "attackers": [], "defender_hex": "C6"}, "attackers"),
        ({"type": "attack", "attackers": ["r1", "r1"], "defender_hex": "C6"}, "attackers"),
        ({"type": "attack", "attackers": ["r1"]}, "defender_hex"),
        ({"type": "attack", "attackers": ["r1"], "defender_hex": "Q77"}, "defender_hex"),
        ({"type": "end_phase", "now": True}, "now"),
    ],
)
def test_a_malformed_command_names_its_field(command, field):
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(start(), "red", command, ScriptedDice())
    assert field in err.value.details


def test_template_built_moves_are_legal_and_cost_what_their_label_says():
    state = start()
    templates = SYSTEM.actions(state, "red").templates
    assert templates[-1].type == "end_phase"
    for template in templates[:-1]:
        choice = template.choose["path"]
        for command, label in zip(template.commands(), choice.labels, strict=True):
            events = SYSTEM.decide(state, "red", command, ScriptedDice())
            assert events[0].data["to"] == command["path"][-1]
            assert label.endswith(f"({events[0].data['cost']:g} MP)")


def _attack_state():
    return position(start(), COMBAT, r2="D6", r1="C4")


@pytest.mark.parametrize("state", [start(), position(start(), COMBAT, r2="D6", r1="C4")])
def test_every_template_built_command_is_never_invalid(state):
    side = SYSTEM.active_sides(state)[0]
    actions = SYSTEM.actions(state, side)
    assert actions, "a side that must act always has a template"
    for template in actions.templates:
        for command in template.commands():
            try:
                SYSTEM.decide(state, side, command, ScriptedDice([3] * 10))
            except InvalidCommand as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{template.label}: {command} is malformed: {exc.details}")


def test_attack_templates_offer_the_adjacent_units_by_name():
    actions = SYSTEM.actions(_attack_state(), "red")
    attack = actions.of_type("attack")[-1]
    assert [t.label for t in actions.of_type("attack")] == ["Attack C6", "Attack D7"]
    assert attack.fixed == {"defender_hex": "D7"}
    assert attack.choose["attackers"].options == ("r2",)
    assert attack.choose["attackers"].labels == ("2nd Foot",)
    assert attack.kinds == {"attackers": "units", "defender_hex": "hex"}


def test_s4_1_a_unit_that_moved_is_shown_blocked():
    state = start()
    for event in SYSTEM.decide(state, "red", move("r1", "C3"), ScriptedDice()):
        state = SYSTEM.apply(state, event)
    actions = SYSTEM.actions(state, "red")
    assert "Move 1st Foot" not in [t.label for t in actions.templates]
    assert [(b.label, b.rule) for b in actions.blocked] == [("Move 1st Foot", "S4.1")]


def test_options_and_scenarios():
    assert [s.id for s in SYSTEM.scenarios()] == ["meeting"]
    assert SYSTEM.scenarios()[0].placeholder is True  # b3's attack is marked as a placeholder
    assert SYSTEM.default_options("meeting") == {
        "turns": 4,
        "river_blocks_zoc": True,
        "supply_range": 5,
    }
    assert start({"turns": 2})["turns"] == 2
    with pytest.raises(ScenarioError) as err:
        start({"turns": 9, "fog": True})
    assert set(err.value.problems) == {"options.turns", "options.fog"}
    with pytest.raises(ScenarioError):
        SYSTEM.initial_state("nowhere", {})


def test_governing_tables_and_preview():
    assert SYSTEM.governing("CombatResolved").sections[0] == "S7.1"
    assert SYSTEM.governing("Unknown").sections == ()
    assert SYSTEM.drawing is not None and SYSTEM.previews is not None
    crt = SYSTEM.drawing.tables()["crt"]
    assert crt["columns"] == ["1-2", "1-1", "2-1", "3-1", "4-1"]
    assert crt["rows"][5] == {"roll": 6, "results": ["DR", "DR", "DE", "DE", "DE"]}
    previews = SYSTEM.previews
    preview = previews.combat_preview({"attack": 11, "defence": 4, "roll": 6, "modifier": 1})
    assert preview["odds"]["column"] == "2-1"
    assert preview["result"]["used"] == 6 and preview["result"]["result"] == "DE"
    with pytest.raises(InvalidCommand) as err:
        previews.combat_preview({"attack": "lots"})
    assert set(err.value.details) == {"attack", "defence"}
    attack = {"type": "attack", "attackers": ["r2"], "defender_hex": "D7"}
    found = previews.preview(_attack_state(), "red", attack)
    assert (found["attack"], found["defence"], found["odds"]["column"]) == (4, 3, "1-1")
    with pytest.raises(InvalidCommand):
        previews.preview(_attack_state(), "red", {"type": "end_phase"})


def test_drawing_and_scenario_checks():
    assert SYSTEM.drawing is not None and SYSTEM.scenario_checks is not None
    board = SYSTEM.drawing.board("meeting")
    assert board["terrain"] and board["places"]
    counters = {c["id"]: c for c in SYSTEM.drawing.counters(start())}
    assert counters["r1"]["hex"] == "C2" and counters["r1"]["name"] == "1st Foot"
    from tests.fixtures.skirmish.commands import SCENARIOS

    report = SYSTEM.scenario_checks.check_scenario_file(str(SCENARIOS / "meeting.json"))
    assert [r["place"] for r in report] == ["units[6].values.attack"]
    assert "placeholder" in report[0]["message"]


def test_loads_as_a_plugin():
    registry = Registry()  # the shipped games are not needed to load a plug-in
    registry.load_plugin("tests.fixtures.skirmish")
    assert registry.get("skirmish") is SYSTEM
