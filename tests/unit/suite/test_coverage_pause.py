"""A ``no_cover`` test runs with no tracer under pytest-xdist, fixtures included, while the other
tests are measured (tests/support/coverage_pause.py).  Without the plugin the first test fails:
pytest-cov 7.1 leaves a second coverage tracing every ``no_cover`` test in a worker.  A measured
run imports the whole product before the first test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytest_plugins = ["pytester"]

INNER = """
import sys

import pytest


@pytest.fixture
def tracer_in_fixture():
    return sys.gettrace()


@pytest.mark.no_cover
def test_unmeasured(tracer_in_fixture):
    assert tracer_in_fixture is None
    assert sys.gettrace() is None


def test_measured():
    assert sys.gettrace() is not None


def test_the_product_was_imported_before_any_test():
    assert "service.cli" in sys.modules and "faq.semantic.passages" in sys.modules
"""


def test_a_no_cover_test_runs_untraced_in_an_xdist_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # only xdist and pytest-cov among the installed plugins: the workers start in a second
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("COVERAGE_PROCESS_START", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin under test, from this checkout
    pytester.makeconftest('pytest_plugins = ["tests.support.coverage_pause"]')
    pytester.makepyfile(test_traced=INNER)
    pytester.makefile(".toml", pyproject="[tool.coverage.run]\nbranch = true\n")
    result = pytester.runpytest_subprocess(
        "-p", "xdist", "-p", "pytest_cov.plugin", "-n", "1",
        "--cov=test_traced", "--cov-report=", "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=3)
