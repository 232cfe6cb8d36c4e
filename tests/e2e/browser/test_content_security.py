"""Every page works under the Content-Security-Policy (script and style from the site only, no
inline script or style): a member's pages, a game with its terrain legend (colour swatches set
through the CSSOM, not style attributes) and the audit page, at desktop and phone sizes, raise no
policy violation and no script error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

PAGES = [
    "/",
    "/clubs",
    "/seeks",
    "/archive",
    "/disputes",
    "/rules",
    "/settings",
    "/users/cspb",
    "/reset-password",
    "/reset-password#token=not-a-token",
]


def watch(page: Any) -> list[str]:
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"{page.url}: {m.text}")
            if m.type == "error" or "Content Security Policy" in m.text
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"{page.url}: {e}"))
    return problems


@pytest.mark.slow("every page opened in Chromium under the policy")
def test_the_pages_raise_no_policy_violation(browser: Any, server: Server, shots: Path) -> None:
    game = server.create_game({"red": "cspa", "blue": "cspb"})
    for viewport in (None, PHONE):
        page = signed_in(browser, server, "cspa", **({"viewport": viewport} if viewport else {}))
        problems = watch(page)
        for path in PAGES:
            page.goto(server.url + path)
            page.wait_for_load_state("load")
            page.wait_for_timeout(300)
        page.goto(f"{server.url}/games/{game['id']}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        swatch = page.locator(".swatch").first
        if swatch.count():
            colour = swatch.evaluate("el => getComputedStyle(el).backgroundColor")
            assert colour not in ("", "rgba(0, 0, 0, 0)"), colour
        page.goto(f"{server.url}/games/{game['id']}/audit")
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        page.screenshot(path=shots / f"csp-audit-{'phone' if viewport else 'desktop'}.png")
        assert problems == [], problems
        page.context.close()
