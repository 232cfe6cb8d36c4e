"""Races of the account services: forgetting a user's checked tokens while requests note theirs;
a token cap whose revocation loses its race after the new token is committed; a password change
checked against a stale copy of the user."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from uuid import uuid4

import pytest

from service.application.users import UserService
from service.domain.errors import Conflict, Forbidden
from tests.unit.application.conftest import World

PASSWORD = "a long password"


def test_forgetting_a_user_while_other_requests_note_their_tokens(
    world: World, sqlite_users: Callable[..., UserService]
) -> None:
    users = sqlite_users(auth_cache_seconds=60)
    users.register("dora", PASSWORD)
    dora = users.by_name("dora")
    record = users._token(users.sign_in("dora", PASSWORD).record.id, KeyError())

    def note(user: object) -> None:  # what from_token does for each request it checks
        users._checked[uuid4()] = (time.monotonic() + 60, record, user)  # type: ignore[assignment]

    for i in range(20_000):  # many checked tokens of others, a few of dora's
        note(dora if i % 1000 == 0 else world.bob)
    stop = threading.Event()
    noted = [0]

    def requests_noting_tokens() -> None:
        while not stop.is_set():
            note(world.bob)
            noted[0] += 1

    noting = threading.Thread(target=requests_noting_tokens)
    noting.start()
    forgotten = 0
    try:
        # at least 2 s, and on until both sides have run (a loaded machine may give the other
        # thread few turns), at most 30 s
        started = time.monotonic()
        while time.monotonic() - started < 2 or (
            noted[0] <= 10 and time.monotonic() - started < 30
        ):
            users._forget_user(dora.id)  # raised "dictionary changed size during iteration"
            forgotten += 1
            note(dora)
            time.sleep(0)  # let the other thread take its turn
    finally:
        stop.set()
        noting.join()
    assert forgotten > 10 and noted[0] > 10  # both sides ran, interleaved
    users._forget_user(dora.id)
    assert not [t for t, entry in users._checked.items() if entry[2].id == dora.id]


def test_a_lost_revocation_of_the_token_cap_does_not_fail_the_sign_in(
    sqlite_users: Callable[..., UserService],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    users = sqlite_users(tokens_per_user=1)
    users.register("erin", PASSWORD)
    first = users.sign_in("erin", PASSWORD)

    def revoke_losing_its_race(user: object, token_id: str) -> None:
        raise Conflict("the token kept changing; try again", {"token": ["changed meanwhile"]})

    with monkeypatch.context() as patched, caplog.at_level(logging.WARNING):
        patched.setattr(users, "revoke_token", revoke_losing_its_race)
        second = users.sign_in("erin", PASSWORD)  # was a 409, its token live and never given
    assert users.from_token(second.token).username == "erin"
    assert any("token cap of erin" in r.getMessage() for r in caplog.records)
    third = users.sign_in("erin", PASSWORD)  # the cap holds again at the next sign-in
    live = [row["id"] for row in users.tokens(users.by_name("erin"))]
    assert live == [third.record.id.hex]
    assert first.record.id.hex not in live


def test_a_password_change_is_checked_against_the_stored_password(
    sqlite_users: Callable[..., UserService],
) -> None:
    users = sqlite_users(auth_cache_seconds=60)
    users.register("fay", PASSWORD)
    token = users.sign_in("fay", PASSWORD).token
    stale = users.from_token(token)  # a request read the user (and cached it)...
    users.set_password("fay", "changed elsewhere meanwhile")  # ...then the password changed
    with pytest.raises(Forbidden) as refused:
        users.change_password(stale, PASSWORD, "a third password", token=token)
    assert "current_password" in refused.value.details
    assert users.sign_in("fay", "changed elsewhere meanwhile").user.username == "fay"
