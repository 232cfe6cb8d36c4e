"""The suite's time budget (issue 48, tests/support/budget.py): a test or a file over its budget
fails the run unless marked ``slow`` with its reason, and every marked one is listed.  Run here on
small suites of their own, with the budget scaled down (0.2 s a test, 0.5 s a file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import budget

pytest_plugins = ["pytester"]

SLEEPY = """
import time
import pytest
{module_mark}

{test_mark}
def test_long():
    time.sleep(0.3)

def test_short():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setattr(budget, "TEST_SECONDS", 0.2)
    monkeypatch.setattr(budget, "FILE_SECONDS", 0.5)
    monkeypatch.setenv("ARBITER_TEST_BUDGET", "on")
    monkeypatch.delenv("ARBITER_TEST_TIMES", raising=False)
    monkeypatch.delenv("ARBITER_TEST_SECONDS", raising=False)
    monkeypatch.delenv("ARBITER_TEST_BUDGET_SCALE", raising=False)  # make test's, for its machine
    pytester.makeconftest('pytest_plugins = ["tests.support.budget"]')
    return pytester


def write(suite: pytest.Pytester, module_mark: str = "", test_mark: str = "") -> None:
    suite.makepyfile(test_sleepy=SLEEPY.format(module_mark=module_mark, test_mark=test_mark))


def test_a_test_over_its_budget_fails_the_run_and_is_named(suite: pytest.Pytester) -> None:
    write(suite)
    result = suite.runpytest()
    result.assert_outcomes(passed=2)  # the tests pass; the run does not
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*over the time budget, not marked slow*", "test_sleepy.py::test_long: 0.* s (over 0 s)"]
    )


def test_a_marked_test_passes_and_is_listed_with_its_reason(suite: pytest.Pytester) -> None:
    write(suite, test_mark='@pytest.mark.slow("sleeps on purpose")')
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["*slow by decision*", "test_sleepy.py::test_long (0.* s): sleeps on purpose"]
    )
    result.stdout.no_fnmatch_line("*over the time budget*")


def test_a_file_over_its_budget_fails_unless_its_module_is_marked(suite: pytest.Pytester) -> None:
    many = "\n".join(f"def test_{n}():\n    time.sleep(0.15)\n" for n in range(4))
    suite.makepyfile(test_many=f"import time\n\n{many}")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["test_many.py: 0.* s (over 0 s)"])

    marked = 'import pytest\npytestmark = pytest.mark.slow("four naps")\n'
    suite.makepyfile(test_many=f"import time\n{marked}\n{many}")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["test_many.py (0.* s): four naps"])


def test_a_slow_module_fixture_counts_towards_its_file_not_its_first_test(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_setup="""
import time
import pytest

@pytest.fixture(scope="module")
def server():
    time.sleep(0.6)

def test_first(server):
    pass

def test_second(server):
    pass
"""
    )
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["test_setup.py: 0.* s (over 0 s)"])
    result.stdout.no_fnmatch_line("test_setup.py::test_first*")


def test_a_module_mark_covers_its_long_tests_too(suite: pytest.Pytester) -> None:
    write(suite, module_mark='pytestmark = pytest.mark.slow("a slow module")')
    assert suite.runpytest().ret == pytest.ExitCode.OK


def test_without_on_the_run_lists_but_does_not_fail(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(suite)
    monkeypatch.delenv("ARBITER_TEST_BUDGET")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*over the time budget*", "*ARBITER_TEST_BUDGET=on would*"])


def test_a_failing_run_keeps_its_own_exit_status(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_broken="import time\n\ndef test_x():\n    time.sleep(0.3)\n    assert 0\n"
    )
    assert suite.runpytest().ret == pytest.ExitCode.TESTS_FAILED


def test_under_xdist_the_controller_judges_the_workers_reports(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # only xdist among the installed plugins: the workers start in a second, not in ten
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    xdist = ("-p", "xdist", "-n", "2", "--dist", "loadfile")
    write(suite)
    suite.makepyfile(test_other="def test_quick():\n    pass\n")
    result = suite.runpytest(*xdist)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["test_sleepy.py::test_long: 0.* s (over 0 s)"])

    write(suite, test_mark='@pytest.mark.slow("sleeps on purpose")')
    result = suite.runpytest(*xdist)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["test_sleepy.py::test_long (0.* s): sleeps on purpose"])


def test_the_seconds_of_each_file_are_written_for_the_next_runs_order(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    times = tmp_path / "times.json"
    times.write_text(json.dumps({"elsewhere/test_kept.py": 3.0}))
    monkeypatch.setenv("ARBITER_TEST_TIMES", str(times))
    write(suite, test_mark='@pytest.mark.slow("sleeps on purpose")')
    suite.runpytest()
    written = json.loads(times.read_text())
    assert written["elsewhere/test_kept.py"] == 3.0
    assert 0.3 <= written["test_sleepy.py"] < 5


def test_the_seconds_of_each_test_are_written_for_the_coverage_plan(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seconds = tmp_path / "seconds.json"
    monkeypatch.setenv("ARBITER_TEST_SECONDS", str(seconds))
    write(suite, test_mark='@pytest.mark.slow("sleeps on purpose")')
    suite.runpytest()
    written = json.loads(seconds.read_text())
    assert set(written) == {"test_sleepy.py::test_long", "test_sleepy.py::test_short"}
    assert 0.3 <= written["test_sleepy.py::test_long"] < 5
    assert written["test_sleepy.py::test_short"] < 0.3


def test_on_a_slower_machine_the_budget_grows_in_proportion(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(suite)  # test_long sleeps 0.3 s: over 0.2 s, under 0.2 s x 2
    monkeypatch.setenv("ARBITER_TEST_BUDGET_SCALE", "2")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*over the time budget*")
    monkeypatch.setenv("ARBITER_TEST_BUDGET_SCALE", "0.5")  # never below the reference's
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["test_sleepy.py::test_long: 0.* s (over 0 s)"])


def test_a_scale_that_is_no_number_stops_the_run_with_its_name(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(suite)
    monkeypatch.setenv("ARBITER_TEST_BUDGET_SCALE", "fast")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ARBITER_TEST_BUDGET_SCALE must be a number*'fast'*"])
