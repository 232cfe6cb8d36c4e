"""Every system's combat preview, fed mutations of a valid situation: a 200 or a 400 naming the
field in the documented error shape, never a 5xx."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import json_values, mutated
from tests.fuzz.support import SITUATIONS, Table, error_problems, fuzz_settings


@pytest.mark.parametrize("system", sorted(SITUATIONS))
def test_the_valid_situations_are_valid(table: Table, system: str) -> None:
    for situation in SITUATIONS[system]:
        r = table.client.post(f"/api/systems/{system}/combat-preview", json=situation)
        assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("system", sorted(SITUATIONS))
@fuzz_settings(120)
@given(data=st.data())
def test_combat_preview_of_a_mutated_situation(
    table: Table, system: str, data: st.DataObject
) -> None:
    valid = data.draw(st.sampled_from(SITUATIONS[system]), label="valid")
    situation = data.draw(mutated(valid) | json_values, label="situation")
    r = table.client.post(f"/api/systems/{system}/combat-preview", json=situation)
    assert not error_problems(r), (error_problems(r), situation)
    assert r.status_code in (200, 400), (r.status_code, r.get_json(), situation)
