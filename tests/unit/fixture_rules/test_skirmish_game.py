"""A short scripted game of the skirmish fixture: decide never mutates its input, and replaying
the decided events from the initial state reproduces the state."""

import copy
import json

from service.rules.base import RulesEvent
from tests.fixtures.skirmish import SYSTEM
from tests.support.dice import ScriptedDice

RED_TURN_1 = [
    ("red", {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]}),
    ("red", {"type": "move", "unit": "r1", "path": ["C2", "C3", "C4"]}),
    ("red", {"type": "end_phase"}),
    ("red", {"type": "attack", "attackers": ["r2"], "defender_hex": "D7"}),
    ("red", {"type": "end_phase"}),
]
BLUE_TURN_1 = [
    ("blue", {"type": "move", "unit": "b1", "path": ["C5"]}),
    ("blue", {"type": "move", "unit": "b2", "path": ["E7", "E6"]}),
    ("blue", {"type": "end_phase"}),
    ("blue", {"type": "attack", "attackers": ["b1", "b2"], "defender_hex": "D6"}),
    ("blue", {"type": "end_phase"}),
]
TURN_2 = [
    ("red", {"type": "move", "unit": "r4", "path": ["D2", "D3", "D4", "D5"]}),
    ("red", {"type": "end_phase"}),
    ("red", {"type": "attack", "attackers": ["r1", "r4"], "defender_hex": "C5"}),
    ("red", {"type": "end_phase"}),
    ("blue", {"type": "end_phase"}),
    ("blue", {"type": "attack", "attackers": ["b2"], "defender_hex": "D5"}),
    ("blue", {"type": "end_phase"}),
]
TURNS_3_AND_4 = [
    (side, {"type": "end_phase"}) for _ in range(2) for side in ("red",) * 2 + ("blue",) * 2
]
SCRIPT = RED_TURN_1 + BLUE_TURN_1 + TURN_2 + TURNS_3_AND_4
ROLLS = [5, 6, 5, 2]


def play(script, rolls):
    state = SYSTEM.initial_state("meeting", {})
    initial = copy.deepcopy(state)
    dice = ScriptedDice(rolls)
    log: list[list[RulesEvent]] = []
    for side, command in script:
        before = copy.deepcopy(state)
        events = SYSTEM.decide(state, side, command, dice)
        assert state == before, f"decide mutated the state for {command}"
        for event in events:
            assert json.loads(json.dumps(event.data)) == event.data
            state = SYSTEM.apply(state, event)
        assert json.loads(json.dumps(state)) == state  # plain JSON values only
        log.append(events)
    assert dice.unused == []
    return initial, state, log


def test_replaying_the_events_reproduces_the_state():
    initial, final, log = play(SCRIPT, ROLLS)
    replayed = copy.deepcopy(initial)
    for events in log:
        for event in events:
            # events go through JSON-like dicts in the store
            replayed = SYSTEM.apply(replayed, RulesEvent(**copy.deepcopy(event.as_dict())))
    assert replayed == final


def test_s5_1_a_move_entering_an_enemy_zoc_is_recorded_as_stopped():
    _, _, log = play(RED_TURN_1[:1], [])
    moved = log[0][0]
    assert moved.type == "UnitMoved"
    assert moved.data["path"] == ["D2", "D3", "D4", "D5", "D6"]
    assert moved.data["cost"] == 2.0  # four road hexsides at 1/2
    assert moved.data["stopped_in_zoc"] is True


def test_s7_combat_records_odds_and_the_die_with_its_index():
    _, state, log = play(RED_TURN_1, [5])
    combat, retreat = log[3]
    assert combat.type == "CombatResolved"
    assert combat.data["odds"] == "1-1"  # 4 against 3
    assert combat.data["roll"] == {"index": 0, "value": 5}
    assert combat.data["result"] == "DR"
    assert retreat.type == "UnitRetreated"
    assert retreat.data["unit"] == "b2"
    assert len(retreat.data["path"]) == 3  # S8.1: two hexes
    assert state["units"]["b2"]["hex"] == retreat.data["path"][-1]


def test_s7_8_hill_modifier_is_clamped_to_the_table():
    _, state, log = play(RED_TURN_1 + BLUE_TURN_1, [5, 6])
    combat = log[8][0]
    assert combat.data["odds"] == "2-1"  # 6 against 3
    assert combat.data["modifier"] == 1  # b1 attacks from the hill C5
    assert (combat.data["modified_roll"], combat.data["table_roll"]) == (7, 6)
    assert combat.data["result"] == "DE"
    assert log[8][1].type == "UnitEliminated"
    assert state["units"]["r2"]["hex"] is None


def test_s2_1_reinforcement_arrives_at_the_start_of_turn_2():
    _, state, log = play(RED_TURN_1 + BLUE_TURN_1, [5, 6])
    assert [e.type for e in log[-1]] == ["PhaseEnded", "TurnEnded", "UnitArrived"]
    assert state["units"]["r4"]["hex"] == "D1"
    assert SYSTEM.phase(state) == {"turn": 2, "phase": "movement", "side": "red"}


def test_s7_9_exchange_takes_a_step_from_each_side():
    _, state, log = play(RED_TURN_1 + BLUE_TURN_1 + TURN_2[:3], [5, 6, 5])
    combat, *losses = log[-1]
    assert combat.data["odds"] == "1-2"  # 7 against 4 is 1-1, the hill shifts one left
    assert combat.data["shifts"] == [{"rule": "S7.5", "shift": -1, "cause": "hill"}]
    assert combat.data["result"] == "EX"
    assert [(e.type, e.data["unit"], e.data["steps_left"]) for e in losses] == [
        ("StepLost", "b1", 1),
        ("StepLost", "r1", 1),
    ]
    assert state["units"]["b1"]["steps"] == 1


def test_s10_1_game_ends_after_turn_4_with_vp_for_held_objectives():
    _, state, log = play(SCRIPT, ROLLS)
    assert [e.type for e in log[-1]] == ["PhaseEnded", "TurnEnded", "GameEnded"]
    result = SYSTEM.result(state)
    assert result is not None
    assert result["vp"] == {"red": 1, "blue": 2}  # r4 on the Bridge, b1 on the Mill
    assert result["winner"] == "blue"
    assert result["outcome"] == "win"
    assert SYSTEM.active_sides(state) == []
    assert not SYSTEM.actions(state, "blue")
    assert SYSTEM.describe(log[-1][-1], state) == "The game ends: Blue wins (Red 1 VP, Blue 2 VP)"


def test_event_facts_name_terrain_unit_types_and_result():
    initial, _, log = play(RED_TURN_1, [5])
    state = copy.deepcopy(initial)
    for events in log[:3]:
        for event in events:
            state = SYSTEM.apply(state, event)
    facts = SYSTEM.event_facts(log[3][0], state)
    assert {"CombatResolved", "clear", "infantry", "DR"} <= set(facts)


def test_events_are_worded_with_printed_names():
    initial, _, log = play(RED_TURN_1 + BLUE_TURN_1[:1], [5])
    state = copy.deepcopy(initial)
    sentences = []
    for events in log:
        for event in events:
            sentences.append(SYSTEM.describe(event, state))
            state = SYSTEM.apply(state, event)
    assert sentences[0] == (
        "2nd Foot moves from D2 to D6 for 2 MP, stopping in an enemy zone of control"
    )
    assert sentences[3] == "2nd Foot attacks Blue Line in D7 at 1-1: roll 5, DR"
    assert sentences[4] == "Blue Line retreats from D7 to F8"
    assert "to Mill (C5) for 2 MP" in sentences[-1]  # a hex by the place standing there
    assert all("{" not in s and "[" not in s for s in sentences)


def test_every_emitted_event_is_declared_and_governed():
    _, _, log = play(SCRIPT, ROLLS)
    for events in log:
        for event in events:
            assert event.type in SYSTEM.events
            assert SYSTEM.governing(event.type).sections
