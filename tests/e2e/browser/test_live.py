"""Two players in two browser contexts: each sees the other's moves on the board and in the log
without reloading (the game's event stream)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in


def test_two_browsers_see_each_others_moves_live(browser: Any, server: Server, shots: Path) -> None:
    game = server.create_game({"red": "lalice", "blue": "lbob"})
    alice = signed_in(browser, server, "lalice")
    bob = signed_in(browser, server, "lbob")
    for page in (alice, bob):
        page.goto(f"{server.url}/games/{game['id']}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(bob.locator("#turn")).to_contain_text("waiting for your opponent")
    expect(bob.locator(".mark")).to_have_count(0)

    alice.locator('.stack[data-hex="D2"]').click()
    alice.locator('.mark[data-hex="D4"]').click()
    alice.get_by_role("button", name="Confirm: Move 2nd Foot to Crossroads (D4)").click()
    expect(bob.locator('.stack[data-hex="D4"] .counter[data-unit="r2"]')).to_have_count(1)
    expect(bob.locator("#log")).to_contain_text("2nd Foot moves from D2 to Crossroads (D4)")

    for next_phase in ("Combat phase", "Blue (lbob) to act"):
        alice.get_by_role("button", name=re.compile(r"^End the \w+ phase")).click()
        expect(alice.locator("#turn")).to_contain_text(next_phase)
    expect(alice.locator("#message")).to_be_empty()
    expect(bob.locator("#turn")).to_contain_text("Your turn")
    expect(alice.locator("#turn")).to_contain_text("waiting for your opponent")

    bob.locator('.stack[data-hex="D7"]').click()
    bob.locator('.mark[data-hex="D8"]').click()
    bob.get_by_role("button", name="Confirm: Move Blue Line to D8").click()
    expect(alice.locator('.stack[data-hex="D8"] .counter[data-unit="b2"]')).to_have_count(1)
    expect(alice.locator("#log")).to_contain_text("Blue Line moves from D7 to D8")
    bob.screenshot(path=shots / "live-bob.png", full_page=True)
    alice.context.close()
    bob.context.close()
