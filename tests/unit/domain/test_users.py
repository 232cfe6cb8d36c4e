from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest

from service.domain import users
from service.domain.errors import Invalid, Unauthenticated, Unprocessable
from service.domain.users import (
    ApiToken,
    User,
    check_password,
    hash_password,
    parse_token,
    user_id,
)


def test_passwords_are_salted_scrypt_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(users.SCRYPT, "n", 2**14)  # the real work factor (the suite lowers it)
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt$") and "correct horse" not in stored
    assert hash_password("correct horse") != stored  # a new salt every time
    assert check_password("correct horse", stored)
    assert not check_password("wrong horse", stored)
    assert not check_password("correct horse", "garbage")


def test_a_hash_stored_before_factors_were_named_still_checks() -> None:
    """Every stored ``scrypt$salt$digest`` was made with n = 2**14, r = 8, p = 1."""
    salt = bytes(range(16))
    digest = hashlib.scrypt(b"correct horse", salt=salt, n=2**14, r=8, p=1, dklen=32)
    stored = f"scrypt${salt.hex()}${digest.hex()}"
    assert check_password("correct horse", stored)
    assert not check_password("correct horsf", stored)


def test_a_hash_made_with_another_work_factor_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(users.SCRYPT, "n", 2)
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt-2$")
    monkeypatch.setitem(users.SCRYPT, "n", 2**14)  # a server at the real factor checks it
    assert check_password("correct horse", stored)
    assert not check_password("wrong horse", stored)
    _, salt, digest = stored.split("$")
    for scheme in ("scrypt-3", "scrypt-0", f"scrypt-{2**21}", "scrypt-x", "bcrypt", "scrypt-"):
        assert not check_password("correct horse", f"{scheme}${salt}${digest}"), scheme


def test_user_ids_are_derived_from_the_name_case_insensitively() -> None:
    assert user_id("Alice") == user_id("alice") != user_id("bob")
    assert User.register("Alice", "long enough").id == user_id("alice")


@pytest.mark.parametrize(
    ("name", "password", "field"),
    [
        ("a", "long enough", "username"),
        ("al ice", "long enough", "username"),
        ("alice", "short", "password"),
    ],
)
def test_bad_names_and_passwords_are_refused_with_the_field(
    name: str, password: str, field: str
) -> None:
    with pytest.raises(Invalid) as info:
        User.register(name, password)
    assert field in info.value.details


def test_tokens_are_records_of_their_own_stored_only_as_hashes_expiring_and_revocable() -> None:
    user = User.register("alice", "long enough")
    now = datetime(2030, 1, 1, tzinfo=UTC)
    record, token = ApiToken.issue(user.id, "api", now=now, lifetime=timedelta(days=30))
    uid, token_id, secret = parse_token(token)
    assert (uid, token_id) == (user.id, record.id)
    assert secret not in repr(vars(record))
    record.check(user.id, secret, now)
    with pytest.raises(Unauthenticated, match="invalid"):
        record.check(user.id, secret + "x", now)
    with pytest.raises(Unauthenticated, match="invalid"):
        record.check(user_id("bob"), secret, now)
    with pytest.raises(Unauthenticated, match="token expired"):
        record.check(user.id, secret, now + timedelta(days=30))
    record.revoke()
    with pytest.raises(Unauthenticated, match="revoked"):
        record.check(user.id, secret, now)


def test_a_password_change_counts_a_generation_and_signs_out_earlier_tokens() -> None:
    user = User.register("alice", "long enough")
    now = datetime(2030, 1, 1, tzinfo=UTC)
    before, secret = ApiToken.issue(user.id, "api", now=now, lifetime=timedelta(days=1))
    user.change_password("another long one")
    assert user.password_generation == 1
    assert check_password("another long one", user.password_hash)
    with pytest.raises(Unauthenticated, match="password was changed"):
        before.check(user.id, secret.rsplit(".", 1)[1], now, user.password_generation)
    after, secret = ApiToken.issue(
        user.id, "api", now=now, lifetime=timedelta(days=1), generation=user.password_generation
    )
    after.check(user.id, secret.rsplit(".", 1)[1], now, user.password_generation)


@pytest.mark.parametrize("password", ["short", "12345678", "ALICE", "zzzzzzzzzz"])
def test_a_new_password_goes_through_the_policy_and_names_new_password(password: str) -> None:
    user = User.register("alice", "long enough")
    # too short: Invalid (400); of the right length but refused by the policy: Unprocessable (422)
    with pytest.raises(Invalid if len(password) < 8 else Unprocessable) as refused:
        user.change_password(password)
    assert list(refused.value.details) == ["new_password"]
    assert user.password_generation == 0 and not user.pending_events[1:]


def test_a_token_stored_before_generations_existed_reads_as_generation_zero() -> None:
    """An ``Issued`` event recorded before it carried ``generation`` (version 1: no
    ``class_version`` in its state) is upcast to version 2 with 0 (docs/upgrades.md)."""
    from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder, Mapper, UUIDAsHex

    transcoder = JSONTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    mapper: Mapper[Any] = Mapper(transcoder=transcoder)
    token, _ = ApiToken.issue(
        uuid4(), "api", now=datetime(2030, 1, 1, tzinfo=UTC), lifetime=timedelta(days=1)
    )
    stored = mapper.to_stored_event(token.pending_events[0])
    state = transcoder.decode(stored.state)
    assert state.pop("class_version") == 2  # what this version writes
    del state["generation"]
    old = type(stored)(
        originator_id=stored.originator_id,
        originator_version=stored.originator_version,
        topic=stored.topic,
        state=transcoder.encode(state),
    )
    event = mapper.to_domain_event(old)
    assert vars(event)["generation"] == 0
    assert event.mutate(None).generation == 0  # type: ignore[union-attr]
