"""Password reset by e-mail: anyone may ask, by user name or e-mail address, for a link that sets
a new password; the answer is the same whether or not such an account exists, and takes as long:
the request only checks its client address's throttle and queues the account as typed; finding
the account, its per-account throttle, signing the link and the mail happen in the outbox's
thread (:meth:`~service.application.ports.Outbox.defer`).  The link is

- **signed**: it carries the user's id, their password generation, a hash of the e-mail address
  it was sent to and when it expires, signed (HMAC-SHA256, itsdangerous) under the server key:
  nothing about it is stored;
- **expiring**: after ``lifetime`` (``ARBITER_RESET_MINUTES``, 60 by default);
- **single-use**: setting a password counts the user's password generation up
  (``User.PasswordChanged``), and a link made for an earlier generation no longer opens, so a link
  works once, and every older link dies with it (as do the links of a password changed otherwise).
  The generation is checked again on the user as loaded for the change, which is committed at
  that version: of two uses at once, one succeeds;
- **bound to the address**: once the account's e-mail address changes (or is removed), links
  sent before no longer open.

Using it signs out every token and web session of the user.  Requests are throttled
(:class:`~service.application.throttle.SignInThrottle`: in each worker's memory, or with Redis
for the whole site, ``service.adapters.redis_throttle``): from one client
address past ``PER_ADDRESS`` an hour the answer is 429; for one account past ``PER_ACCOUNT`` an
hour the answer stays the same but no more mail is sent."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer

from service.application.ports import Mail, Outbox
from service.application.throttle import SignInThrottle
from service.application.users import PasswordChanged, UserService
from service.domain.errors import NotFound, TooManyAttempts, Unprocessable
from service.domain.users import User
from service.views.emails import EmailsView
from service.views.runner import ProjectionRunner

log = logging.getLogger(__name__)

DEFAULT_LIFETIME = timedelta(minutes=60)
#: reset mails one account is sent within an hour; more requests are answered alike, unsent
PER_ACCOUNT = 3
#: reset requests from one client address within an hour; more are answered 429
PER_ADDRESS = 10
WINDOW = 3600
#: accounts one address may belong to that are sent a link at once
MAX_ACCOUNTS_PER_ADDRESS = 5
SALT = "arbiter password reset v2"


def address_tag(email: str | None) -> str:
    """What a link carries of the address it was sent to (compared without case)."""
    digest = hashlib.sha256(b"arbiter reset address\0" + (email or "").lower().encode("utf-8"))
    return digest.hexdigest()[:32]


def bad_link(reason: str) -> Unprocessable:
    """A 422: a token of the document's shape that names no working link of this site."""
    return Unprocessable("this reset link does not work", {"token": [reason]})


class PasswordResets:
    def __init__(
        self,
        users: UserService,
        *,
        secret: str,
        outbox: Outbox | None,
        public_url: str,
        lifetime: timedelta = DEFAULT_LIFETIME,
        clock: Callable[[], datetime] | None = None,
        throttle: SignInThrottle | None = None,
        emails: ProjectionRunner,
    ) -> None:
        self.users = users
        self.outbox = outbox
        self.public_url = public_url.rstrip("/")
        self.lifetime = lifetime
        self.clock = clock or users.clock
        self.throttle = throttle or SignInThrottle(PER_ACCOUNT, PER_ADDRESS, WINDOW)
        #: the e-mail addresses' view (``projections.emails``): the users of an address, by key;
        #: a change of address brings it up to date before its request answers
        assert isinstance(emails.view, EmailsView), emails.view
        self.emails: EmailsView = emails.view
        self._signer = URLSafeSerializer(
            secret, salt=SALT, signer_kwargs={"digest_method": hashlib.sha256}
        )

    @property
    def minutes(self) -> int:
        return round(self.lifetime.total_seconds() / 60)

    # -- asking for a link -------------------------------------------------------------------------
    def request(self, account: str, address: str = "") -> None:
        """E-mail a reset link to the account named ``account`` (a user name, or an e-mail
        address: every account with it, at most :data:`MAX_ACCOUNTS_PER_ADDRESS`), if it has an
        e-mail address.  Returns the same (nothing) whether or not there is one, after the same
        work: the account is looked for in the outbox's thread (:meth:`mails`)."""
        wait = self.throttle.held("address", address)
        if wait > 0:
            raise TooManyAttempts(
                "too many reset requests: wait and try again",
                wait,
                field="account",
                reason="too many reset requests from this address: wait and try again",
            )
        self.throttle.note("address", address)
        if self.outbox is None:
            log.warning("a reset link was asked for: no SMTP server to send it (ARBITER_SMTP_URL)")
            return
        account = account.strip()
        self.outbox.defer(lambda: self.mails(account), about="a password reset request")

    def mails(self, account: str) -> Iterator[Mail]:
        """The reset mails for ``account`` as typed (in the outbox's thread): one per account it
        names that has an address and was sent fewer than :data:`PER_ACCOUNT` this hour."""
        for user in self._accounts(account):
            key = f"user:{user.id}"
            held = self.throttle.held("account", key) > 0
            self.throttle.note("account", key)
            if held:
                log.info("reset link for %s not sent: too many asked this hour", user.username)
            elif user.email:
                yield self._mail(user)

    def _accounts(self, account: str) -> list[User]:
        if "@" in account:
            found = []
            for uid in self.emails.users_of(account)[:MAX_ACCOUNTS_PER_ADDRESS]:
                try:
                    found.append(self.users.get(uid))
                except NotFound:
                    continue
            return found
        try:
            return [self.users.by_name(account)]
        except (NotFound, ValueError):
            return []

    def link(self, user: User) -> str:
        """A reset link for ``user``'s current password, expiring ``lifetime`` from now."""
        expires = int((self.clock() + self.lifetime).timestamp())
        token = self._signer.dumps(
            [user.id.hex, user.password_generation, address_tag(user.email), expires]
        )
        return f"{self.public_url}/reset-password#token={token}"

    def _mail(self, user: User) -> Mail:
        text = "\n".join(
            [
                f"Someone asked to set a new password for the Arbiter account “{user.username}”.",
                "",
                f"Set it here (the link works once, within {self.minutes} minutes):",
                self.link(user),
                "",
                "If it was not you, ignore this e-mail: your password stays as it is.",
                "",
                "--",
                f"Arbiter ({self.public_url})",
            ]
        )
        assert user.email is not None
        return Mail(user.email, "Arbiter: set a new password", text, about=user.username)

    # -- using it ----------------------------------------------------------------------------------
    def use(self, token: str, password: str) -> PasswordChanged:
        """Set a new password with a reset link's ``token``; every token and web session of the
        user is signed out.  A link that is forged, expired or already used is refused (422
        ``token``), and so is a password the policy refuses (422 ``new_password``): either way
        nothing is written."""
        user, generation, tag = self._open(token)
        return self.users.set_password(
            user.username, password, still=lambda fresh: self._still(fresh, generation, tag)
        )

    def check(self, token: str) -> User:
        """The user a reset link's ``token`` is for, if it still works."""
        return self._open(token)[0]

    def _open(self, token: str) -> tuple[User, int, str]:
        try:
            payload: Any = self._signer.loads(token)
            uid_hex, generation, tag, expires = payload
            expires = int(expires)
        except (BadSignature, TypeError, ValueError):
            raise bad_link("not a reset link of this site: ask for a new one") from None
        if self.clock().timestamp() >= expires:
            raise bad_link(f"expired (a link works for {self.minutes} minutes): ask for a new one")
        try:
            user = self.users.get(uid_hex)
        except NotFound:
            raise bad_link("not a reset link of this site: ask for a new one") from None
        self._still(user, generation, tag)
        return user, generation, tag

    @staticmethod
    def _still(user: User, generation: object, tag: object) -> None:
        """Refuse the link unless ``user`` (as loaded now) has the password generation and the
        address it was made for."""
        if user.password_generation != generation:
            raise bad_link("already used, or the password changed since: ask for a new one")
        if address_tag(user.email) != tag:
            raise bad_link("the account's e-mail address changed since: ask for a new one")
