"""Fixtures shared by every test: a configured app on a temporary SQLite file, its client, an API helper."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests import coverage_plan
from tests.support.api import ApiHelper
from tests.support.kb import built_index

#: the suite's time budget (tests over 20 s and files over 60 s listed, failing with
#: ARBITER_TEST_BUDGET=on unless marked slow) and, under pytest-xdist, the files' order (heaviest
#: first, so that the workers end together); an ``unmeasured`` test run with no tracer, its fixtures
#: too (tests/support/coverage_pause.py); a browser test that fails run once more, and told
#: (tests/support/reruns.py)
pytest_plugins = [
    "tests.support.budget",
    "tests.support.order",
    "tests.support.coverage_pause",
    "tests.support.reruns",
]

FIXTURE_PLUGINS = ("tests.fixtures.skirmish",)
#: sign-ups per address and hour in tests, in process and in every server process they start:
#: the suites sign many users up from 127.0.0.1 (the cap's own tests set it low:
#: tests/e2e/test_signup_limit.py)
TEST_SIGNUPS_PER_HOUR = 100_000
os.environ.setdefault("ARBITER_SIGNUPS_PER_HOUR", str(TEST_SIGNUPS_PER_HOUR))


@pytest.fixture(scope="session", autouse=True)
def cheap_passwords() -> Iterator[None]:
    """Passwords hashed in the test processes with scrypt's work factor at 2, not 2**14 (0.17 s
    of CPU a hash, twice per user made: most of the end-to-end tests' time).  Such a hash names
    its factor (``scrypt-2$...``), so the servers the tests start, at the real factor, still check
    it; their own hashes are real ones.  tests/unit/domain/test_users.py checks the real factor."""
    from service.domain import users

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(users.SCRYPT, "n", 2)
        yield


#: tests run unmeasured by a ``--cov`` run (marked ``unmeasured``: tests/support/coverage_pause.py,
#: their fixtures too): those that spend their time in rules code run in loops (random play,
#: every hex of a map, every template's commands through play), which the coverage tracer made
#: four to five times slower (Python 3.11), and the browser tests, whose product code runs in the
#: server process they start (not measured) while the test process runs Playwright's client,
#: which the tracer slowed the most; the rules' own unit tests and the in-process end-to-end tests
#: measure the same rules and pages
UNMEASURED = (
    "tests/conformance/",
    "tests/fuzz/",
    "tests/golden/",
    "tests/unit/rules/backbone/test_contract.py",
    "tests/e2e/browser/",
)
#: and the tests whose every line and branch a measured test reaches too (tests/coverage_plan.py)
PLANNED = coverage_plan.unmeasured()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(UNMEASURED) or item.nodeid in PLANNED:
            item.add_marker(pytest.mark.unmeasured)


def make_config(tmp_path: Path, **overrides: object) -> Config:
    values: dict[str, object] = {
        "store": "sqlite",
        "var_dir": tmp_path / "var",
        "plugins": FIXTURE_PLUGINS,
        "secret_key": "test-secret",
        "testing": True,
        "signups_per_hour": TEST_SIGNUPS_PER_HOUR,
    }
    values.update(overrides)
    return Config(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def index_template() -> Path:
    """The knowledge-base index, built once per test process (about 2 s) and copied per app and
    per server (``tests/support/kb.py``)."""
    return built_index()


@pytest.fixture
def config(tmp_path: Path, index_template: Path) -> Config:
    config = make_config(tmp_path)
    shutil.copytree(index_template, config.index_dir)
    return config


@contextmanager
def app_of(config: Config, index_template: Path) -> Iterator[Flask]:
    """An app on ``config`` with a copy of the session's knowledge-base index, closed after."""
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    try:
        yield application
    finally:
        application.extensions["arbiter"].close()


@pytest.fixture
def app(config: Config) -> Iterator[Flask]:
    application = create_app(config)
    yield application
    application.extensions["arbiter"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def api(client: FlaskClient) -> ApiHelper:
    return ApiHelper(client)
