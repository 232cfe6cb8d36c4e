"""``make test``'s runner (tests/parallel.py) refuses a wrong ``ARBITER_TEST_WORKERS`` or
``ARBITER_COVERAGE`` with a message naming the setting, before it runs anything, and fails a run
whose coverage falls below its floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import parallel


@pytest.fixture(autouse=True)
def no_rewriting(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The runs below are stand-ins: the assertions' rewriting (two real collections of the whole
    suite) is recorded, not done."""
    rewrote: list[bool] = []
    monkeypatch.setattr(parallel, "rewrite_assertions", lambda: rewrote.append(True))
    return rewrote


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        *[("ARBITER_TEST_WORKERS", v, "a whole number of workers, at least 1") for v in ("0", "four", "-2", "")],
        *[("ARBITER_COVERAGE", v, "on, off or plan") for v in ("maybe", "", "2")],
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
    assert parallel.coverage_mode() == "on"
    monkeypatch.setenv("ARBITER_COVERAGE", "OFF")
    assert parallel.coverage_mode() == "off"


def test_the_plan_run_measures_every_file_per_test_and_then_makes_the_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_rewriting: list[bool]
) -> None:
    monkeypatch.setenv("ARBITER_COVERAGE", "plan")
    monkeypatch.delenv("ARBITER_TEST_BUDGET", raising=False)
    monkeypatch.setenv("ARBITER_TEST_BUDGET_SCALE", "1")
    monkeypatch.setattr(parallel, "COVERAGE_FILE", tmp_path / ".coverage")
    monkeypatch.setattr(parallel, "PLAN_SECONDS", tmp_path / "times.json")
    monkeypatch.setattr(parallel.subprocess, "call", lambda *a, **k: 0)
    total = parallel.subprocess.CompletedProcess([], 0, "89.0\n", "")
    monkeypatch.setattr(parallel.subprocess, "run", lambda *a, **k: total)
    runs: list[tuple[tuple[str, ...], dict[str, str]]] = []
    monkeypatch.setattr(parallel, "pytest", lambda *a, env: runs.append((a, env)) or 0)
    made: list[list[str]] = []
    monkeypatch.setattr(parallel.coverage_plan, "main", lambda argv: made.append(argv) or 0)
    assert parallel.main([]) == 0
    assert no_rewriting == [True]  # once, before the runs
    assert len(runs) == 2
    for args, env in runs:
        assert "--cov-context=test" in args
        assert env["ARBITER_COVERAGE_PLAN"] == "off"  # every file measured, the plan's too
        assert env["ARBITER_TEST_SECONDS"] == str(tmp_path / "times.json")
        assert env["ARBITER_TEST_BUDGET"] == "off"
    assert made == [[str(tmp_path / ".coverage"), str(tmp_path / "times.json")]]


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


def test_the_assertions_are_rewritten_once_and_kept_where_bytecode_is_not_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Under ``PYTHONDONTWRITEBYTECODE`` (the CI machine's) the runner's first step still leaves
    each test module's rewritten assertions in ``__pycache__``, where every later collection
    reads them."""
    monkeypatch.undo()  # the real rewriting
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    for name in ("test_one.py", "deeper/test_two.py"):
        module = tmp_path / "tests" / name
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text("def test_it():\n    assert 1 + 1 == 2\n")
    parallel.rewrite_assertions(tmp_path)
    kept = sorted(p.name.split(".")[0] for p in tmp_path.rglob("__pycache__/*-pytest-*.pyc"))
    assert kept == ["test_one", "test_two"]
