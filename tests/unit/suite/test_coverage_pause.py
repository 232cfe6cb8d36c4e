"""An ``unmeasured`` test runs with no tracer under pytest-xdist, fixtures included, while the
other tests are measured, and a thread a measured test started stays measured through it
(tests/support/coverage_pause.py).  With pytest-cov's own pause (``no_cover``) the unmeasured test
ran traced (pytest-cov 7.1 leaves a second coverage in a worker) and the thread lost its tracer for
good.  A measured run imports the whole product before the first test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytest_plugins = ["pytester"]

INNER = """
import sys
import threading
import time

import pytest

TRACED = []  # the started thread's own reading of its tracer, each round
STOP = threading.Event()


def _rounds():
    while not STOP.is_set():
        TRACED.append(sys.gettrace() is not None)
        time.sleep(0.01)


def test_a_measured_test_starts_a_thread():
    threading.Thread(target=_rounds, daemon=True).start()
    time.sleep(0.1)
    assert TRACED and TRACED[-1]


@pytest.fixture
def tracer_in_fixture():
    return sys.gettrace()


@pytest.mark.unmeasured
def test_unmeasured(tracer_in_fixture):
    assert tracer_in_fixture is None
    assert sys.gettrace() is None
    started = []
    thread = threading.Thread(target=lambda: started.append(sys.gettrace()))
    thread.start()
    thread.join()
    assert started == [None]
    time.sleep(0.1)  # the measured test's thread goes round meanwhile


def test_the_thread_is_still_measured():
    time.sleep(0.1)
    STOP.set()
    assert all(TRACED), TRACED


def test_measured():
    assert sys.gettrace() is not None


def test_the_product_was_imported_before_any_test():
    assert "service.cli" in sys.modules and "faq.semantic.passages" in sys.modules
"""


def test_an_unmeasured_test_runs_untraced_beside_measured_threads(
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
    result.assert_outcomes(passed=5)
