"""The core stays simple (issue 45): no function outside the rules above cyclomatic complexity 20
(radon's measure), no module of ``service/`` or ``faq/`` above 800 lines, no ``application``
module importing ``adapters`` (the wiring is ``service/bootstrap.py``'s) and no ``views`` module
importing ``application``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "faq", "web")


def sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def _outside_rules() -> list[Path]:
    return [p for p in sources(*PACKAGES) if "rules" not in p.relative_to(ROOT).parts[1:2]]


@pytest.mark.parametrize("path", _outside_rules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_outside_the_rules_is_above_complexity_20(path: Path) -> None:
    blocks = cc_visit(path.read_text(encoding="utf-8"))
    too_complex = [f"{b.fullname} ({b.complexity})" for b in blocks if b.complexity > 20]
    assert not too_complex, f"{path.relative_to(ROOT)}: {', '.join(too_complex)}"


def test_no_module_of_service_or_faq_is_above_800_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in sources("service", "faq")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_no_application_module_imports_an_adapter() -> None:
    crossing = {
        str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.startswith("service.adapters"))
        for p in sources("service/application")
    }
    assert not {path: modules for path, modules in crossing.items() if modules}


def test_the_domain_and_the_rules_import_no_outer_layer() -> None:
    outer = (
        "service.application",
        "service.adapters",
        "service.api",
        "service.views",
        "web",
        "flask",
    )
    crossing = {
        str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.startswith(outer))
        for p in sources("service/domain", "service/rules")
    }
    assert not {path: modules for path, modules in crossing.items() if modules}


def test_the_views_import_no_application_module() -> None:
    # the application reads the views; the views (projections and their tables) never reach
    # back into it: one direction between the two packages
    crossing = {
        str(p.relative_to(ROOT)): sorted(
            m for m in _imports(p) if m.startswith(("service.application", "service.adapters"))
        )
        for p in sources("service/views")
    }
    assert not {path: modules for path, modules in crossing.items() if modules}


def test_the_store_the_notification_process_and_the_dispatcher_take_no_config() -> None:
    # the settings they use are given them by the composition root (service/bootstrap.py)
    for name in ("store", "notifications", "worker"):
        path = ROOT / "service" / "application" / f"{name}.py"
        assert "service.config" not in _imports(path), path.name
