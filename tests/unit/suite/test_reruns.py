"""Browser tests that fail run once more and are told (tests/support/reruns.py); the others do
not; the time budget does not count a first run that failed.  Run on small suites of their own,
with the budget scaled down (0.2 s a test)."""

from __future__ import annotations

import pytest

from tests.support import budget

pytest_plugins = ["pytester"]

ONCE = """
import time
from pathlib import Path

def test_fails_once_slowly(tmp_path_factory):
    mark = tmp_path_factory.getbasetemp().parent / "ran-once"
    if not mark.exists():
        mark.write_text("x")
        time.sleep(0.3)  # over the test's budget: a first run that failed is not counted
        assert False, "the page never finished loading"
"""
ALWAYS = """
def test_fails_every_time():
    assert False, "a real failure"
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setattr(budget, "TEST_SECONDS", 0.2)
    monkeypatch.setenv("ARBITER_TEST_BUDGET", "on")
    for name in ("ARBITER_TEST_TIMES", "ARBITER_TEST_SECONDS", "ARBITER_TEST_BUDGET_SCALE"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeconftest('pytest_plugins = ["tests.support.budget", "tests.support.reruns"]')
    return pytester


def test_a_browser_test_failed_once_runs_again_and_is_told(suite: pytest.Pytester) -> None:
    browser = suite.path / "tests" / "e2e" / "browser"
    browser.mkdir(parents=True)
    (browser / "test_page.py").write_text(ONCE)
    result = suite.runpytest("-rR")
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    assert result.ret == pytest.ExitCode.OK  # the budget counted the second run only
    result.stdout.fnmatch_lines(
        [
            "*first runs that failed*",
            "tests/e2e/browser/test_page.py::test_fails_once_slowly (0.* s)",
            "*the page never finished loading*",
        ]
    )


def test_a_browser_test_that_fails_twice_fails_and_others_are_not_run_again(
    suite: pytest.Pytester,
) -> None:
    browser = suite.path / "tests" / "e2e" / "browser"
    browser.mkdir(parents=True)
    (browser / "test_page.py").write_text(ALWAYS)
    (suite.path / "tests" / "test_unit.py").write_text(ALWAYS)
    result = suite.runpytest("-rR")
    assert result.parseoutcomes() == {"failed": 2, "rerun": 1}  # the browser test's alone
    assert result.ret == pytest.ExitCode.TESTS_FAILED
