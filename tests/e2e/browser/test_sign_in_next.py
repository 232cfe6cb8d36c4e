"""The sign-in page's ``?next=``: after signing in the player goes to a path on this site and
nowhere else.  A link to ``/?next=javascript:…`` ran script as the player the moment they signed
in (it read the typed password and changed the account's e-mail); ``?next=//elsewhere.example/``
and ``?next=https://elsewhere.example/`` sent them off-site.  Then (issue 44, finding 6) a ``next``
that only becomes ``//elsewhere`` once the browser resolves it -- dot segments, ``%2e``, a
backslash -- still did: the check ran before the browser normalised the path."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PASSWORD, Server

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: sign-in with every kind of next"
)

ATTACKS = [
    "javascript:document.title='pwned';window.pwned=1;void 0",
    "JaVaScRiPt:window.pwned=1",
    "javascript://%0Awindow.pwned=1",
    "data:text/html,<script>window.pwned=1</script>",
    "//elsewhere.example/",
    "https://elsewhere.example/",
    "/\\elsewhere.example/",
    "/\t/elsewhere.example/",
    "http:/elsewhere.example/",
    "games/../../elsewhere",
]

#: paths that read as this site's until the browser normalises them into "//evil.example" (or
#: "/\\evil.example"): dot segments, an escaped dot, a backslash, an escaped slash or backslash,
#: a control character inside, a scheme without slashes
RESOLVED_OFF_SITE = [
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2e//evil.example",
    "/x/..//evil.example",
    "/.\\/evil.example",
    "\\\\evil.example",
    "/%5cevil.example",
    "/%2f%2fevil.example",
    "/.\t//evil.example",
    "/x/..\n//evil.example",
    "https:evil.example",
]


def sign_in_at(browser: Any, server: Server, user: str, next_value: str) -> Any:
    server.user(user)
    page = browser.new_page(base_url=server.url)
    leaving: list[str] = []
    page.on(
        "request",
        lambda r: leaving.append(r.url) if not r.url.startswith(server.url) else None,
    )
    page.goto("/?next=" + quote(next_value, safe=""))
    page.get_by_label("Username").first.fill(user)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.leaving = leaving
    return page


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_next_that_is_not_a_path_on_this_site_goes_home(
    browser: Any, server: Server, attack: str
) -> None:
    page = sign_in_at(browser, server, "nextvictim", attack)
    expect(page.get_by_role("heading", name="My games")).to_be_visible()
    assert page.url == server.url + "/"
    assert page.evaluate("window.pwned") is None
    assert page.title() != "pwned"
    assert page.leaving == []
    page.close()


def test_a_next_path_on_this_site_is_where_sign_in_goes(browser: Any, server: Server) -> None:
    page = sign_in_at(browser, server, "nextplayer", "/disputes?from=link#queue")
    page.wait_for_url(server.url + "/disputes?from=link#queue")
    page.close()


def test_a_next_that_resolves_to_another_host_goes_home(browser: Any, server: Server) -> None:
    """Every vector in one browser: a fresh page (its own cookies) signs in from each."""
    for attack in RESOLVED_OFF_SITE:
        page = sign_in_at(browser, server, "dotvictim", attack)
        expect(page.get_by_role("heading", name="My games")).to_be_visible()
        assert (page.url, page.leaving) == (server.url + "/", []), attack
        page.close()
