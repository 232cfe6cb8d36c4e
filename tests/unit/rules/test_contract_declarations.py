"""The contract's declarations: commands parsed from their declared fields, templates that are always
sendable, events with their words, facts, governing sections and visibility."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.actions import Actions, one_of, some_of
from service.rules.base import InvalidCommand, Names, RulesEvent, RuleViolation, State
from service.rules.declare import (
    Commands,
    CommandSpec,
    Count,
    Events,
    Flag,
    Hex,
    Path,
    Text,
    Units,
)


class Refs:
    def unit(self, state: State, unit_id: str) -> bool:
        return unit_id in state["units"]

    def hex(self, state: State, hex_id: str) -> bool:
        return hex_id in {"A1", "A2", "A3"}


def guard(state: State, side: str, spec: CommandSpec) -> None:
    if spec.phases and state["phase"] not in spec.phases:
        raise RuleViolation("4", f"{spec.type} is not allowed now", "type")


COMMANDS = Commands("toy", guard=guard, refs=Refs())
EVENTS = Events("toy")


@COMMANDS.command(
    "move",
    phases=("movement",),
    units=Units(min=1),
    path=Path(min=2),
    mode=Text(required=False, choices=("tactical", "strategic")),
)
def move(state: State, side: str, command: dict[str, Any], dice: Any) -> list[RulesEvent]:
    return [RulesEvent("UnitsMoved", {"units": command["units"], "path": command["path"]})]


@COMMANDS.command(
    "attack", phases=("combat",), hex=Hex(), attackers=Units(min=1), bid=Count(required=False)
)
def attack(state: State, side: str, command: dict[str, Any], dice: Any) -> list[RulesEvent]:
    return []


@EVENTS.event(
    "UnitsMoved",
    sections=("5",),
    topics=("movement",),
    words=lambda d, n: f"{n.units(d['units'])} move {n.path(d['path'])}",
    facts=lambda d, state: ["tactical movement", ""],
    visible=lambda d, state, side: d if side == "red" else {"units": [], "path": d["path"][-1:]},
    reveals=lambda d: len(d["units"]) > 1,
)
def _moved(state: State, data: dict[str, Any]) -> None:
    for unit in data["units"]:
        state["units"][unit]["hex"] = data["path"][-1]


STATE: State = {"phase": "movement", "units": {"u1": {"name": "19 Div", "hex": "A1"}}}


def details(command: Any) -> dict[str, list[str]]:
    with pytest.raises(InvalidCommand) as caught:
        COMMANDS.decide(STATE, "red", command, None)
    return caught.value.details


def test_a_well_formed_command_is_decided_with_its_typed_fields() -> None:
    events = COMMANDS.decide(
        STATE, "red", {"type": "move", "units": ["u1"], "path": ["A1", "A2"]}, None
    )
    assert events == [RulesEvent("UnitsMoved", {"units": ["u1"], "path": ["A1", "A2"]})]


@pytest.mark.parametrize(
    ("command", "field", "reason"),
    [
        ([], "command", "not an object"),
        ({"type": "fly"}, "type", "must be one of move, attack"),
        ({"type": 7}, "type", "must be one of move, attack"),
        ({"type": "move", "path": ["A1", "A2"]}, "units", "Missing data for required field."),
        ({"type": "move", "units": "u1", "path": ["A1", "A2"]}, "units", "Not a valid list."),
        ({"type": "move", "units": ["u1"], "path": ["A1", 2]}, "path[1]", "Not a valid string."),
        (
            {"type": "move", "units": ["u1"], "path": ["A1", "A2"], "x": "junk"},
            "x",
            "Unknown field.",
        ),
        ({"type": "move", "units": ["u9"], "path": ["A1", "A2"]}, "units", "unknown unit u9"),
        ({"type": "move", "units": ["u1"], "path": ["A1", "Z9"]}, "path", "unknown hex Z9"),
        (
            {"type": "move", "units": ["u1", "u1"], "path": ["A1", "A2"]},
            "units",
            "a unit is named twice",
        ),
        (
            {"type": "move", "units": ["u1"], "path": ["A1", "A2"], "mode": "x"},
            "mode",
            "Must be one of: tactical, strategic.",
        ),
        (
            {"type": "attack", "hex": "A2", "attackers": ["u1"], "bid": 1.5},
            "bid",
            "Not a valid integer.",
        ),
        (
            {"type": "attack", "hex": "A2", "attackers": ["u1"], "bid": True},
            "bid",
            "Not a valid integer.",
        ),
    ],
)
def test_a_malformed_command_names_its_field(command: Any, field: str, reason: str) -> None:
    assert reason in details(command)[field]


def test_the_guard_runs_after_the_shape_and_cites_the_rule() -> None:
    with pytest.raises(RuleViolation) as caught:
        COMMANDS.decide(STATE, "red", {"type": "attack", "hex": "A2", "attackers": ["u1"]}, None)
    assert caught.value.rule == "4"


def test_a_template_takes_its_kinds_from_the_declaration_and_builds_commands() -> None:
    template = COMMANDS.template(
        "move",
        "Move 19 Div",
        fixed={"units": ["u1"], "mode": "tactical"},
        choose={"path": one_of([["A1", "A2"], ["A1", "A3"]], ["A2", "A3"])},
    )
    assert template.as_dict() == {
        "type": "move",
        "label": "Move 19 Div",
        "fixed": {"units": ["u1"], "mode": "tactical"},
        "choose": {"path": {"one_of": [["A1", "A2"], ["A1", "A3"]], "labels": ["A2", "A3"]}},
        "kinds": {"mode": "text", "path": "path", "units": "units"},
    }
    assert template.commands() == [
        {"type": "move", "units": ["u1"], "mode": "tactical", "path": ["A1", "A2"]},
        {"type": "move", "units": ["u1"], "mode": "tactical", "path": ["A1", "A3"]},
    ]
    assert template.command(path=["A1", "A3"])["path"] == ["A1", "A3"]
    for command in template.commands():
        COMMANDS.decide(STATE, "red", command, None)  # never a 400


def test_a_template_refuses_undeclared_or_missing_fields() -> None:
    with pytest.raises(ValueError, match="not declared"):
        COMMANDS.template("move", "Move", fixed={"units": ["u1"], "path": ["A1", "A2"], "speed": 3})
    with pytest.raises(ValueError, match="required but not given"):
        COMMANDS.template("move", "Move", fixed={"units": ["u1"]})


def test_some_of_has_bounds_and_labels() -> None:
    choice = some_of(["u1", "u2"], ["19 Div", "Solans"], min=1)
    assert choice.as_dict() == {
        "some_of": ["u1", "u2"],
        "labels": ["19 Div", "Solans"],
        "min": 1,
        "max": 2,
    }
    with pytest.raises(ValueError):
        one_of(["a", "b"], ["only one label"])


def test_actions_carry_templates_and_blocked_entries() -> None:
    actions = Actions()
    actions.block("end_phase", "End phase", "19 Div must stay with Solans", "12")
    assert not actions
    assert actions.as_dict() == {
        "actions": [],
        "blocked": [
            {
                "type": "end_phase",
                "label": "End phase",
                "reason": "19 Div must stay with Solans",
                "rule": "12",
            }
        ],
    }


def test_an_event_declaration_holds_its_words_facts_governing_and_visibility() -> None:
    event = RulesEvent("UnitsMoved", {"units": ["u1"], "path": ["A1", "A2"]})
    state = {"units": {"u1": {"name": "19 Div", "hex": "A1"}}}
    assert EVENTS.describe(event, Names(state)) == "19 Div move from A1 to A2"
    assert EVENTS.facts(event, state) == ["tactical movement"]
    assert EVENTS.governing("UnitsMoved").sections == ("5",)
    assert EVENTS.visible(event, state, "blue").data == {"units": [], "path": ["A2"]}
    assert EVENTS.visible(event, state, "red") == event
    assert not EVENTS.reveals(event)
    assert EVENTS.reveals(RulesEvent("UnitsMoved", {"units": ["u1", "u2"], "path": []}))
    assert EVENTS.hides_anything()
    assert EVENTS.apply(state, event)["units"]["u1"]["hex"] == "A2"


def test_an_undeclared_event_type_cannot_be_applied() -> None:
    with pytest.raises(KeyError, match="declares no event"):
        EVENTS.apply({}, RulesEvent("Nothing", {}))


def test_the_emitter_applies_each_event_to_a_look_ahead_copy() -> None:
    state = {"units": {"u1": {"name": "19 Div", "hex": "A1"}}}
    emitter = EVENTS.emitter(state)
    emitter.emit("UnitsMoved", {"units": ["u1"], "path": ["A1", "A3"]})
    assert emitter.state["units"]["u1"]["hex"] == "A3"
    assert state["units"]["u1"]["hex"] == "A1"  # decide never mutates its input
    assert [e.type for e in emitter.events] == ["UnitsMoved"]
    assert emitter.emit(None) is None


def test_names_read_printed_names_and_never_fail_on_unknown_ids() -> None:
    names = Names({"units": {"u1": {"name": "19 Div"}, "u2": {"name": "Solans"}}})
    assert names.units(["u1", "u2"]) == "19 Div and Solans"
    assert names.unit("u9") == "u9"
    assert names.path(["A1"]) == "A1"


def test_a_command_or_event_type_is_declared_once() -> None:
    with pytest.raises(ValueError, match="two declarations of the command move"):
        COMMANDS.command("move")(move)
    with pytest.raises(ValueError, match="two declarations of the event UnitsMoved"):
        EVENTS.event("UnitsMoved")(_moved)


def test_a_flag_is_true_or_false_and_nothing_else() -> None:
    flags = Commands("flags")

    @flags.command("pass", final=Flag())
    def pass_(state: State, side: str, command: dict[str, Any], dice: Any) -> list[RulesEvent]:
        return []

    assert flags.decide({}, "red", {"type": "pass", "final": False}, None) == []
    for wrong in (1, 0, "yes", None):
        with pytest.raises(InvalidCommand) as caught:
            flags.decide({}, "red", {"type": "pass", "final": wrong}, None)
        assert "final" in caught.value.details
