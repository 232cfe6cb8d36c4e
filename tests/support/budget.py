"""The suite's time budget (issue 48): a test whose call takes over ``TEST_SECONDS`` or a test
file over ``FILE_SECONDS`` (setup, call and teardown, summed per file: a module's server or played
game counts here, not against the test that happens to set it up) fails the run unless it is marked
``@pytest.mark.slow("why")`` -- the test, or for a file its module's ``pytestmark`` -- so the suite
cannot creep back to forty minutes unseen.  Every marked test and file is listed at the end of the
run with its reason and its time.

With ``ARBITER_TEST_TIMES=file.json`` the seconds of each test file are merged into that file at
the end of the run (copied to ``tests/file_seconds.json`` it orders the files of xdist runs:
``tests/support/order.py``); with ``ARBITER_TEST_SECONDS=file.json``, each test's seconds (the
coverage plan's costs: ``tests/coverage_plan.py``).

The budget is the reference machine's (``REFERENCE_SECONDS``); ``make test`` measures the
machine first and sets ``ARBITER_TEST_BUDGET_SCALE`` to how much slower it is, so a slow machine
does not fail a run that a quick one passes.

``ARBITER_TEST_BUDGET=on`` (what ``make test`` sets) makes a test or file over its budget fail the
run; otherwise (a plain ``pytest`` run) the run lists them and passes.
The lists are printed either way.  Under pytest-xdist the workers' reports reach the controller, which
checks them: the figures are each test's own, not the worker's."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TEST_SECONDS = 20.0
FILE_SECONDS = 60.0
#: the machine the budget is set on: 5 million additions in 0.14 s (``machine_reference``), a
#: quiet two-core machine of CI's kind.  On a slower one (measured at the start of ``make test``:
#: the same machine has been seen at 0.19 s and worse) the budget grows in proportion, never
#: shrinks: ``ARBITER_TEST_BUDGET_SCALE``
REFERENCE_SECONDS = 0.14


def machine_reference() -> float:
    """The machine's speed now, in seconds: ``bench``'s reference loop (5 million additions), the
    middle of three runs (imported here: only ``make test``'s start asks for it)."""
    from bench.bench_throughput import reference_seconds

    return reference_seconds(runs=3)


def scale() -> float:
    """How much longer than on the reference machine a test may take here (1 at least)."""
    value = os.environ.get("ARBITER_TEST_BUDGET_SCALE", "1")
    try:
        return max(1.0, float(value))
    except ValueError:
        raise pytest.UsageError(
            f"ARBITER_TEST_BUDGET_SCALE must be a number, 1 or more (got {value!r})"
        ) from None


def _reason(marks: list[pytest.Mark]) -> str | None:
    for mark in marks:
        if mark.name == "slow":
            reason = mark.args[0] if mark.args else mark.kwargs.get("reason", "")
            return str(reason) or "(no reason given)"
    return None


def _module_marks(item: pytest.Item) -> list[pytest.Mark]:
    module = getattr(item, "module", None)
    marks = getattr(module, "pytestmark", [])
    return list(marks) if isinstance(marks, list | tuple) else [marks]


@dataclass(eq=False)  # a plugin: hashed by identity
class Budget:
    enforced: bool
    scale: float = 1.0
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    files: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    #: each test's setup, call and teardown (``ARBITER_TEST_SECONDS``: the coverage plan's costs)
    whole: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    test_reason: dict[str, str | None] = field(default_factory=dict)
    file_reason: dict[str, str | None] = field(default_factory=dict)

    # the marks are read at collection (on the controller too under xdist: it collects nothing,
    # so the workers send them in the report's user_properties)
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        own = _reason(list(item.iter_markers()))
        module = _reason(_module_marks(item))
        item.user_properties.append(("budget", (own, module)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.outcome == "rerun":  # a browser test's failed first run: its rerun is timed
            return
        test_file = report.nodeid.split("::", 1)[0]
        if report.when == "call":
            self.seconds[report.nodeid] += report.duration
        self.files[test_file] += report.duration
        self.whole[report.nodeid] += report.duration
        for name, value in report.user_properties:
            if name == "budget":
                own, module = value
                self.test_reason[report.nodeid] = own
                self.file_reason[test_file] = module

    def over(self) -> tuple[list[str], list[str]]:
        test_budget, file_budget = TEST_SECONDS * self.scale, FILE_SECONDS * self.scale
        tests = [
            f"{nodeid}: {s:.1f} s (over {test_budget:.0f} s)"
            for nodeid, s in sorted(self.seconds.items(), key=lambda kv: -kv[1])
            if s > test_budget and not self.test_reason.get(nodeid)
        ]
        files = [
            f"{name}: {s:.1f} s (over {file_budget:.0f} s)"
            for name, s in sorted(self.files.items(), key=lambda kv: -kv[1])
            if s > file_budget and not self.file_reason.get(name)
        ]
        return tests, files

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        marked_files = {f: r for f, r in self.file_reason.items() if r}
        marked_tests = {
            t: r
            for t, r in self.test_reason.items()
            if r and marked_files.get(t.split("::", 1)[0]) != r
        }
        if marked_files or marked_tests:
            terminalreporter.section("slow by decision (@pytest.mark.slow)")
            for name, reason in sorted(marked_files.items()):
                terminalreporter.write_line(f"{name} ({self.files[name]:.1f} s): {reason}")
            for nodeid, reason in sorted(marked_tests.items()):
                terminalreporter.write_line(f"{nodeid} ({self.seconds[nodeid]:.1f} s): {reason}")
        tests, files = self.over()
        if tests or files:
            terminalreporter.section("over the time budget, not marked slow", red=True)
            if self.scale > 1:
                terminalreporter.write_line(
                    f"(the budget scaled by {self.scale:.2f} for this machine's speed: "
                    "ARBITER_TEST_BUDGET_SCALE)"
                )
            for line in [*files, *tests]:
                terminalreporter.write_line(line)
            if not self.enforced:
                terminalreporter.write_line("(not failing the run: ARBITER_TEST_BUDGET=on would)")

    def write_times(self, path: Path) -> None:
        try:
            times = json.loads(path.read_text())
        except FileNotFoundError:
            times = {}
        times.update({name: round(s, 1) for name, s in self.files.items()})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(sorted(times.items())), indent=1) + "\n")

    def write_seconds(self, path: Path) -> None:
        """Each test's seconds, merged into ``path`` (the run that makes the coverage plan)."""
        try:
            times = json.loads(path.read_text())
        except FileNotFoundError:
            times = {}
        times.update({name: round(s, 3) for name, s in self.whole.items()})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(sorted(times.items())), indent=0) + "\n")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workerinput"):
            return
        if os.environ.get("ARBITER_TEST_TIMES"):
            self.write_times(Path(os.environ["ARBITER_TEST_TIMES"]))
        if os.environ.get("ARBITER_TEST_SECONDS"):
            self.write_seconds(Path(os.environ["ARBITER_TEST_SECONDS"]))
        if not self.enforced:
            return
        tests, files = self.over()
        if (tests or files) and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"slow(reason): allowed over the time budget ({TEST_SECONDS:.0f} s a test, "
        f"{FILE_SECONDS:.0f} s a file); the run lists each with its reason",
    )
    enforced = os.environ.get("ARBITER_TEST_BUDGET", "report").lower() == "on"
    config.pluginmanager.register(Budget(enforced=enforced, scale=scale()), "arbiter-budget")
