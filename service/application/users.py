"""Users: registration, sign-in, bearer tokens."""

from __future__ import annotations

from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from service.application.store import ArbiterStore
from service.domain.errors import Conflict, NotFound, Unauthenticated
from service.domain.users import User, check_password, user_id


class UserService:
    def __init__(self, store: ArbiterStore) -> None:
        self.store = store
        self._names: dict[str, str] = {}  # user id -> username (names never change)

    def register(self, username: str, password: str) -> User:
        user = User.register(username, password)
        taken = Conflict(f"user {username!r} already exists", {"username": ["already taken"]})
        self.store.commit(user, conflict=taken)
        return user

    def get(self, uid: UUID | str) -> User:
        """A user to read (not to change: it may be the cached instance)."""
        try:
            return self.store.repository.get(UUID(str(uid)), deepcopy_from_cache=False)
        except (AggregateNotFoundError, ValueError):
            raise NotFound("no such user", {"user": [f"unknown user {uid}"]}) from None

    def by_name(self, username: str) -> User:
        try:
            return self.store.repository.get(user_id(username))
        except AggregateNotFoundError:
            raise NotFound(
                f"no user {username!r}", {"username": [f"unknown user {username!r}"]}
            ) from None

    def username(self, uid: UUID | str) -> str:
        key = str(uid)
        if key not in self._names:
            try:
                self._names[key] = self.get(uid).username
            except NotFound:
                return key
        return self._names[key]

    def sign_in(self, username: str, password: str, label: str = "api") -> tuple[User, str]:
        """Check the password and issue a new bearer token."""
        try:
            user = self.by_name(username)
        except NotFound:
            raise Unauthenticated("wrong username or password") from None
        if not check_password(password, user.password_hash):
            raise Unauthenticated("wrong username or password")
        token = user.issue_token(label)
        self.store.commit(user)
        return user, token

    def from_token(self, token: str) -> User:
        try:
            uid_hex, token_id, secret = token.split(".", 2)
            user: User = self.store.repository.get(UUID(hex=uid_hex), deepcopy_from_cache=False)
        except (ValueError, AggregateNotFoundError):
            raise Unauthenticated("invalid token") from None
        if not user.token_matches(token_id, secret):
            raise Unauthenticated("invalid or revoked token")
        return user

    def revoke(self, user: User, token: str) -> None:
        token_id = token.split(".", 2)[1]
        fresh: User = self.store.repository.get(
            user.id
        )  # a copy to change, never the cached reader
        fresh.revoke_token(token_id)
        self.store.commit(fresh)
