"""Users: a name, a hashed password and API tokens (only their hashes are kept)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from service.domain.errors import Invalid, NotFound

USERS_NAMESPACE = UUID("6f1d2c3e-9a4b-4c5d-8e7f-0a1b2c3d4e5f")
USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$")
#: site-wide roles: an ``arbiter`` resolves disputes of games that belong to no club
SITE_ROLES = ("arbiter", "admin")
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def user_id(username: str) -> UUID:
    return uuid5(USERS_NAMESPACE, "user:" + username.lower())


def validate_username(username: str) -> None:
    if not USERNAME.match(username or ""):
        raise Invalid(
            "invalid username",
            {
                "username": [
                    "2-32 letters, digits, '.', '_' or '-', starting with a letter or digit"
                ]
            },
        )


def validate_password(password: str) -> None:
    if len(password or "") < 8:
        raise Invalid("password too short", {"password": ["at least 8 characters"]})


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, **SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        _scheme, salt_hex, digest_hex = stored.split("$")
    except ValueError:
        return False
    candidate = hash_password(password, bytes.fromhex(salt_hex)).split("$")[2]
    return hmac.compare_digest(candidate, digest_hex)


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class User(Aggregate):
    class Registered(Aggregate.Created):
        username: str
        password_hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.username = self.username
            aggregate.password_hash = self.password_hash
            aggregate.tokens = {}
            aggregate.roles = []

    class RoleGranted(Aggregate.Event):
        role: str

        def apply(self, aggregate: Any) -> None:
            if self.role not in aggregate.roles:
                aggregate.roles.append(self.role)

    class RoleRevoked(Aggregate.Event):
        role: str

        def apply(self, aggregate: Any) -> None:
            if self.role in aggregate.roles:
                aggregate.roles.remove(self.role)

    class TokenIssued(Aggregate.Event):
        token_id: str
        token_hash: str
        label: str

        def apply(self, aggregate: Any) -> None:
            aggregate.tokens[self.token_id] = {"hash": self.token_hash, "label": self.label}

    class TokenRevoked(Aggregate.Event):
        token_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.tokens.pop(self.token_id, None)

    username: str
    password_hash: str
    tokens: dict[str, dict[str, str]]
    roles: list[str]

    def __init__(self) -> None:  # attributes are set by Registered.apply
        pass

    @classmethod
    def register(cls, username: str, password: str) -> User:
        validate_username(username)
        validate_password(password)
        return cls._create(
            cls.Registered,
            id=user_id(username),
            username=username,
            password_hash=hash_password(password),
        )

    def issue_token(self, label: str = "api") -> str:
        """A new bearer token ``<user id>.<token id>.<secret>``; only its hash is stored."""
        token_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(24)
        self.trigger_event(
            self.TokenIssued, token_id=token_id, token_hash=token_digest(secret), label=label
        )
        return f"{self.id.hex}.{token_id}.{secret}"

    def grant(self, role: str) -> None:
        if role not in SITE_ROLES:
            raise Invalid(f"unknown role {role!r}", {"role": [f"one of {', '.join(SITE_ROLES)}"]})
        if role not in self.roles:
            self.trigger_event(self.RoleGranted, role=role)

    def revoke(self, role: str) -> None:
        if role not in self.roles:
            raise NotFound(f"{self.username} has no role {role!r}", {"role": ["not granted"]})
        self.trigger_event(self.RoleRevoked, role=role)

    def revoke_token(self, token_id: str) -> None:
        if token_id not in self.tokens:
            raise NotFound("no such token", {"token": ["unknown token"]})
        self.trigger_event(self.TokenRevoked, token_id=token_id)

    def token_matches(self, token_id: str, secret: str) -> bool:
        entry = self.tokens.get(token_id)
        return entry is not None and hmac.compare_digest(entry["hash"], token_digest(secret))
