"""Notification ids, e-mail addresses and webhook targets (no server-side request forgery)."""

from __future__ import annotations

import pytest

from service.domain.errors import Invalid, Unprocessable
from service.domain.notifications import (
    Delivery,
    delivery_id,
    notice_id,
    validate_email,
    validate_kinds,
    validate_webhook_url,
)


def test_ids_derive_from_the_source_so_a_replay_derives_the_same() -> None:
    assert notice_id("g:3", "u", "turn") == notice_id("g:3", "u", "turn")
    assert notice_id("g:3", "u", "turn") != notice_id("g:4", "u", "turn")
    assert notice_id("g:3", "u", "turn") != notice_id("g:3", "v", "turn")
    assert delivery_id("n", "email", "a@b.org") != delivery_id("n", "webhook", "a@b.org")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/x",
        "http://localhost:8080/x",
        "http://10.0.0.7/x",
        "http://192.168.1.1/x",
        "http://172.16.0.1/x",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/x",
        "http://[::1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://2130706433/x",  # 127.0.0.1 as one number
        "http://0x7f000001/x",
    ],
)
def test_loopback_and_private_targets_are_refused(url: str) -> None:
    with pytest.raises(Unprocessable) as refused:  # a URL the document takes, refused by policy
        validate_webhook_url(url, allow_private=False)
    assert "url" in refused.value.details
    assert validate_webhook_url(url, allow_private=True) == url


@pytest.mark.parametrize(
    "url", ["ftp://example.org/x", "file:///etc/passwd", "gopher://h/x", "http:///x", "example.org"]
)
def test_only_http_and_https_urls_with_a_host(url: str) -> None:
    with pytest.raises(Invalid) as refused:
        validate_webhook_url(url, allow_private=True)
    assert refused.value.details == {"url": ["an http:// or https:// URL with a host"]}


def test_a_public_address_is_accepted() -> None:
    assert validate_webhook_url("https://93.184.215.14/hook", allow_private=False)


@pytest.mark.parametrize(
    "email", ["a@b", "@b.org", "a b@c.org", "a@b.org,c@d.org", "", "x" * 250 + "@b.org"]
)
def test_bad_email_addresses_name_the_field(email: str) -> None:
    with pytest.raises(Invalid) as refused:
        validate_email(email)
    assert "email" in refused.value.details


def test_kinds_are_checked_and_ordered() -> None:
    assert validate_kinds(["ended", "turn", "turn"]) == ["turn", "ended"]
    with pytest.raises(Invalid):
        validate_kinds(["turn", "gossip"])


def test_a_claim_excludes_other_workers_until_it_lapses() -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime(2026, 1, 1, tzinfo=UTC)
    d = Delivery._create(
        Delivery.Created,
        id=delivery_id("n", "email", "a@b.org"),
        channel="email",
        target="a@b.org",
        user="u",
        kind="turn",
        text="t",
        subject="s",
        game=None,
        url=None,
        notice="n",
    )
    assert d.claimable("w1", now)
    d.claim("w1", now + timedelta(seconds=60))
    assert not d.claimable("w2", now + timedelta(seconds=59))
    assert d.claimable("w2", now + timedelta(seconds=60))
    d.failed("w1", "HTTP 500", now + timedelta(seconds=5))
    assert not d.claimable("w2", now + timedelta(seconds=4))
    d.sent("w2", "HTTP 200")
    assert d.status == "sent" and not d.claimable("w2", now + timedelta(days=1))
