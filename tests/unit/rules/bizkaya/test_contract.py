"""Bizkaya on the rules contract: replay never judges (4, 6, 8, 9, 13 are decided and recorded),
every intermediate state of a decision answers, templates build well-formed commands, refusals are
blocked with their rule, and events are worded with printed names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.rules.base import InvalidCommand, RuleViolation, State
from service.rules.bizkaya import SYSTEM, events
from tests.support.dice import ScriptedDice
from tests.unit.rules.bizkaya.conftest import board_state, event, play, ready, types, unit
from tests.unit.rules.bizkaya.test_combat import attack_all, example


def _combat_game() -> tuple[State, State, list[Any]]:
    """13's example played to the end: a hold that fails, a retreat, an advance; the leader with
    the eliminated tercio follows its stack (8)."""
    state = example()
    state["leaders"]["alonso-vega"]["unit"] = "lacar"
    for uid in ("g1", "g2", "g3", "lacar"):
        state["units"][uid]["euphoric"] = True
    start = copy.deepcopy(state)
    recorded = attack_all(state)
    recorded += play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    recorded += play(state, "republican", {"type": "hold"}, dice=[6])
    recorded += play(
        state,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0504"]}]},
    )
    recorded += play(state, "nationalist", {"type": "advance", "units": ["g1"]})
    return start, state, recorded


def test_8_13_replay_never_judges_settlements_are_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    start, live, recorded = _combat_game()
    assert "LeaderRejoined" in types(recorded)  # 8: Alonso Vega stays with the stack
    assert live["leaders"]["alonso-vega"]["unit"] == "g1"
    advanced = event(recorded, "UnitsAdvanced")["regroup"]
    assert advanced["euphoria_lost"] == ["g1", "g2", "g3"]  # 6: g1 leaves: both parts lose it

    def judging(*args: Any) -> Any:
        raise AssertionError("apply judged a rule")

    for name in ("echelons_to_settle", "regroup", "leaders_rejoining", "_euphoria_lost"):
        monkeypatch.setattr(events, name, judging)
    for e in recorded:
        SYSTEM.apply(start, e)
    assert start == live


def test_4_echelons_that_move_up_are_decided_and_recorded() -> None:
    state = ready(
        board_state([unit("n1", "nationalist", "0104"), unit("r1", "republican", "0804")]),
        "nationalist",
    )
    recorded = play(state, "nationalist", {"type": "set_echelon", "units": ["n1"], "echelon": 2})
    assert types(recorded) == ["EchelonChanged", "EchelonsSettled"]
    assert event(recorded, "EchelonsSettled") == {"units": ["n1"]}
    replayed = ready(
        board_state([unit("n1", "nationalist", "0104"), unit("r1", "republican", "0804")]),
        "nationalist",
    )
    SYSTEM.apply(replayed, recorded[0])
    assert replayed["units"]["n1"]["echelon"] == 2  # the change alone does not settle on replay
    SYSTEM.apply(replayed, recorded[1])
    assert replayed == state


def test_13_every_intermediate_state_of_a_combat_answers() -> None:
    """The defect behind a 500 at ``?version=N``: after UnitsRetreated the combat waited for a
    retreat no longer recorded.  Every state between two events now answers."""
    start, _live, recorded = _combat_game()
    seen = []
    for e in recorded:
        SYSTEM.apply(start, e)
        sides = SYSTEM.active_sides(start)
        assert SYSTEM.phase(start)["turn"] == 1
        for side in ("nationalist", "republican"):
            SYSTEM.actions(start, side)
        seen.append((e.type, sides))
    assert ("UnitsRetreated", ["nationalist"]) in seen


def _commands(state: State, side: str) -> list[dict[str, Any]]:
    return [c for t in SYSTEM.actions(state, side).templates for c in t.commands()]


def _representative() -> list[tuple[State, str]]:
    campaign = SYSTEM.initial_state("bizkaya-1937", {})
    admin = copy.deepcopy(campaign)
    play(admin, "nationalist", {"type": "roll_weather"}, dice=[2])
    units = [
        unit("n1", "nationalist", "0304"),
        unit("g", "nationalist", "0304", kind="artillery-heavy", barrage=14, steps=1),
        unit("r1", "republican", "0404"),
        unit("r2", "republican", "0705"),
    ]
    impulse = ready(board_state(units), "nationalist")
    reserve = ready(board_state(units), "republican", phase="reserve")
    reserve["units"]["n1"]["reserve"] = True
    leaders, _retreat, advance = example(), example(), example()
    attack_all(leaders)
    for state in (_retreat, advance):
        attack_all(state)
        play(state, "nationalist", {"type": "choose_leader", "unit": "lacar"}, dice=[5, 5])
    play(advance, "republican", {"type": "hold"}, dice=[6])
    play(
        advance,
        "republican",
        {"type": "retreat", "moves": [{"units": ["v16"], "path": ["0404", "0504"]}]},
    )
    supply = ready(board_state(units), "nationalist", phase="supply")
    return [
        (campaign, "nationalist"),
        (admin, "nationalist"),
        (supply, "nationalist"),
        (impulse, "nationalist"),
        (reserve, "nationalist"),
        (leaders, "nationalist"),
        (_retreat, "republican"),
        (advance, "nationalist"),
    ]


def test_every_template_built_command_is_well_formed_and_each_option_legal() -> None:
    offered = set()
    for state, side in _representative():
        assert SYSTEM.actions(state, side), "a side that must act has a template"
        for command in _commands(state, side):
            offered.add(command["type"])
            try:
                SYSTEM.decide(state, side, command, ScriptedDice([1] * 40))
            except InvalidCommand as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{command} is malformed: {exc.details}")
            except RuleViolation as exc:
                # only a some_of subset may be refused, never a one_of option
                assert command["type"] in ("reserve", "set_echelon", "advance", "eliminate"), (
                    command,
                    exc,
                )
    assert {
        "roll_weather",
        "place_leader",
        "move",
        "barrage",
        "attack",
        "retreat",
        "hold",
    } <= offered
    assert {"choose_leader", "advance", "entrench", "activate", "end_impulse"} <= offered


def test_labels_use_printed_names() -> None:
    state = SYSTEM.initial_state("bizkaya-1937", {})
    play(state, "nationalist", {"type": "roll_weather"}, dice=[2])
    place = SYSTEM.actions(state, "nationalist").of_type("place_leader")[0]
    assert place.label == "Place Garcia Valino (8)"
    uid = place.choose["unit"].options[0]
    label = place.choose["unit"].labels[0]
    assert state["units"][uid]["name"] in label and uid not in label


def test_2_4_8_12_end_admin_and_end_impulse_are_blocked_with_the_rule_when_decide_refuses() -> None:
    state = ready(
        board_state([unit("n1", "nationalist", "0204"), unit("r1", "republican", "0704")]),
        "nationalist",
        phase="admin",
        impulse=0,
    )
    actions = SYSTEM.actions(state, "nationalist")
    assert "end_admin" not in actions.types()
    blocked = [b for b in actions.blocked if b.type == "end_admin"]
    assert blocked and blocked[0].rule == "8" and "Garcia Valino" in blocked[0].reason
    units = [
        unit("n1", "nationalist", "0304", attack=6),
        unit("g1", "nationalist", "0304", kind="artillery-heavy", barrage=10, steps=1),
        unit("r1", "republican", "0404", morale=6, steps=9),
    ]
    state = ready(board_state(units), "nationalist")
    play(state, "nationalist", {"type": "barrage", "hex": "0404", "artillery": ["g1"]}, dice=[1])
    actions = SYSTEM.actions(state, "nationalist")
    assert "end_impulse" not in actions.types() and "attack" in actions.types()
    blocked = [b for b in actions.blocked if b.type == "end_impulse"]
    assert blocked and blocked[0].rule == "12"
    with pytest.raises(RuleViolation) as refused:
        play(state, "nationalist", {"type": "end_impulse"})
    assert refused.value.rule == "12"


MALFORMED: list[tuple[dict[str, Any], str]] = [
    ({"type": "roll_weather", "die": 6}, "die"),
    ({"type": "place_leader", "leader": "garcia-valino"}, "unit"),
    ({"type": "reserve", "units": []}, "units"),
    ({"type": "eliminate", "units": "n1"}, "units"),
    ({"type": "set_echelon", "units": ["n1"], "echelon": 3}, "echelon"),
    ({"type": "end_admin", "now": True}, "now"),
    ({"type": "entrench", "unit": "ghost"}, "unit"),
    ({"type": "end_supply", "x": 1}, "x"),
    ({"type": "move", "units": ["n1"], "path": ["0303"]}, "path"),
    ({"type": "activate", "units": ["ghost"]}, "units"),
    ({"type": "barrage", "hex": "0404", "air": -1}, "air"),
    ({"type": "attack", "hex": "0404"}, "units"),
    ({"type": "end_impulse", "units": []}, "units"),
    ({"type": "stop_operations", "hex": "0404"}, "hex"),
    ({"type": "choose_leader", "unit": 7}, "unit"),
    ({"type": "hold", "units": ["n1"]}, "units"),
    ({"type": "retreat", "moves": [{"units": ["n1"]}]}, "moves[0].path"),
    ({"type": "advance"}, "units"),
]


def test_every_command_type_has_a_malformed_case() -> None:
    assert {c["type"] for c, _ in MALFORMED} == set(SYSTEM.commands.types())


@pytest.mark.parametrize(("command", "field"), MALFORMED)
def test_a_malformed_command_of_each_type_names_its_field(
    command: dict[str, Any], field: str
) -> None:
    state = ready(
        board_state([unit("n1", "nationalist", "0303"), unit("r1", "republican", "0404")]),
        "nationalist",
    )
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state, "nationalist", command, ScriptedDice())
    assert field in err.value.details


def test_events_are_worded_with_printed_names_and_governed() -> None:
    state = SYSTEM.initial_state("bizkaya-1937", {})
    before = copy.deepcopy(state)
    recorded = play(state, "nationalist", {"type": "roll_weather"}, dice=[2])
    arrived = next(e for e in recorded if e.type == "ReinforcementsArrived")
    words = SYSTEM.describe(arrived, before)
    assert before["units"]["n-2-v-navarra"]["name"] in words and "n-2-v-navarra" not in words
    assert "Vitoria (1109)" in words
    for kind in SYSTEM.events.types():
        assert SYSTEM.governing(kind).sections, kind
    assert SYSTEM.reveals(arrived) is False
