"""Webhook targets given as IPv6 forms that embed a loopback or private IPv4 address are refused:
Python's ``ipaddress`` calls these global, and four of them were accepted (issue 34, finding 5)."""

from __future__ import annotations

import pytest

from service.domain.errors import Unprocessable
from service.domain.notifications import validate_webhook_url


@pytest.mark.parametrize(
    "url",
    [
        "http://[::127.0.0.1]/x",  # IPv4-compatible (::/96)
        "http://[0:0:0:0:0:0:7f00:1]/x",
        "http://[::a00:7]/x",  # 10.0.0.7
        "http://[2002:7f00:1::]/x",  # 6to4 of 127.0.0.1
        "http://[2002:c0a8:101::1]/x",  # 6to4 of 192.168.1.1
        "http://[64:ff9b::7f00:1]/x",  # NAT64 of 127.0.0.1
        "http://[64:ff9b::a9fe:a9fe]/x",  # NAT64 of 169.254.169.254
        "http://[64:ff9b:1::7f00:1]/x",  # local-use NAT64
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x",  # Teredo, client 127.0.0.1
        "http://[::ffff:a9fe:a9fe]/x",  # mapped 169.254.169.254
    ],
)
def test_ipv6_forms_of_loopback_and_private_addresses_are_refused(url: str) -> None:
    with pytest.raises(Unprocessable) as refused:  # a URL the document takes, refused by policy
        validate_webhook_url(url, allow_private=False)
    assert refused.value.details == {"url": ["targets on loopback or private networks are refused"]}


@pytest.mark.parametrize(
    "url", ["http://[2606:4700:4700::1111]/x", "http://[64:ff9b::5db8:d70e]/x"]
)
def test_public_ipv6_targets_are_accepted(url: str) -> None:
    assert validate_webhook_url(url, allow_private=False) == url
