"""Malformed commands (not an object, unknown type, missing or mistyped fields, unknown units or
hexes) are refused with InvalidCommand naming each field, before any rule is judged."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.base import InvalidCommand
from service.rules.bizkaya import SYSTEM
from tests.support.dice import ScriptedDice
from tests.unit.rules.bizkaya.conftest import board_state, ready, unit

CASES: list[tuple[Any, set[str]]] = [
    (["move"], {"command"}),
    ({"type": "fly"}, {"type"}),
    ({"type": "move", "units": ["n1"]}, {"path"}),
    ({"type": "move", "units": "n1", "path": ["0303", "0304"]}, {"units"}),
    ({"type": "move", "units": [1], "path": ["0303", "0304"]}, {"units[0]"}),
    ({"type": "move", "units": ["n1"], "path": ["0303", "9999"]}, {"path"}),
    ({"type": "set_echelon", "units": ["n1"], "echelon": True}, {"echelon"}),
    ({"type": "set_echelon", "units": ["n1"], "echelon": "2"}, {"echelon"}),
    ({"type": "barrage", "hex": "0404", "artillery": ["ghost"]}, {"artillery"}),
    ({"type": "barrage", "hex": "0404", "air": "two"}, {"air"}),
    ({"type": "attack", "hex": "0404", "units": ["n1"], "losses": ["ghost"]}, {"losses"}),
    ({"type": "place_leader", "leader": "garcia-valino", "unit": "ghost"}, {"unit"}),
    ({"type": "entrench"}, {"unit"}),
    ({"type": "retreat", "moves": "0303"}, {"moves"}),
]


@pytest.mark.parametrize(("command", "fields"), CASES)
def test_a_malformed_command_names_its_fields(command: Any, fields: set[str]) -> None:
    state = ready(
        board_state([unit("n1", "nationalist", "0303"), unit("r1", "republican", "0404")]),
        "nationalist",
    )
    with pytest.raises(InvalidCommand) as err:
        SYSTEM.decide(state, "nationalist", command, ScriptedDice())
    assert set(err.value.details) == fields
