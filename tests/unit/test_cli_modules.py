"""Each ``arbiter`` command group imports on its own (a tool, a test or a plug-in may import one
without ``service.cli`` first): they share ``service.cli_support``, never ``service.cli``, which
imports them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"
GROUPS = sorted(p.stem for p in SERVICE.glob("cli_*.py"))


def test_the_groups_are_found() -> None:
    assert {"cli_audit", "cli_events", "cli_support"} <= set(GROUPS)


@pytest.mark.parametrize("module", GROUPS)
def test_a_command_group_imports_alone(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import service.{module}"],
        capture_output=True,
        text=True,
        cwd=SERVICE.parent,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
