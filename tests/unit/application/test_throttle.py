"""The sign-in throttle's window: a held account or address may try again once its oldest wrong
password in the window is older than the window; names are compared without case; memory is
bounded however many names are tried."""

from __future__ import annotations

import pytest

from service.application import throttle as throttle_mod
from service.application.throttle import SignInThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_account_is_held_for_the_rest_of_the_window_then_free() -> None:
    clock = Clock()
    guard = SignInThrottle(per_account=3, per_address=100, window=60, clock=clock)
    for _ in range(3):
        assert guard.wait("Alice", "a") == 0
        guard.failed("Alice", "a")
        clock.now += 10
    assert guard.wait("alice", "b") == 30  # the first failure, 30 s ago, lapses in 30 s
    clock.now += 30.5
    assert guard.wait("ALICE", "b") == 0


def test_tracking_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(throttle_mod, "MAX_KEYS", 50)
    guard = SignInThrottle()
    for i in range(500):
        guard.failed(f"name{i}", f"10.0.{i // 250}.{i % 250}")
    assert len(guard._failures) <= 50
