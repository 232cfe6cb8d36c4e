"""``make test``'s runner (tests/parallel.py) refuses a wrong ``ARBITER_TEST_WORKERS`` or
``ARBITER_COVERAGE`` with a message naming the setting, before it runs anything, and fails a run
whose coverage falls below its floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import parallel


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        *[("ARBITER_TEST_WORKERS", v, "a whole number of workers, at least 1") for v in ("0", "four", "-2", "")],
        *[("ARBITER_COVERAGE", v, "on or off") for v in ("maybe", "", "2")],
    ],
)  # fmt: skip
def test_a_wrong_setting_stops_the_run_with_its_name(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    ran: list[object] = []
    monkeypatch.setattr(parallel.subprocess, "call", lambda *a, **k: ran.append(a) or 0)
    with pytest.raises(SystemExit) as stop:
        parallel.main([])
    assert str(stop.value) == f"{name} must be {message} (got {value!r})"
    assert ran == []


def test_the_worker_count_defaults_to_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_TEST_WORKERS", raising=False)
    assert parallel.workers() == "4"


def test_the_run_is_measured_unless_coverage_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_COVERAGE", raising=False)
    assert parallel.coverage_on() is True
    monkeypatch.setenv("ARBITER_COVERAGE", "OFF")
    assert parallel.coverage_on() is False


def test_a_total_below_the_floor_fails_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every test passed, the coverage report says the total is under ``fail_under``."""
    monkeypatch.delenv("ARBITER_COVERAGE", raising=False)
    monkeypatch.setenv("ARBITER_TEST_BUDGET_SCALE", "1")
    monkeypatch.setattr(parallel, "COVERAGE_FILE", tmp_path / ".coverage")
    monkeypatch.setattr(parallel.subprocess, "call", lambda *a, **k: 0)
    monkeypatch.setattr(parallel, "pytest", lambda *a, **k: 0)
    below = parallel.subprocess.CompletedProcess(
        [], 2, "87.4\nCoverage failure: total of 87.4 is less than fail-under=88\n", ""
    )
    monkeypatch.setattr(parallel.subprocess, "run", lambda *a, **k: below)
    assert parallel.main([]) == 1
    out = capsys.readouterr().out
    assert "coverage of service/, faq/ and web/ (line and branch): 87.4 %" in out
    assert "Coverage failure: total of 87.4 is less than fail-under=88" in out
    assert "FAILED: the coverage floor" in out
