"""The rules layer stays narrow: a core contract of at most ten hooks, no function above cyclomatic
complexity 25 (radon's measure), shapes from declarations rather than ``isinstance`` checks, and
each game overriding only the core hooks it needs."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from radon.complexity import cc_visit

from service.rules.base import RulesSystem
from service.rules.registry import build_registry

RULES = Path(__file__).resolve().parents[3] / "service" / "rules"
CORE = {
    "scenarios",
    "default_options",
    "initial_state",
    "active_sides",
    "phase",
    "actions",
    "decide",
    "apply",
    "result",
    "view",
}
DERIVED = {
    "names",
    "parse_command",
    "describe",
    "event_facts",
    "governing",
    "event_view",
    "reveals",
}


def sources() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def test_the_core_contract_has_at_most_ten_hooks() -> None:
    hooks = {
        name
        for name, member in vars(RulesSystem).items()
        if inspect.isfunction(member) and not name.startswith("_")
    }
    assert hooks - DERIVED == CORE
    assert len(CORE) <= 10


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(RULES)))
def test_no_function_in_the_rules_is_above_complexity_25(path: Path) -> None:
    blocks = cc_visit(path.read_text(encoding="utf-8"))
    too_complex = [
        f"{b.name} ({b.complexity})" for b in blocks if b.complexity > 25 and b.letter in "FM"
    ]
    assert too_complex == []


def test_shapes_come_from_declarations_not_isinstance_checks() -> None:
    count = sum(
        len(re.findall(r"\bisinstance\b", p.read_text(encoding="utf-8"))) for p in sources()
    )
    assert count <= 60


@pytest.mark.parametrize("system", list(build_registry()), ids=lambda s: s.name)
def test_a_game_overrides_only_core_hooks_and_declares_its_capabilities(
    system: RulesSystem,
) -> None:
    overridden = {
        name
        for klass in type(system).__mro__
        if klass.__module__.startswith(f"service.rules.{system.name}")
        for name, member in vars(klass).items()
        if inspect.isfunction(member) and name in CORE | DERIVED
    }
    assert overridden <= CORE, f"derived hooks overridden: {overridden - CORE}"
    assert system.commands.types(), "no declared commands"
    assert system.events.types(), "no declared events"
    assert system.hidden_information == system.events.hides_anything()
