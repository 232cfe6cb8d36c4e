"""Stores for the contract tests: a real SQLite file and a fresh PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.bootstrap import migrate
from service.config import Config
from tests.conftest import make_config
from tests.support.services import postgres_database


@pytest.fixture(params=["sqlite", "postgres"])
def store_config(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Config]:
    if request.param == "sqlite":
        yield make_config(tmp_path)
        return
    with postgres_database() as dbname:
        config = make_config(tmp_path, store="postgres", postgres_dbname=dbname)
        migrate(config)  # `arbiter db migrate`: workers never create PostgreSQL tables
        yield config
