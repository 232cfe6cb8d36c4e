"""Notifications: what a user is told, how they want to be told, and each delivery of it.

Two stores hold them.  The main store (the one log) holds what people decide: a user's
:class:`Preferences`, their :class:`Inbox` read marks and the :class:`Webhook` s they or their club
registered.  The notification process's own store (``service.application.notifications``) holds
what the worker derives from the log: one :class:`Notice` per user and source event, and one
:class:`Delivery` per channel and target, each with an id derived from its source, so that a
replay of the log derives the same ones and a second worker cannot record them twice."""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from service.domain.errors import Invalid, Unprocessable

NAMESPACE = UUID("0e5c6a52-8d57-4c1b-9d0f-6a9b3f7e2c41")

#: what a user can be told about
KINDS = (
    "turn",
    "invitation",
    "challenge",
    "takeback",
    "draw",
    "dispute",
    "clock",
    "ended",
    "club",
    "chat",
    "event",
)
KIND_WORDS = {
    "turn": "your turn",
    "invitation": "invitations",
    "challenge": "ladder challenges",
    "takeback": "takebacks to answer",
    "draw": "draw offers",
    "dispute": "disputes opened or decided",
    "clock": "clocks running low or expired",
    "ended": "games ended",
    "club": "club invitations and requests to join",
    "chat": "chat messages in your games",
    "event": "club events: new rounds, deadlines, results",
}
CHANNELS = ("web", "email", "push", "webhook")
#: the channels a user turns on or off per kind (webhooks carry their own kinds)
PREFERENCE_CHANNELS = ("web", "email", "push")
EMAIL = re.compile(r"^[^@\s<>,;\"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$")


def notice_id(source: str, user: str, kind: str) -> UUID:
    """The id of ``user``'s notice of kind ``kind`` about ``source`` (``<stream id>:<version>``)."""
    return uuid5(NAMESPACE, f"notice:{source}:{user}:{kind}")


def delivery_id(subject: str, channel: str, target: str) -> UUID:
    """The idempotency key of one delivery: what (a notice, or a source event for a club's
    webhook), through which channel, to which target (an address or a webhook id)."""
    return uuid5(NAMESPACE, f"delivery:{subject}:{channel}:{target}")


def preferences_id(user: str) -> UUID:
    return uuid5(NAMESPACE, f"preferences:{user}")


def inbox_id(user: str) -> UUID:
    return uuid5(NAMESPACE, f"inbox:{user}")


def validate_email(email: str) -> str:
    email = (email or "").strip()
    if len(email) > 254 or not EMAIL.match(email):
        raise Invalid("invalid e-mail address", {"email": ["not an e-mail address like a@b.org"]})
    return email


def validate_kinds(kinds: Any, field: str = "kinds") -> list[str]:
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise Invalid(f"invalid {field}", {field: ["a list of kinds"]})
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise Invalid(f"unknown kind {unknown[0]!r}", {field: [f"each one of {', '.join(KINDS)}"]})
    return sorted(set(kinds), key=KINDS.index)


#: what a webhook's URL looks like: http(s), a host (a name or a bracketed IPv6 address), an
#: optional port up to 65535, then a path, query or fragment without blanks (the API's document
#: states it)
WEBHOOK_URL = (
    r"^https?://([^/?#@\s]*@)?([^/?#@:\s\[\]]+|\[[0-9A-Fa-f:.]+\])"
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?"
    r"([/?#]\S*)?$"
)


#: what a host name resolves to: its addresses, or None when it does not resolve (the DNS look-up
#: is the adapters' (``service.adapters.addresses.resolve``), given by ``service.bootstrap``: the
#: domain does no I/O)
Resolve = Callable[[str], list[str] | None]


def literal_addresses(host: str) -> list[str] | None:
    """``host`` read as an address literal, as the resolver would read it (``127.0.0.1``,
    ``2130706433``, ``0x7f000001``, ``::1``), without any look-up; None for a host name.  The
    resolver of last resort: a name then does not resolve."""
    try:
        return [str(ipaddress.ip_address(host.split("%")[0]))]
    except ValueError:
        pass
    try:  # the forms inet_aton takes (one number, hexadecimal, octal, a.b): parsing only
        return [socket.inet_ntoa(socket.inet_aton(host))]
    except (OSError, UnicodeError, ValueError):
        return None


def validate_webhook_url(
    url: str, *, allow_private: bool, resolve: Resolve = literal_addresses
) -> str:
    """An http(s) URL whose host is not on loopback or a private network (unless allowed): a
    400 for a URL that is not one (:data:`WEBHOOK_URL` states it in the API's document), a 422
    for a host that does not resolve (by ``resolve``) or that the policy refuses."""
    url = (url or "").strip()
    try:  # a bracketed host that is no IPv6 address, a port beyond 65535: not a URL
        parts = urlsplit(url)
        scheme, host, _ = parts.scheme, parts.hostname, parts.port
    except ValueError:
        scheme, host = "", None
    if scheme not in ("http", "https") or not host:
        raise Invalid("invalid webhook url", {"url": ["an http:// or https:// URL with a host"]})
    if len(url) > 2000:
        raise Invalid("invalid webhook url", {"url": ["at most 2000 characters"]})
    if not allow_private:
        addresses = public_addresses(host, resolve)
        if addresses is None:
            raise Unprocessable(
                "webhook url not reachable", {"url": ["its host name does not resolve"]}
            )
        if not addresses:
            raise Unprocessable(
                "webhook url not allowed",
                {"url": ["targets on loopback or private networks are refused"]},
            )
    return url


def public_addresses(host: str, resolve: Resolve = literal_addresses) -> list[str] | None:
    """The addresses ``host`` resolves to when every one is public ([] when any is not; None when
    it does not resolve): a webhook is then sent to one of these, never to a second look-up."""
    addresses = literal_addresses(host) or resolve(host)
    if not addresses:
        return None
    found: list[str] = []
    for text in addresses:
        address = ipaddress.ip_address(text.split("%")[0])
        if not _public(address):
            return []
        if str(address) not in found:
            found.append(str(address))
    return found


def webhook_body(text: str, **extra: Any) -> bytes:
    """A webhook's JSON body: the notice's words (``content``, ``text``) and what else is known
    (``kind``, ``game``, ``url``, ``delivery``; those that are None left out)."""
    payload = {"content": text, "text": text, **{k: v for k, v in extra.items() if v is not None}}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


#: NAT64 prefixes, whose last 32 bits are an IPv4 address (RFC 6052, RFC 8215)
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Global and not multicast, and so is every IPv4 address an IPv6 form carries (mapped,
    IPv4-compatible, 6to4, Teredo, NAT64): Python calls ``[::127.0.0.1]`` or ``[2002:7f00:1::]``
    global, though they lead to loopback."""
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return all(v4.is_global and not v4.is_multicast for v4 in _carried_ipv4(address))
    return True


def _carried_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    carried = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    carried += list(address.teredo or ())
    if int(address) >> 32 == 0 or any(address in net for net in _NAT64):
        carried.append(low)  # IPv4-compatible (::/96) or NAT64
    return carried


def default_preferences() -> dict[str, dict[str, bool]]:
    return {kind: {"web": True, "email": True, "push": True} for kind in KINDS}


class Preferences(Aggregate):
    """Which kinds a user wants on which channel (``web``, ``email``, ``push``: to every device
    where they turned notifications on); webhooks carry their own."""

    class Started(Aggregate.Created):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.user = self.user
            aggregate.settings = default_preferences()

    class Changed(Aggregate.Event):
        settings: dict[str, dict[str, bool]]

        def apply(self, aggregate: Any) -> None:
            for kind, channels in self.settings.items():
                aggregate.settings.setdefault(kind, {}).update(channels)

    user: str
    settings: dict[str, dict[str, bool]]

    def __init__(self) -> None:
        pass

    @classmethod
    def start(cls, user: str) -> Preferences:
        return cls._create(cls.Started, id=preferences_id(user), user=user)

    def change(self, settings: Any) -> None:
        if not isinstance(settings, dict):
            raise Invalid("invalid preferences", {"preferences": ["an object: kind -> channels"]})
        clean: dict[str, dict[str, bool]] = {}
        for kind, channels in settings.items():
            if kind not in KINDS:
                raise Invalid(
                    f"unknown kind {kind!r}",
                    {f"preferences.{kind}": [f"one of {', '.join(KINDS)}"]},
                )
            if not isinstance(channels, dict):
                raise Invalid("invalid preferences", {f"preferences.{kind}": ["an object"]})
            for channel, on in channels.items():
                if channel not in PREFERENCE_CHANNELS:
                    raise Invalid(
                        f"unknown channel {channel!r}",
                        {
                            f"preferences.{kind}.{channel}": [
                                f"one of {', '.join(PREFERENCE_CHANNELS)}"
                            ]
                        },
                    )
                if not isinstance(on, bool):
                    raise Invalid(
                        "invalid preferences",
                        {f"preferences.{kind}.{channel}": ["true or false"]},
                    )
                clean.setdefault(kind, {})[channel] = on
        if clean:
            self.trigger_event(self.Changed, settings=clean)


class Inbox(Aggregate):
    """What a user has read: some notices by id, or everything up to a moment."""

    class Opened(Aggregate.Created):
        user: str

        def apply(self, aggregate: Any) -> None:
            aggregate.user = self.user
            aggregate.read = []
            aggregate.read_before = None

    class Read(Aggregate.Event):
        ids: list[str]

        def apply(self, aggregate: Any) -> None:
            aggregate.read.extend(i for i in self.ids if i not in aggregate.read)

    class ReadAll(Aggregate.Event):
        before: datetime

        def apply(self, aggregate: Any) -> None:
            aggregate.read_before = self.before
            aggregate.read = []

    user: str
    read: list[str]
    read_before: datetime | None

    def __init__(self) -> None:
        pass

    @classmethod
    def open(cls, user: str) -> Inbox:
        return cls._create(cls.Opened, id=inbox_id(user), user=user)

    def is_read(self, notice: str, created: datetime) -> bool:
        return notice in self.read or (self.read_before is not None and created <= self.read_before)


class Webhook(Aggregate):
    """A URL that receives notifications as signed JSON: a user's (their own notices) or a
    club's (what happens in its games)."""

    class Registered(Aggregate.Created):
        owner_kind: str  # "user" or "club"
        owner: str
        url: str
        secret: str
        kinds: list[str]
        created_by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.owner_kind = self.owner_kind
            aggregate.owner = self.owner
            aggregate.url = self.url
            aggregate.secret = self.secret
            aggregate.kinds = list(self.kinds)
            aggregate.created_by = self.created_by
            aggregate.removed = False

    class Removed(Aggregate.Event):
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.removed = True

    owner_kind: str
    owner: str
    url: str
    secret: str
    kinds: list[str]
    created_by: str
    removed: bool

    def __init__(self) -> None:
        pass

    def wants(self, kind: str) -> bool:
        return not self.removed and (not self.kinds or kind in self.kinds)


class Notice(Aggregate):
    """One thing one user is told (stored by the notification process, never by a request)."""

    class Created(Aggregate.Created):
        user: str
        kind: str
        text: str
        game: str | None
        url: str | None
        source: str

        def apply(self, aggregate: Any) -> None:
            for key in ("user", "kind", "text", "game", "url", "source"):
                setattr(aggregate, key, getattr(self, key))

    user: str
    kind: str
    text: str
    game: str | None
    url: str | None
    source: str

    def __init__(self) -> None:
        pass


class Delivery(Aggregate):
    """One notice (or event) through one channel to one target, until it is sent or given up.

    A worker claims it by appending :class:`Claimed` at the next version: the store's uniqueness
    of (stream, version) lets exactly one of several workers win, and the claim lapses at
    ``until`` so that a killed worker's deliveries are taken up again."""

    class Created(Aggregate.Created):
        channel: str  # "email", "webhook" or "push"
        target: str  # an address, a webhook id or a push subscription id
        user: str | None
        kind: str
        text: str
        subject: str
        game: str | None
        url: str | None
        notice: str | None

        def apply(self, aggregate: Any) -> None:
            for key in ("channel", "target", "user", "kind", "text", "subject", "game", "url"):
                setattr(aggregate, key, getattr(self, key))
            aggregate.notice = self.notice
            aggregate.status = "pending"
            aggregate.attempts = []
            aggregate.claimed_by = None
            aggregate.claimed_until = None
            aggregate.next_at = None

    class Claimed(Aggregate.Event):
        worker: str
        until: datetime

        def apply(self, aggregate: Any) -> None:
            aggregate.claimed_by = self.worker
            aggregate.claimed_until = self.until

    class Attempted(Aggregate.Event):
        """A failed attempt; ``next_at`` is when to try again (None: given up)."""

        worker: str
        error: str
        next_at: datetime | None

        def apply(self, aggregate: Any) -> None:
            aggregate.attempts.append(
                {"at": self.timestamp, "ok": False, "error": self.error, "worker": self.worker}
            )
            aggregate.claimed_by = None
            aggregate.claimed_until = None
            aggregate.next_at = self.next_at
            if self.next_at is None:
                aggregate.status = "failed"

    class Sent(Aggregate.Event):
        worker: str
        response: str

        def apply(self, aggregate: Any) -> None:
            aggregate.attempts.append(
                {"at": self.timestamp, "ok": True, "error": None, "response": self.response}
            )
            aggregate.status = "sent"
            aggregate.claimed_by = None
            aggregate.claimed_until = None

    channel: str
    target: str
    user: str | None
    kind: str
    text: str
    subject: str
    game: str | None
    url: str | None
    notice: str | None
    status: str
    attempts: list[dict[str, Any]]
    claimed_by: str | None
    claimed_until: datetime | None
    next_at: datetime | None

    def __init__(self) -> None:
        pass

    @property
    def key(self) -> str:
        return self.id.hex

    def claimable(self, worker: str, now: datetime) -> bool:
        if self.status != "pending":
            return False
        if self.next_at is not None and self.next_at > now:
            return False
        return self.claimed_until is None or self.claimed_until <= now or self.claimed_by == worker

    def claim(self, worker: str, until: datetime) -> None:
        self.trigger_event(self.Claimed, worker=worker, until=until)

    def failed(self, worker: str, error: str, next_at: datetime | None) -> None:
        self.trigger_event(self.Attempted, worker=worker, error=error[:500], next_at=next_at)

    def sent(self, worker: str, response: str) -> None:
        self.trigger_event(self.Sent, worker=worker, response=response[:200])


class WebhookIndex(Aggregate):
    """The ids of one owner's webhooks (so that the worker finds them without a scan)."""

    class Started(Aggregate.Created):
        owner_kind: str
        owner: str

        def apply(self, aggregate: Any) -> None:
            aggregate.hooks = []

    class Added(Aggregate.Event):
        hook: str

        def apply(self, aggregate: Any) -> None:
            aggregate.hooks.append(self.hook)

    class Dropped(Aggregate.Event):
        hook: str

        def apply(self, aggregate: Any) -> None:
            if self.hook in aggregate.hooks:
                aggregate.hooks.remove(self.hook)

    hooks: list[str]

    def __init__(self) -> None:
        pass

    @staticmethod
    def id_for(owner_kind: str, owner: str) -> UUID:
        return uuid5(NAMESPACE, f"webhooks:{owner_kind}:{owner}")
