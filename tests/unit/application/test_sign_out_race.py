"""Signing out is at once in this process, even while another request of the same session is in
flight: a request that read the token just before the revocation, and noted it as checked just
after, must not let the token through for the next ``auth_cache_seconds`` (the web app's "Sign
out" then reloaded the page still signed in: a browser test caught it under load)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from service.application.users import UserService
from service.domain.errors import Unauthenticated


def test_a_request_in_flight_during_sign_out_does_not_keep_the_token_alive(
    sqlite_users: Callable[..., UserService], monkeypatch: pytest.MonkeyPatch
) -> None:
    users = sqlite_users(auth_cache_seconds=60)
    users.register("dora", "a long password")
    token = users.sign_in("dora", "a long password").token
    read = users._token
    raced: list[bool] = []

    def read_then_sign_out(token_id: UUID, missing: Exception, **kwargs: Any) -> Any:
        record = read(token_id, missing, **kwargs)  # the request in flight has read the token
        if not kwargs.get("fresh") and not raced:
            raced.append(True)
            users.revoke(users.by_name("dora"), token)  # the sign-out lands now
        return record

    monkeypatch.setattr(users, "_token", read_then_sign_out)
    assert users.from_token(token).username == "dora"  # it began before: it goes through
    monkeypatch.setattr(users, "_token", read)
    assert raced
    with pytest.raises(Unauthenticated):
        users.from_token(token)  # every request after the sign-out is refused


def test_a_token_checked_before_its_revocation_is_refused_after_it(
    sqlite_users: Callable[..., UserService],
) -> None:
    users = sqlite_users(auth_cache_seconds=60)
    dora = users.register("dora", "a long password")
    token = users.sign_in("dora", "a long password").token
    assert users.from_token(token).id == dora.id  # checked: noted for 60 s
    users.revoke(dora, token)
    with pytest.raises(Unauthenticated):
        users.from_token(token)
