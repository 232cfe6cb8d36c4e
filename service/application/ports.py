"""Ports the application needs from the outside, implemented in service/adapters."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class Subscription(Protocol):
    def get(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after ``timeout`` seconds.  Raises ConnectionError when the
        broker is lost (the stream then degrades; the game log is never affected)."""
        ...

    def close(self) -> None: ...


class AsyncSubscription(Protocol):
    """The same, awaited on an event loop (the ASGI live streams hold no thread while waiting)."""

    async def get(self, timeout: float) -> dict[str, Any] | None: ...

    async def close(self) -> None: ...


class Broker(Protocol):
    def publish(self, channel: str, message: dict[str, Any]) -> bool:
        """Publish; never raises.  Returns False when the message could not be delivered."""
        ...

    def subscribe(self, channel: str) -> Subscription: ...

    async def subscribe_async(self, channel: str) -> AsyncSubscription:
        """Raises ConnectionError when the broker is unavailable."""
        ...

    def healthy(self) -> bool: ...


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str
    #: whose mail it is, for the logs (a user name): logs never name an address
    about: str = ""


class Outbox(Protocol):
    def send(self, to: str, subject: str, text: str, *, about: str = "") -> bool:
        """Queue one e-mail to be sent soon, without waiting for the mail server; never raises.
        Returns False when it was dropped (the queue is full).  ``about``: whose mail it is, for
        the logs (never the address)."""
        ...

    def defer(self, compose: Callable[[], Iterable[Mail]], *, about: str = "") -> bool:
        """Queue ``compose``, called in the outbox's own thread, and send the mails it returns:
        the request that queues it does no more work whatever it finds.  Never raises; False when
        it was dropped (the queue is full)."""
        ...


class DeliveryMail(Protocol):
    """The notification worker's SMTP sender (``service.adapters.smtp.Mailer``)."""

    def send(
        self, to: str, subject: str, text: str, *, key: str, headers: dict[str, str] | None = None
    ) -> str:
        """Send one message whose Message-ID carries ``key``; what the server answered.  Raises
        OSError / SMTPException."""
        ...


class Poster(Protocol):
    """HTTP POSTs to webhooks and push services (``service.adapters.webhooks.WebhookPoster``):
    with ``address`` the connection goes to that checked address, never a new look-up."""

    def post(
        self, url: str, secret: str, body: bytes, key: str, *, address: str | None = None
    ) -> tuple[bool, str]: ...

    def send(
        self, url: str, body: bytes, headers: dict[str, str], *, address: str | None = None
    ) -> tuple[int | None, str]: ...


class PushSigning(Protocol):
    """Encrypts and signs web push messages (``service.adapters.push.PushSigner``)."""

    @property
    def public_key(self) -> str: ...

    def message(
        self, subscription: dict[str, Any], payload: dict[str, Any]
    ) -> tuple[bytes, dict[str, str]]: ...
