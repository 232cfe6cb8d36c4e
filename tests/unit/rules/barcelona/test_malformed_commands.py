"""Malformed commands (not an object, unknown type, unknown units, weapons or catalogue entries,
mistyped fields) are refused with InvalidCommand naming the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service.rules.barcelona import SYSTEM
from service.rules.base import InvalidCommand, State
from tests.support.dice import ScriptedDice
from tests.unit.rules.barcelona.conftest import NAT, REP, foot, table_state, team


def muster() -> State:
    return SYSTEM.initial_state("skirmish", {"forces": "points", "points": 2000})


def columns() -> State:
    return SYSTEM.initial_state("skirmish", {})


def deployment() -> State:
    state = table_state(foot("n1", NAT, 30, 5), phase="deployment")
    state["units"]["n1"]["status"] = "unplaced"
    return state


def orders() -> State:
    return table_state(foot("n1", NAT, 30, 5), foot("r1", REP, 30, 20), phase="orders")


def movement() -> State:
    return table_state(foot("n1", NAT, 30, 5), foot("r1", REP, 30, 20))


def moving() -> State:
    state = movement()
    state["moving"] = "n1"
    state["units"]["n1"]["rolled"] = {"distance": 7, "going": "good"}
    return state


def shooting() -> State:
    return table_state(
        foot("n1", NAT, 30, 5),
        foot("r1", REP, 30, 12),
        team("r2", REP, "HMG", 20, 12),
        step="infantry",
    )


BUY = {"kind": "foot", "troop_type": "Militia", "figures": 6}
CASES: list[tuple[Callable[[], State], Any, str]] = [
    (movement, ["move"], "command"),
    (movement, {"type": "charge"}, "type"),
    (columns, {"type": "generate_column"}, "troop_type"),
    (columns, {"type": "generate_column", "troop_type": "Martians"}, "troop_type"),
    (muster, {"type": "buy", "unit": "Militia"}, "unit"),
    (muster, {"type": "buy", "unit": {**BUY, "kind": "tank"}}, "unit.kind"),
    (muster, {"type": "buy", "unit": {**BUY, "attributes": ["flying"]}}, "unit.attributes"),
    (muster, {"type": "buy", "unit": {**BUY, "figures": "six"}}, "unit.figures"),
    (muster, {"type": "buy", "unit": {**BUY, "figures": 0}}, "unit.figures"),
    (muster, {"type": "buy", "unit": {**BUY, "grade": 7}}, "grade"),
    (muster, {"type": "buy", "unit": {"kind": "team", "weapon": "Ray gun"}}, "unit.weapon"),
    (muster, {"type": "buy", "unit": {"kind": "team", "weapon": "HMG"}}, "unit.troop_type"),
    (muster, {"type": "buy", "unit": {"kind": "vehicle", "vehicle": "Tiger"}}, "unit.vehicle"),
    (muster, {"type": "buy", "unit": {"kind": "foot", "troop_type": "Moors"}}, "unit.figures"),
    (muster, {"type": "buy", "unit": {**BUY, "colour": "red"}}, "unit.colour"),
    (columns, {"type": "generate_column", "troop_type": "Militia", "tank": "FAI A/C"}, "tank"),
    (columns, {"type": "generate_column", "troop_type": "Militia", "grade": 5}, "grade"),
    (columns, {"type": "end_muster", "now": True}, "now"),
    (deployment, {"type": "deploy", "unit": "ghost", "x": 1, "y": 1}, "unit"),
    (deployment, {"type": "deploy", "unit": "n1", "x": "left", "y": 1}, "x"),
    (deployment, {"type": "deploy", "unit": "n1", "x": 30, "y": 1, "ranks": 0}, "ranks"),
    (orders, {"type": "write_orders", "orders": ["n1"]}, "orders"),
    (orders, {"type": "write_orders", "orders": {"r1": {"text": "go"}}}, "orders.r1"),
    (orders, {"type": "write_orders", "orders": {"n1": "go"}}, "orders.n1"),
    (orders, {"type": "write_orders", "orders": {"n1": {"move": True}}}, "orders.n1.text"),
    (deployment, {"type": "end_deployment", "unit": "n1"}, "unit"),
    (deployment, {"type": "reserve"}, "unit"),
    (movement, {"type": "roll_move", "unit": "ghost"}, "unit"),
    (movement, {"type": "roll_move", "unit": "n1", "going": "swimming"}, "going"),
    (movement, {"type": "roll_move", "unit": "n1", "load": "ghost"}, "load"),
    (moving, {"type": "move", "unit": "n1", "path": [[30, 5], "north"]}, "path[1]"),
    (moving, {"type": "move", "unit": "n1", "path": [[30, 5, 1]]}, "path[0]"),
    (movement, {"type": "hold", "unit": "ghost"}, "unit"),
    (movement, {"type": "end_movement", "unit": "n1"}, "unit"),
    (moving, {"type": "move", "unit": "n1", "path": [[30, 5], [30, 8]], "facing": "up"}, "facing"),
    (
        shooting,
        {"type": "shoot", "unit": "ghost", "weapon": "Rifle", "targets": [{"unit": "r1"}]},
        "unit",
    ),
    (shooting, {"type": "end_step", "weapon": "Rifle"}, "weapon"),
    (shooting, {"type": "shoot", "unit": "n1", "weapon": "Ray gun", "targets": []}, "weapon"),
    (shooting, {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": []}, "targets"),
    (
        shooting,
        {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": [{"unit": "ghost"}]},
        "targets[0].unit",
    ),
    (
        shooting,
        {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": [{"unit": "r1", "dice": 0}]},
        "targets[0].dice",
    ),
    (
        shooting,
        {"type": "shoot", "unit": "n1", "weapon": "Rifle", "targets": [{"unit": "r1"}] * 2},
        "targets",
    ),
]


@pytest.mark.parametrize(("make", "command", "field"), CASES)
def test_a_malformed_command_names_its_field(
    make: Callable[[], State], command: Any, field: str
) -> None:
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(make(), NAT, command, ScriptedDice())
    assert field in err.value.details


def test_a_shot_preview_needs_a_known_unit_weapon_and_targets() -> None:
    state = shooting()
    assert SYSTEM.previews is not None
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.preview(state, NAT, {"type": "shoot", "unit": "ghost", "weapon": "Ray gun"})
    assert {"weapon"} <= set(err.value.details)
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.preview(state, NAT, {"type": "shoot", "unit": "ghost", "weapon": "Rifle"})
    assert {"unit"} <= set(err.value.details)
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.previews.preview(
            state, NAT, {"unit": "n1", "weapon": "Rifle", "targets": [{"unit": "x"}]}
        )
    assert "targets" in err.value.details


def test_every_declared_command_has_a_malformed_case() -> None:
    assert {command["type"] for _, command, _ in CASES if isinstance(command, dict)} >= set(
        SYSTEM.commands.types()
    )
