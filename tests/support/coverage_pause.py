"""Tests marked ``unmeasured`` run with no tracer at all, under pytest-xdist too (``make test``).

pytest-cov pauses its tracer for a ``no_cover`` test's call.  Three things made that pause hold
less than it says, so this plugin has its own marker and pause:

1. In each pytest-xdist worker, pytest-cov (7.1) starts a coverage of its own at start-up as if
   the worker were the controller (its plugin sees the controller's ``-n``), then the worker's
   coverage on top of it.  Pausing the worker's coverage resumes the one beneath: every
   ``no_cover`` test ran traced, line and branch, by a coverage whose data is never saved.  With
   Python 3.11's tracer that cost those tests (the browser tests' Playwright client, the rules
   loops) about as much as measuring them.  :func:`pytest_sessionstart` stops that first coverage
   in a worker before the worker's own starts, so pausing leaves no tracer behind.
2. That pause covers the test's call only: this one covers its setup and teardown too (the
   test's fixtures).
3. pytest-cov's pause stops coverage's collector, which stops the tracer of *every* thread, and
   its resume starts one for the calling thread only: a thread a measured test had started (an
   app's notification worker, a server of a module's fixture) went unmeasured for good after the
   first ``no_cover`` test beside it.  Here the pause takes the tracer off the test's own thread
   and off threads started during the test, and puts both back after: the threads of measured
   tests stay measured.

A measured run imports every module of the product once collected (:func:`pytest_collection_finish`),
measured, outside any test: a module's own lines (its imports, definitions) then count as reached
whichever test first needs it, measured or not -- as the coverage plan (tests/coverage_plan.py)
takes them to be."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _controller(config: pytest.Config) -> object | None:
    plugin = config.pluginmanager.getplugin("_cov")
    return getattr(plugin, "cov_controller", None)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In an xdist worker, before pytest-cov starts the worker's coverage: stop the one its
    plugin started when loaded (a controller's, which in a worker nothing saves)."""
    if getattr(session.config, "workerinput", None) is None:
        return
    from pytest_cov.engine import DistMaster  # only under --cov: the plugin is loaded then

    stray = _controller(session.config)
    if isinstance(stray, DistMaster):  # never the worker's own (a DistWorker)
        stray.cov.stop()
        session.config.pluginmanager.getplugin("_cov").cov_controller = None


PRODUCT = ("service", "faq", "web")


def import_product() -> int:
    """Import every module of the product (not a ``__main__``); how many."""
    count = 0
    for name in PRODUCT:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not module.name.endswith(".__main__"):
                importlib.import_module(module.name)
                count += 1
    return count


def pytest_collection_finish(session: pytest.Session) -> None:
    controller = _controller(session.config)
    if controller is not None and getattr(controller, "started", False) and session.items:
        import_product()


#: this plugin's marker: the test, its fixtures and the threads they start run with no tracer
MARKER = "unmeasured"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: run with no coverage tracer, fixtures included "
        "(tests/support/coverage_pause.py)",
    )


@contextmanager
def _unmeasured(item: pytest.Item) -> Iterator[None]:
    controller = _controller(item.config)
    if (
        controller is None
        or not getattr(controller, "started", False)
        or not item.get_closest_marker(MARKER)
    ):
        yield
        return
    tracer, new_threads = sys.gettrace(), threading.gettrace()
    sys.settrace(None)
    threading.settrace(None)  # type: ignore[arg-type]
    try:
        yield
    finally:
        threading.settrace(new_threads)  # type: ignore[arg-type]
        sys.settrace(tracer)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _unmeasured(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _unmeasured(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _unmeasured(item):
        return (yield)
