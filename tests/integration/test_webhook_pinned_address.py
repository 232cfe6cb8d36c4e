"""A webhook is sent to the address its host was checked at, never to a second look-up of the
name (DNS rebinding: a name that resolves to a public address for the check and to loopback for the
connection).  The poster connects to the pinned address, with the URL's own host in the request."""

from __future__ import annotations

from service.adapters.webhooks import WebhookPoster, body_of
from tests.support.receivers import HookReceiver


def test_the_poster_connects_to_the_pinned_address_not_to_the_name() -> None:
    with HookReceiver() as hooks:
        hooks.secrets["/pinned"] = "s" * 24
        url = f"http://rebinding.invalid:{hooks.port}/pinned"  # resolves nowhere
        poster = WebhookPoster(timeout=5)
        sent, answer = poster.post(url, "s" * 24, body_of("hello"), "key-1", address="127.0.0.1")
        assert (sent, answer) == (True, "HTTP 200")
        assert hooks.arrivals["key-1"] == 1
        unpinned = poster.post(url, "s" * 24, body_of("hello"), "key-2")
        assert unpinned[0] is False and unpinned[1].startswith("unreachable")
