from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.domain.errors import Invalid, Unauthenticated
from service.domain.users import (
    ApiToken,
    User,
    check_password,
    hash_password,
    parse_token,
    user_id,
)


def test_passwords_are_salted_scrypt_hashes() -> None:
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt$") and "correct horse" not in stored
    assert hash_password("correct horse") != stored  # a new salt every time
    assert check_password("correct horse", stored)
    assert not check_password("wrong horse", stored)
    assert not check_password("correct horse", "garbage")


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
