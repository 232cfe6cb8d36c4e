"""The fuzz suite's app: one per test module, with a game of every system."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzz.support import Table, open_table


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, index_template: Path) -> Iterator[Table]:
    found = open_table(tmp_path_factory.mktemp("fuzz"), index_template)
    yield found
    found.app.extensions["arbiter"].close()
