"""Each system that previews says which commands it previews (issue 51, finding 5: the game page
asked for a preview of every deployment, and each answered 400): the types are commands the
system declares, and ``/api/systems`` lists them as ``previews`` (the page asks for no other:
tests/e2e/browser/test_play.py)."""

from __future__ import annotations

import pytest

from service.rules.base import RulesSystem
from service.rules.registry import build_registry

SYSTEMS = [s for s in build_registry() if s.previews is not None]


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_the_previewed_commands_are_declared_commands(system: RulesSystem) -> None:
    assert system.previews is not None
    declared = {spec.type for spec in system.commands}
    assert system.previews.commands and system.previews.commands <= declared


def test_the_systems_list_says_what_each_previews() -> None:
    from service.api.systems import system_json

    listed = {s.name: system_json(s)["previews"] for s in build_registry()}
    assert listed["merida"] == ["attack", "move"] and listed["backbone"] == ["attack"]
    assert listed["bizkaya"] == ["attack", "barrage"] and listed["barcelona"] == ["shoot"]
