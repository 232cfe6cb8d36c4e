from __future__ import annotations

import pytest

from service.domain.errors import Invalid
from service.domain.users import User, check_password, hash_password, user_id


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


def test_tokens_are_stored_only_as_hashes_and_can_be_revoked() -> None:
    user = User.register("alice", "long enough")
    token = user.issue_token()
    uid, token_id, secret = token.split(".")
    assert uid == user.id.hex
    assert secret not in repr(user.tokens)
    assert user.token_matches(token_id, secret)
    assert not user.token_matches(token_id, secret + "x")
    user.revoke_token(token_id)
    assert not user.token_matches(token_id, secret)
