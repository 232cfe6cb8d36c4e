"""The webhook address check classifies what the resolver it is given finds: the domain does no
look-up of its own (issue 45), the DNS look-up is the adapters' (``service.adapters.addresses``)."""

from __future__ import annotations

import pytest

from service.adapters.addresses import resolve
from service.domain.errors import Unprocessable
from service.domain.notifications import literal_addresses, public_addresses, validate_webhook_url


def test_a_name_is_checked_by_what_the_given_resolver_answers() -> None:
    asked: list[str] = []

    def rebinding(host: str) -> list[str]:
        asked.append(host)
        return ["93.184.215.14", "10.0.0.7"]  # one public, one private: refused

    with pytest.raises(Unprocessable) as refused:
        validate_webhook_url("https://hooks.example.org/x", allow_private=False, resolve=rebinding)
    assert refused.value.details == {"url": ["targets on loopback or private networks are refused"]}
    assert asked == ["hooks.example.org"]
    url = "https://hooks.example.org/x"
    assert (
        validate_webhook_url(url, allow_private=False, resolve=lambda h: ["93.184.215.14"]) == url
    )


def test_without_a_resolver_a_name_does_not_resolve_and_literals_need_none() -> None:
    with pytest.raises(Unprocessable) as refused:
        validate_webhook_url("https://hooks.example.org/x", allow_private=False)
    assert refused.value.details == {"url": ["its host name does not resolve"]}
    assert literal_addresses("0x7f000001") == ["127.0.0.1"]
    assert literal_addresses("2130706433") == ["127.0.0.1"]
    assert literal_addresses("::1") == ["::1"]
    assert literal_addresses("localhost") is None
    # a literal is never handed to the resolver
    assert public_addresses("93.184.215.14", lambda h: pytest.fail(h)) == ["93.184.215.14"]


def test_the_adapter_resolves_through_the_system_resolver() -> None:
    assert "127.0.0.1" in (resolve("localhost") or []) or "::1" in (resolve("localhost") or [])
    assert resolve("no-such-host.invalid") is None
    assert public_addresses("localhost", resolve) == []  # loopback: refused
