"""The arbiter's queue a page at a time in Chromium: 51 open disputes show as the first 50 and a
"More disputes" button, which appends the last one and goes away (``GET /api/disputes/queue``
pages by ``X-Next-Cursor``)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: 51 open disputes a page at a time"
)

DISPUTES = 51  # one more than a page


def test_the_queue_shows_a_page_then_more(browser: Any, server: Server) -> None:
    for n in range(DISPUTES):
        game = server.create_game({"red": "pa", "blue": "pb"})
        gid = game["id"]
        moved = server.command(gid, "pa", {"type": "move", "unit": "r1", "path": ["C3"]})
        server.api(
            "POST",
            f"/api/games/{gid}/disputes",
            "pb",
            json={
                "seq": moved["version"],
                "claim": f"Claim number {n + 1}: the move was too long.",
            },
        )
    server.grant("qa", "arbiter")
    page = signed_in(browser, server, "qa")
    page.goto(f"{server.url}/disputes")
    cards = page.locator(".dispute-card")
    expect(cards).to_have_count(50)
    expect(page.locator("#queue-status")).to_have_text("50 or more open disputes to resolve.")
    # a resolved dispute leaves the top of the queue (issue 29, item 9): it goes below the open ones
    first = cards.first
    expect(first).to_contain_text("Claim number 1:")
    first.get_by_label("Uphold: the event stands").check()
    first.get_by_label("Note to the players").fill("The move was within its allowance.")
    first.get_by_label("Search the rules for the entries your decision rests on").fill("movement")
    first.locator(".cite-results .entry button.cite").first.click()
    first.get_by_role("button", name="Resolve the dispute of event #").click()
    expect(cards.last).to_have_class("card dispute-card resolved")
    expect(cards.last).to_contain_text("Claim number 1:")
    expect(cards.first).to_contain_text("Claim number 2:")
    expect(page.locator("#queue-status")).to_contain_text("is resolved: upheld")
    # the next page comes in above it, and the count is of the open ones
    more = page.get_by_role("button", name="More disputes")
    expect(more).to_be_visible()
    more.click()
    expect(cards).to_have_count(DISPUTES)
    expect(more).to_be_hidden()
    expect(page.locator("#queue-status")).to_have_text("50 open disputes to resolve.")
    expect(cards.last).to_contain_text("Claim number 1:")
    # oldest first, each once: the last page brought the newest, above the resolved one
    expect(cards.nth(DISPUTES - 2)).to_contain_text(f"Claim number {DISPUTES}:")
    texts = cards.all_inner_texts()
    assert len({t.split("Claim number ")[1].split(":")[0] for t in texts}) == DISPUTES
