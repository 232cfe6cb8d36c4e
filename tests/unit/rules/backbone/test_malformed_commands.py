"""Malformed commands (missing or mistyped fields) are refused with InvalidCommand naming the field,
before any rule is judged."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.backbone import SYSTEM
from service.rules.base import InvalidCommand
from tests.support.dice import ScriptedDice


def at_step(step: str, turn: int = 2, **options: Any) -> dict[str, Any]:
    st = SYSTEM.initial_state("scenario-1", options)
    st["step"], st["turn"] = step, turn
    return st


CASES = [
    ("deployment", "spanish", {"deploy": None}, "type"),
    ("deployment", "spanish", {"type": "deploy", "positions": ["es-2terleg"]}, "positions"),
    (
        "deployment",
        "spanish",
        {"type": "deploy", "positions": {"nobody": "4,7"}},
        "positions.nobody",
    ),
    ("deployment", "spanish", {"type": "deploy", "fortifications": "4,7"}, "fortifications"),
    ("allied_movement", "allied", {"type": "move", "unit": "us-7ri"}, "path"),
    (
        "allied_movement",
        "allied",
        {"type": "move", "unit": "nobody", "path": ["1,1", "1,2"]},
        "unit",
    ),
    ("allied_movement", "allied", {"type": "drop", "drops": []}, "drops"),
    ("allied_movement", "allied", {"type": "drop", "drops": [{"unit": "uk-para-1"}]}, "drops"),
    ("replacements", "allied", {"type": "replace", "steps": "us-7ri"}, "steps"),
    ("replacements", "allied", {"type": "replace", "steps": [{"hex": "1,1"}]}, "steps"),
    ("amphibious", "allied", {"type": "land", "hex": "4,22"}, "units"),
    ("events", "allied", {"type": "play_event", "chit": "rif_rebellion", "hexes": "2,3"}, "hexes"),
]


@pytest.mark.parametrize(("step", "side", "command", "field"), CASES)
def test_a_malformed_command_names_its_field(
    step: str, side: str, command: dict[str, Any], field: str
) -> None:
    st = at_step(step, paratrooper_assault=True)
    st["events"]["hands"]["allied"] = ["rif_rebellion"]
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(st, side, command, ScriptedDice())
    assert any(k == field or k.startswith(f"{field}[") for k in err.value.details), (
        err.value.details
    )


def test_8_2_an_unknown_side_is_malformed_not_a_turn_violation() -> None:
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(at_step("allied_movement"), "french", {"type": "end_phase"}, ScriptedDice())
    assert "side" in err.value.details
