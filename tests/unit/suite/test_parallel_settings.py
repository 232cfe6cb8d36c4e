"""``make test``'s runner (tests/parallel.py) refuses a wrong ``ARBITER_TEST_WORKERS`` with a
message naming the setting, before it runs anything."""

from __future__ import annotations

import pytest

from tests import parallel


@pytest.mark.parametrize("value", ["0", "four", "-2", ""])
def test_a_wrong_worker_count_stops_the_run_with_its_name(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ARBITER_TEST_WORKERS", value)
    ran: list[object] = []
    monkeypatch.setattr(parallel.subprocess, "call", lambda *a, **k: ran.append(a) or 0)
    with pytest.raises(SystemExit) as stop:
        parallel.main([])
    assert str(stop.value) == (
        f"ARBITER_TEST_WORKERS must be a whole number of workers, at least 1 (got {value!r})"
    )
    assert ran == []


def test_the_worker_count_defaults_to_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_TEST_WORKERS", raising=False)
    assert parallel.workers() == "4"
