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


def test_ipv6_addresses_are_counted_by_their_64_block() -> None:
    clock = Clock()
    guard = SignInThrottle(per_account=100, per_address=3, window=60, clock=clock)
    for i in range(3):  # each wrong password from a new address of one /64 (one subscriber)
        guard.failed(f"name{i}", f"2001:db8:1:2::{i + 1:x}")
    assert guard.held("address", "2001:db8:1:2:ffff:ffff:ffff:ffff") > 0
    assert guard.held("address", "2001:DB8:1:2::9") > 0  # written otherwise: the same block
    assert guard.held("address", "2001:db8:1:3::1") == 0  # the next /64 is someone else
    for i in range(3):  # IPv4 addresses stay one each
        guard.failed("x", f"192.0.2.{i}")
    assert guard.held("address", "192.0.2.7") == 0


def test_a_flood_of_new_keys_cannot_flush_a_held_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(throttle_mod, "MAX_KEYS", 50)
    clock = Clock()
    guard = SignInThrottle(per_account=3, per_address=1000, window=60, clock=clock)
    for _ in range(3):
        guard.failed("alice", "198.51.100.1")
    for i in range(500):
        clock.now += 0.01
        guard.failed(f"name{i}", f"2001:db8:{i:x}::1")
    assert len(guard._failures) <= 50
    assert guard.wait("alice", "203.0.113.9") > 0  # still held: never evicted while it counts


def test_when_full_of_live_keys_an_untracked_one_is_held_until_room_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(throttle_mod, "MAX_KEYS", 10)
    clock = Clock()
    guard = SignInThrottle(per_account=5, per_address=20, window=60, clock=clock)
    for i in range(5):
        guard.failed(f"name{i}", f"192.0.2.{i}")  # 10 keys, none held
    assert guard.wait("name0", "192.0.2.0") == 0  # tracked, under the limits: free
    wait = guard.wait("newcomer", "203.0.113.5")
    assert 0 < wait <= 60  # untracked while full: fails safe, held until the oldest lapses
    for _ in range(10):
        guard.held("address", "203.0.113.6")  # asking does not track anything
    assert len(guard._failures) == 10
    clock.now += 61  # every entry's window has passed: they make room
    assert guard.wait("newcomer", "203.0.113.5") == 0
    for _ in range(5):
        guard.failed("newcomer", "203.0.113.5")
    assert guard.wait("newcomer", "203.0.113.99") > 0
    assert len(guard._failures) <= 10
