"""The order ``make test`` hands files to its workers (tests/support/order.py): heaviest first by
the measured seconds, a file not measured as one second, the tests of a file in their own order."""

from __future__ import annotations

import pytest

from tests.support.order import heaviest_first

pytest_plugins = ["pytester"]


def test_the_heaviest_file_comes_first_and_each_file_keeps_its_order(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_a="def test_1(): pass\ndef test_2(): pass\n",
        test_b="def test_1(): pass\ndef test_2(): pass\n",
        test_c="def test_1(): pass\n",
        test_d="def test_1(): pass\n",
    )
    items, _ = pytester.inline_genitems()
    ordered = heaviest_first(items, {"test_b.py": 90.0, "test_c.py": 5.0, "test_d.py": 0.2})
    assert [item.nodeid for item in ordered] == [
        "test_b.py::test_1",
        "test_b.py::test_2",
        "test_c.py::test_1",
        "test_a.py::test_1",  # not measured: one second
        "test_a.py::test_2",
        "test_d.py::test_1",
    ]
