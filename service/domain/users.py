"""Users (a name, a hashed password, site roles) and their API tokens.

Each token is an aggregate of its own (:class:`ApiToken`: only the secret's hash is kept, with an
expiry), so signing in, using and revoking tokens never contends for the user's stream: any number
of sign-ins of one user may run at once."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate

from service.domain.digests import same_secret
from service.domain.errors import Invalid, NotFound, Unauthenticated, Unprocessable

USERS_NAMESPACE = UUID("6f1d2c3e-9a4b-4c5d-8e7f-0a1b2c3d4e5f")
USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$")
#: site-wide roles: an ``arbiter`` resolves disputes of games that belong to no club
SITE_ROLES = ("arbiter", "admin")
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
#: the work factor a stored ``scrypt$salt$digest`` was made with; a hash made with another one
#: (the test suites' cheap one) names it: ``scrypt-<n>$salt$digest``
STORED_N = SCRYPT["n"]
LOWEST_N, HIGHEST_N = 2, 2**20


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


#: the commonest passwords, refused (``common_passwords.txt``: one a line, lower case)
COMMON_PASSWORDS = frozenset(
    line.strip().lower()
    for line in (Path(__file__).parent / "common_passwords.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)


def validate_password(password: str, username: str | None = None) -> None:
    """At least 8 characters, at most 1024; not one of the commonest passwords, not the user's
    own name, not one character repeated."""
    password = password or ""
    if len(password) < 8:
        raise Invalid("password too short", {"password": ["at least 8 characters"]})
    if len(password) > 1024:
        raise Invalid("password too long", {"password": ["at most 1024 characters"]})
    # a password of the right length the policy refuses: a well-formed request, so 422
    lowered = password.lower()
    if lowered in COMMON_PASSWORDS or len(set(lowered)) == 1:
        raise Unprocessable(
            "password too common", {"password": ["one of the commonest passwords: choose another"]}
        )
    if username is not None and lowered == username.lower():
        raise Unprocessable("password is the user name", {"password": ["not your user name"]})


def dummy_check(password: str) -> None:
    """The work of a password check, for a name that does not exist (answers take as long)."""
    hash_password(password, bytes(16))


def hash_password(password: str, salt: bytes | None = None, n: int | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    n = n or SCRYPT["n"]
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, **{**SCRYPT, "n": n})
    scheme = "scrypt" if n == STORED_N else f"scrypt-{n}"
    return f"{scheme}${salt.hex()}${digest.hex()}"


def _work_factor(scheme: str) -> int | None:
    if scheme == "scrypt":
        return STORED_N
    name, _, digits = scheme.partition("-")
    n = int(digits) if name == "scrypt" and digits.isdigit() else 0
    power_of_two = n & (n - 1) == 0  # as scrypt's n must be
    return n if LOWEST_N <= n <= HIGHEST_N and power_of_two else None


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from, with the work factor it names."""
    try:
        scheme, salt_hex, digest_hex = stored.split("$")
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        return False
    n = _work_factor(scheme)
    if n is None:
        return False
    candidate = hash_password(password, salt, n).split("$")[2]
    return same_secret(digest_hex, candidate)


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_token(token: str) -> tuple[UUID, UUID, str]:
    """``<user id>.<token id>.<secret>`` (hex, hex, url-safe text) -> its three parts."""
    try:
        uid_hex, token_hex, secret = token.split(".", 2)
        return UUID(hex=uid_hex), UUID(hex=token_hex), secret
    except ValueError:
        raise Unauthenticated("invalid token") from None


class User(Aggregate):
    class Registered(Aggregate.Created):
        username: str
        password_hash: str

        def apply(self, aggregate: Any) -> None:
            aggregate.username = self.username
            aggregate.password_hash = self.password_hash
            aggregate.roles = []
            aggregate.email = None
            aggregate.password_generation = 0

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

    class EmailChanged(Aggregate.Event):
        """The address notifications are e-mailed to (None: no e-mail)."""

        email: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.email = self.email

    class PasswordChanged(Aggregate.Event):
        """A new password (by its owner, a reset link or the operator).  ``generation`` counts the
        changes: tokens issued under an earlier one no longer sign in, and a reset link made for
        an earlier one no longer opens."""

        password_hash: str
        generation: int

        def apply(self, aggregate: Any) -> None:
            aggregate.password_hash = self.password_hash
            aggregate.password_generation = self.generation

    class TokenIssued(Aggregate.Event):
        """Legacy: tokens once lived in the user's stream (see :class:`ApiToken`); kept so that old
        streams replay.  Such tokens are no longer accepted."""

        token_id: str
        token_hash: str
        label: str

        def apply(self, aggregate: Any) -> None:
            pass

    class TokenRevoked(Aggregate.Event):
        """Legacy, like :class:`TokenIssued`."""

        token_id: str

        def apply(self, aggregate: Any) -> None:
            pass

    username: str
    password_hash: str
    roles: list[str]
    #: set by :class:`EmailChanged` (None: no e-mail)
    email: str | None
    #: how many times the password was changed (:class:`PasswordChanged`)
    password_generation: int

    def __init__(self) -> None:  # attributes are set by Registered.apply
        pass

    @classmethod
    def register(cls, username: str, password: str) -> User:
        validate_username(username)
        validate_password(password, username)
        return cls._create(
            cls.Registered,
            id=user_id(username),
            username=username,
            password_hash=hash_password(password),
        )

    def set_email(self, email: str | None) -> None:
        """Give (or with None / "" remove) the address notifications are e-mailed to."""
        from service.domain.notifications import validate_email

        address = validate_email(email) if email else None
        if address != self.email:
            self.trigger_event(self.EmailChanged, email=address)

    def change_password(self, password: str) -> None:
        """Set a new password (checked against the policy): every token issued before it, and
        every reset link made before it, stops working."""
        try:
            validate_password(password, self.username)
        except (Invalid, Unprocessable) as exc:  # named as the field that carries it
            raise type(exc)(exc.message, {"new_password": exc.details["password"]}) from None
        self.trigger_event(
            self.PasswordChanged,
            password_hash=hash_password(password),
            generation=self.password_generation + 1,
        )

    def grant(self, role: str) -> None:
        if role not in SITE_ROLES:
            raise Invalid(f"unknown role {role!r}", {"role": [f"one of {', '.join(SITE_ROLES)}"]})
        if role not in self.roles:
            self.trigger_event(self.RoleGranted, role=role)

    def revoke(self, role: str) -> None:
        if role not in self.roles:
            raise NotFound(f"{self.username} has no role {role!r}", {"role": ["not granted"]})
        self.trigger_event(self.RoleRevoked, role=role)


#: how often a token's use by a writing request is recorded (at most one ``Used`` event per
#: token per step)
LAST_USED_STEP = timedelta(hours=1)


class ApiToken(Aggregate):
    """One bearer token of one user: its secret's hash, a label, when it expires, when it was
    last used by a request that wrote (to :data:`LAST_USED_STEP`; reads record nothing), whether
    it was revoked, and the user's password generation it was issued under (a later password
    signs it out)."""

    class Issued(Aggregate.Created):
        user_id: str
        token_hash: str
        label: str
        expires: datetime
        #: the user's ``password_generation`` when it was issued (docs/upgrades.md: version 2;
        #: tokens issued before passwords could change are upcast with 0)
        generation: int
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["generation"] = 0

        def apply(self, aggregate: Any) -> None:
            aggregate.user_id = self.user_id
            aggregate.token_hash = self.token_hash
            aggregate.label = self.label
            aggregate.expires = self.expires
            aggregate.generation = self.generation
            aggregate.last_used = None
            aggregate.revoked = False

    class Used(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.last_used = self.timestamp

    class Revoked(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.revoked = True

    user_id: str
    token_hash: str
    label: str
    expires: datetime
    last_used: datetime | None
    revoked: bool
    generation: int = 0

    def __init__(self) -> None:  # attributes are set by Issued.apply
        pass

    @classmethod
    def issue(
        cls, user: UUID, label: str, *, now: datetime, lifetime: timedelta, generation: int = 0
    ) -> tuple[ApiToken, str]:
        """A new token and its bearer string ``<user id>.<token id>.<secret>``: the secret is
        in the string only, never stored.  ``generation``: the user's password generation."""
        secret = secrets.token_urlsafe(24)
        token = cls._create(
            cls.Issued,
            id=uuid4(),
            user_id=str(user),
            token_hash=token_digest(secret),
            label=label,
            expires=now + lifetime,
            generation=generation,
        )
        return token, f"{user.hex}.{token.id.hex}.{secret}"

    def check(self, user: UUID, secret: str, now: datetime, generation: int = 0) -> None:
        """Raise :class:`Unauthenticated` unless this is ``user``'s live token with ``secret``,
        issued under the user's current password (``generation``)."""
        if (
            self.revoked
            or self.user_id != str(user)
            or not same_secret(self.token_hash, token_digest(secret))
        ):
            raise Unauthenticated("invalid or revoked token")
        if self.generation < generation:
            raise Unauthenticated(
                "signed out: the password was changed", {"token": ["sign in with the new password"]}
            )
        if now >= self.expires:
            raise Unauthenticated("token expired", {"token": ["expired: sign in again"]})

    def due_for_use_record(self, now: datetime) -> bool:
        return self.last_used is None or now - self.last_used >= LAST_USED_STEP

    def record_use(self) -> None:
        self.trigger_event(self.Used)

    def revoke(self) -> None:
        if not self.revoked:
            self.trigger_event(self.Revoked)
