"""Users: registration, sign-in, passwords (changed, set) and their bearer tokens (issued, checked,
listed, revoked).

Tokens are aggregates of their own (:class:`service.domain.users.ApiToken`): a sign-in creates a
new stream, so concurrent sign-ins of one user never conflict, and a revocation that loses a race
(with another revocation or a use record of the same token) is simply tried again.  A user's live
tokens are read by key from the tokens' view (``service.views.tokens``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from service.application.ports import Outbox
from service.application.store import ArbiterStore
from service.application.throttle import SignInThrottle
from service.domain.errors import (
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    StaleVersion,
    TooManyAttempts,
    Unauthenticated,
)
from service.domain.users import (
    ApiToken,
    User,
    check_password,
    dummy_check,
    parse_token,
    user_id,
)
from service.views.runner import ProjectionRunner
from service.views.tokens import TokensView

DEFAULT_TOKEN_LIFETIME = timedelta(days=30)
#: accounts one client address may sign up within :data:`SIGNUP_WINDOW` (``ARBITER_SIGNUPS_PER_HOUR``)
SIGNUPS_PER_HOUR = 10
SIGNUP_WINDOW = 3600
REVOKE_ATTEMPTS = 20
AUTH_CACHE_MAX = 10_000  # tokens checked recently, per process

Clock = Callable[[], datetime]

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class SignedIn:
    user: User
    token: str  # the bearer string: shown once, never stored
    record: ApiToken


@dataclass(frozen=True)
class PasswordChanged:
    user: User
    #: the user's other tokens and sessions that were live, now signed out
    signed_out: int
    #: the new token replacing the one of the request that changed it (None: none was asked)
    signed: SignedIn | None


class UserService:
    def __init__(
        self,
        store: ArbiterStore,
        token_lifetime: timedelta = DEFAULT_TOKEN_LIFETIME,
        clock: Clock = utc_now,
        auth_cache_seconds: float = 0.0,
        throttle: SignInThrottle | None = None,
        tokens_per_user: int = 20,
        outbox: Outbox | None = None,
        public_url: str = "",
        tokens: ProjectionRunner | None = None,
        signups_per_hour: int = SIGNUPS_PER_HOUR,
        signups: SignInThrottle | None = None,
    ) -> None:
        self.store = store
        #: the tokens' view (``projections.tokens``): each user's live tokens, for the listing
        #: and the cap; a writing request's commit brings it up to date before it answers
        self.tokens_runner = tokens
        #: where a changed e-mail address's old address is told of the change (None: no SMTP)
        self.outbox = outbox
        self.public_url = public_url.rstrip("/")
        #: live tokens (web sessions included) one user may hold: a sign-in past it revokes the
        #: oldest (README: ARBITER_TOKENS_PER_USER), so no one is ever locked out by the limit
        self.tokens_per_user = tokens_per_user
        #: wrong passwords per account and per address (``service.application.throttle``)
        self.throttle = throttle or SignInThrottle()
        #: accounts signed up per client address within the hour (``ARBITER_SIGNUPS_PER_HOUR``),
        #: counted as the sign-in throttle counts (in this process's memory, or in Redis for the
        #: whole site: ``service.bootstrap``), an IPv6 client by /64
        self.signups = signups or SignInThrottle(per_address=signups_per_hour, window=SIGNUP_WINDOW)
        self._signing_up = threading.Lock()
        #: token id -> (monotonic deadline, token record, user): a bearer token checked less than
        #: ``auth_cache_seconds`` ago is checked again (secret, expiry) without reading the store.
        #: A revocation drops the entry at once in this process; other processes see it when their
        #: entry lapses (``ARBITER_AUTH_CACHE_SECONDS``, 1 s by default; 0 turns the cache off).
        self.auth_cache_seconds = auth_cache_seconds
        self._checked: dict[UUID, tuple[float, ApiToken, User]] = {}
        #: request threads note checked tokens while a password change forgets a user's
        self._checked_lock = threading.Lock()
        #: tokens revoked by this process (id -> when): a request that read a token just before
        #: its revocation may note it as checked just after; such a note is never used
        self._revoked: dict[UUID, float] = {}
        self.token_lifetime = token_lifetime
        self.clock = clock
        self._names: dict[str, str] = {}  # user id -> username (names never change)

    @property
    def _tokens_view(self) -> TokensView:
        view = self.tokens_runner.view if self.tokens_runner is not None else None
        assert isinstance(view, TokensView), "this user service was made without the tokens view"
        return view

    def register(
        self, username: str, password: str, email: str | None = None, address: str | None = None
    ) -> User:
        """A new account; from a client ``address`` (the API's; None: the command line), at most
        ``ARBITER_SIGNUPS_PER_HOUR`` an hour, past which it is refused (429) and nothing written."""
        user = User.register(username, password)
        if email:
            user.set_email(email)
        taken = Conflict(f"user {username!r} already exists", {"username": ["already taken"]})
        if address is None:
            self.store.commit(user, conflict=taken)
            return user
        with self._signing_up:  # held, committed and counted as one step: a burst cannot pass
            wait = self.signups.held("address", address)
            if wait > 0:
                limit = self.signups.limits["address"]
                raise TooManyAttempts(
                    "too many sign-ups from this address: wait and try again",
                    wait,
                    field="address",
                    reason=f"at most {limit} accounts from one address an hour",
                )
            self.store.commit(user, conflict=taken)
            self.signups.note("address", address)
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

    def change_email(
        self, user: User, email: str | None, current: str, *, address: str = ""
    ) -> User:
        """``user`` changes (or with None or "" removes) their e-mail address, giving their
        current password: the address is where a reset link goes, so a stolen session alone must
        not move it.  A wrong password counts as at sign-in, like :meth:`change_password` (403
        ``current_password``, then 429).  The old address is told by e-mail, and every reset
        link sent before no longer works (it names the address it was sent to)."""
        fresh = self._check_current(user, current, address)
        old = fresh.email
        fresh.set_email(email)
        if fresh.email == old:
            return fresh
        self.store.commit(
            fresh,
            conflict=Conflict(
                "the account changed meanwhile: try again", {"email": ["not saved: try again"]}
            ),
        )
        if old:
            self._tell_old_address(fresh, old)
        return fresh

    def _tell_old_address(self, user: User, old: str) -> None:
        if self.outbox is None:
            log.warning("%s's e-mail address changed; no SMTP server to tell the old one", user.id)
            return
        what = "was changed" if user.email else "was removed"
        text = "\n".join(
            [
                f"The e-mail address of the Arbiter account “{user.username}” {what}: this address"
                " no longer gets its notifications or password reset links.",
                "",
                "If it was not you, someone else knows the account's password: ask the operator"
                " of this site for help.",
                "",
                "--",
                f"Arbiter ({self.public_url})" if self.public_url else "Arbiter",
            ]
        )
        self.outbox.send(old, "Arbiter: your e-mail address was changed", text, about=user.username)

    def _check_current(self, user: User, current: str, address: str) -> User:
        """The freshly loaded ``user`` (not a cached copy), if ``current`` is their password; a
        wrong one counts towards the sign-in throttle."""
        wait = self.throttle.wait(user.username, address)
        if wait > 0:
            raise TooManyAttempts(
                "too many wrong passwords: wait and try again", wait, field="current_password"
            )
        fresh = self.by_name(user.username)
        if not check_password(current, fresh.password_hash):
            self.throttle.failed(user.username, address)
            raise Forbidden(
                "wrong current password", {"current_password": ["not your current password"]}
            )
        self.throttle.succeeded(user.username)
        return fresh

    # -- tokens ------------------------------------------------------------------------------------
    def sign_in(
        self, username: str, password: str, label: str = "api", address: str = ""
    ) -> SignedIn:
        """Check the password and issue a new bearer token (a new record: never a conflict).
        Too many wrong passwords for ``username`` or from ``address`` and every try waits
        (:class:`~service.domain.errors.TooManyAttempts`); an unknown name costs the same work as
        a wrong password."""
        wait = self.throttle.wait(username, address)
        if wait > 0:
            raise TooManyAttempts("too many wrong passwords: wait and try again", wait)
        try:
            user = self.by_name(username)
        except NotFound:
            dummy_check(password)
            self.throttle.failed(username, address)
            raise Unauthenticated("wrong username or password") from None
        if not check_password(password, user.password_hash):
            self.throttle.failed(username, address)
            raise Unauthenticated("wrong username or password")
        self.throttle.succeeded(username)
        return self._issue(user, label)

    def _issue(self, user: User, label: str) -> SignedIn:
        """A new token of ``user``, under their current password."""
        record, token = ApiToken.issue(
            user.id,
            label,
            now=self.clock(),
            lifetime=self.token_lifetime,
            generation=user.password_generation,
        )
        self.store.commit(record)
        self._keep_newest(user)
        return SignedIn(user, token, record)

    def _keep_newest(self, user: User) -> None:
        """Revoke ``user``'s oldest live tokens past ``tokens_per_user``.  The new token is
        committed by now: a revocation that fails is logged, never the sign-in's failure (the
        cap is enforced again at the next sign-in)."""
        for row in self.tokens(user)[self.tokens_per_user :]:
            try:
                self.revoke_token(user, row["id"])
            except DomainError as exc:
                log.warning(
                    "token cap of %s: token %s not revoked (%s); tried again at the next sign-in",
                    user.username,
                    row["id"],
                    exc,
                )

    # -- passwords ---------------------------------------------------------------------------------
    def change_password(
        self, user: User, current: str, new: str, *, token: str, address: str = ""
    ) -> PasswordChanged:
        """``user`` changes their own password, giving the current one (a wrong one counts as a
        wrong password at sign-in: :class:`~service.application.throttle.SignInThrottle`).  Every
        other token and session of the user is signed out; the one of this request (``token``)
        is replaced by a new one, returned, under the same label.  The password is checked
        against the stored user, never a cached copy, and the change is committed at the version
        it was checked on: a change that raced it is refused (409)."""
        fresh = self._check_current(user, current, address)
        label = self._token(
            parse_token(token)[1], Unauthenticated("invalid token"), fresh=True
        ).label
        return self._set_password(fresh, new, label=label)

    def set_password(
        self,
        username: str,
        new: str,
        *,
        label: str | None = None,
        still: Callable[[User], None] | None = None,
    ) -> PasswordChanged:
        """Set ``username``'s password (the operator's ``arbiter users set-password``, or a reset
        link), signing out every token and session of the user; with ``label``, a new token is
        issued under the new password.  ``still`` is called with the user as loaded for the
        change and raises to refuse it (a reset link checks that its password generation is still
        the user's): the change is committed at that version, so of two racing uses only one can
        succeed."""
        user = self.by_name(username)
        if still is not None:
            still(user)
        return self._set_password(user, new, label=label)

    def _set_password(self, user: User, new: str, *, label: str | None) -> PasswordChanged:
        username = user.username
        signed_out = len(self.tokens(user))
        user.change_password(new)
        self.store.commit(
            user,
            conflict=Conflict(
                "the account changed meanwhile: try again",
                {"new_password": ["not saved: try again"]},
            ),
        )
        self._forget_user(user.id)
        self.throttle.succeeded(username)  # a held account may sign in with its new password
        signed = self._issue(user, label) if label is not None else None
        return PasswordChanged(user, signed_out - (1 if signed is not None else 0), signed)

    def _forget_user(self, uid: UUID) -> None:
        """This process takes no token of ``uid`` from its checked tokens again (other processes
        drop theirs within ``auth_cache_seconds``)."""
        with self._checked_lock:  # a copy in one step (dict.copy): request threads go on noting
            checked = self._checked.copy()
        for tid in [t for t, entry in checked.items() if entry[2].id == uid]:
            self._forget(tid)

    def from_token(self, token: str, *, writing: bool = False) -> User:
        """The user a bearer token belongs to; 401 if it is malformed, unknown, revoked or
        expired ("token expired").  ``writing``: the request writes anyway (POST, PUT, PATCH,
        DELETE), so the token's use is recorded with it (at most once per
        :data:`~service.domain.users.LAST_USED_STEP`); a read (GET, HEAD, OPTIONS) writes
        nothing, so a token's "last used" is when it last changed something."""
        uid, token_id, secret = parse_token(token)
        now = self.clock()
        checked = self._checked.get(token_id)
        if checked is not None and checked[0] > time.monotonic() and token_id not in self._revoked:
            # the secret, the password generation and the expiry, every time
            record, user = checked[1], checked[2]
            record.check(uid, secret, now, user.password_generation)
        else:
            record = self._token(token_id, Unauthenticated("invalid token"))
            try:
                user = self.get(uid)
            except NotFound:
                raise Unauthenticated("invalid token") from None
            record.check(uid, secret, now, user.password_generation)
            self._note_checked(token_id, record, user)
        if writing and record.due_for_use_record(now):
            self._record_use(token_id, user)
        return user

    def _note_checked(self, token_id: UUID, record: ApiToken, user: User) -> None:
        if self.auth_cache_seconds > 0:
            with self._checked_lock:
                if len(self._checked) >= AUTH_CACHE_MAX:
                    self._checked.clear()
                self._checked[token_id] = (time.monotonic() + self.auth_cache_seconds, record, user)

    def token_id(self, token: str) -> str:
        """The id of a bearer token (what the listing shows and revocation takes)."""
        return parse_token(token)[1].hex

    def tokens(self, user: User) -> list[dict[str, Any]]:
        """``user``'s live tokens: id, label, created, last used, expires -- never the secret;
        newest first, read from the tokens' view (a write, a recorded use included, brings it up
        to date before its request answers)."""
        return self._tokens_view.live(str(user.id), self.clock(), user.password_generation)

    def revoke_token(self, user: User, token_id: str) -> None:
        """Revoke one of ``user``'s tokens by its id (404 if it is not theirs).  Revoking a revoked
        token succeeds, and a race with another change of the token is tried again."""
        unknown = NotFound("no such token", {"token": [f"you have no token {token_id!r}"]})
        try:
            tid = UUID(hex=token_id)
        except ValueError:
            raise unknown from None
        for _ in range(REVOKE_ATTEMPTS):
            record = self._token(tid, unknown, fresh=True)
            if record.user_id != str(user.id):
                raise unknown
            if record.revoked:
                self._forget(tid)
                return
            record.revoke()
            try:
                self.store.commit(record)
            except StaleVersion:
                continue  # it changed meanwhile (used or revoked): read it again
            self._forget(tid)
            return
        raise Conflict("the token kept changing; try again", {"token": ["changed meanwhile"]})

    def _forget(self, token_id: UUID) -> None:
        """A revoked token is never taken from this process's checked tokens again."""
        now = time.monotonic()
        with self._checked_lock:
            if len(self._revoked) >= AUTH_CACHE_MAX:  # older revocations: their notes lapsed
                horizon = now - self.auth_cache_seconds
                self._revoked = {t: at for t, at in self._revoked.items() if at >= horizon}
            self._revoked[token_id] = now
            self._checked.pop(token_id, None)

    def revoke(self, user: User, token: str) -> None:
        """Revoke the bearer token ``token`` of ``user`` (signing out)."""
        self.revoke_token(user, self.token_id(token))

    def _token(self, token_id: UUID, missing: Exception, *, fresh: bool = False) -> ApiToken:
        try:
            record: Any = self.store.repository.get(token_id, deepcopy_from_cache=fresh)
        except AggregateNotFoundError:
            raise missing from None
        if not isinstance(record, ApiToken):
            raise missing
        return record

    def _record_use(self, token_id: UUID, user: User) -> None:
        """Note that the token was used by a writing request (at most once per step); a lost race
        is someone else's record of the same use, or a revocation, so it is dropped.  A checked
        token noted in this process is noted again as recorded, so the next writes within the
        step record nothing."""
        record = self._token(token_id, Unauthenticated("invalid token"), fresh=True)
        record.record_use()
        try:
            self.store.commit(record)
        except StaleVersion:
            return
        with self._checked_lock:
            noted = token_id in self._checked and token_id not in self._revoked
        if noted:
            self._note_checked(token_id, record, user)
