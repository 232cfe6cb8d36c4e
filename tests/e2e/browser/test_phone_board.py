"""The game page on a 390x844 phone (issue 29, item 5): the header folds away, the board keeps at
least half of the first screen, and the orders sheet opens at a peek height that can be pulled up
to the whole of the orders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser.conftest import Server, signed_in
from tests.e2e.browser.test_game_page import PHONE, Merida

pytestmark = pytest.mark.browser


def visible_board(page: Any) -> float:
    """How many pixels of the board's frame a person sees on the first screen: below the top of the
    screen, above its bottom and above the orders sheet."""
    return float(
        page.evaluate(
            """() => {
              const frame = document.querySelector('.board-frame').getBoundingClientRect();
              const sheet = document.getElementById('orders-sheet').getBoundingClientRect();
              const bottom = Math.min(frame.bottom, sheet.top, window.innerHeight);
              return Math.max(0, bottom - Math.max(frame.top, 0));
            }"""
        )
    )


def test_the_board_keeps_half_a_phone_screen(browser: Any, server: Server, shots: Path) -> None:
    from playwright.sync_api import expect

    game = Merida(server)
    game.deploy()
    page = signed_in(browser, server, "franco", PHONE)
    page.goto(f"/games/{game.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    page.screenshot(path=shots / "phone-first-screen.png")
    seen = visible_board(page)
    assert seen >= PHONE["height"] / 2, f"the board shows {seen:.0f} px of {PHONE['height']}"
    # the site's header is folded behind one button that opens it
    nav = page.locator("header.top nav")
    expect(nav).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    expect(nav.get_by_role("link", name="My games")).to_be_visible()
    page.get_by_role("button", name="Menu").click()
    expect(nav).to_be_hidden()
    # the sheet opens at a peek: its handle and the first lines of the orders, pulled up on demand
    handle = page.locator("#sheet-handle")
    expect(handle).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#selection-body")).to_be_visible()
    handle.click()
    expect(handle).to_have_attribute("aria-expanded", "true")
    sheet = page.locator("#orders-sheet").bounding_box()
    assert sheet and sheet["height"] > PHONE["height"] * 0.3
    page.screenshot(path=shots / "phone-sheet-open.png")
    handle.click()
    expect(handle).to_have_attribute("aria-expanded", "false")
    # selecting a unit opens the sheet on its orders, and the unit stays on the map above it
    page.locator('#selection button[data-unit="n-1-21-div"]').click()
    expect(handle).to_have_attribute("aria-expanded", "true")
    counter = page.locator('.counter[data-unit="n-1-21-div"]').bounding_box()
    sheet = page.locator("#orders-sheet").bounding_box()
    assert counter and sheet and 0 <= counter["y"] < sheet["y"]
    page.screenshot(path=shots / "phone-unit-selected.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.context.close()
