"""Tests marked ``no_cover`` run with no tracer at all, under pytest-xdist too (``make test``).

pytest-cov pauses its tracer for a ``no_cover`` test's call.  Two things made that pause hold
less than it says:

1. In each pytest-xdist worker, pytest-cov (7.1) starts a coverage of its own at start-up as if
   the worker were the controller (its plugin sees the controller's ``-n``), then the worker's
   coverage on top of it.  Pausing the worker's coverage resumes the one beneath: every
   ``no_cover`` test ran traced, line and branch, by a coverage whose data is never saved.  With
   Python 3.11's tracer that cost those tests (the browser tests' Playwright client, the rules
   loops) about as much as measuring them.  :func:`pytest_sessionstart` stops that first coverage
   in a worker before the worker's own starts, so pausing leaves no tracer behind.
2. The pause covers the test's call only: :func:`pytest_runtest_setup` and
   :func:`pytest_runtest_teardown` pause it for the test's fixtures too.

A measured run imports every module of the product once collected (:func:`pytest_collection_finish`),
measured, outside any test: a module's own lines (its imports, definitions) then count as reached
whichever test first needs it, measured or not -- as the coverage plan (tests/coverage_plan.py)
takes them to be."""

from __future__ import annotations

import importlib
import pkgutil
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


@contextmanager
def _unmeasured(item: pytest.Item) -> Iterator[None]:
    controller = _controller(item.config)
    if (
        controller is None
        or not getattr(controller, "started", False)
        or not item.get_closest_marker("no_cover")
    ):
        yield
        return
    controller.pause()  # type: ignore[attr-defined]
    try:
        yield
    finally:
        controller.resume()  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _unmeasured(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _unmeasured(item):
        return (yield)
