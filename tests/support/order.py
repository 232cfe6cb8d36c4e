"""The order the files run in (issue 48): heaviest first, by the seconds each
file took in a measured run (``tests/file_seconds.json``), so that pytest-xdist's workers -- which
take files in collection order (``--dist loadfile --no-loadscope-reorder``) -- end together instead
of one finishing the longest file alone.  A file not in the table counts as one second; the tests
within a file keep their order.  A run with ``ARBITER_TEST_TIMES=var/test-times.json`` writes the
seconds it measured there (``tests/support/budget.py``); copy that file over the table when files
have been added or have grown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TABLE = Path(__file__).resolve().parent.parent / "file_seconds.json"
UNKNOWN_SECONDS = 1.0


def load() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(TABLE.read_text()).items()}
    except FileNotFoundError:
        return {}


def heaviest_first(items: list[pytest.Item], seconds: dict[str, float]) -> list[pytest.Item]:
    position = {id(item): n for n, item in enumerate(items)}

    def key(item: pytest.Item) -> tuple[float, int]:
        return (-seconds.get(item.nodeid.split("::", 1)[0], UNKNOWN_SECONDS), position[id(item)])

    return sorted(items, key=key)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = heaviest_first(items, load())
