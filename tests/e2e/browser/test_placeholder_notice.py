"""Issue 32, "Placeholders a player can see", in Chromium: the shipped Merida game page says which
of its data are stand-ins (every hex clear, counter strengths not in the rulebook text) under its
title, at 1366x900 and 390x844 (where the board still keeps half the first screen), and the start
form says it before the game is created."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import DESKTOP, PHONE, Server, signed_in
from tests.e2e.browser.test_game_page import Merida

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("viewport", [{**DESKTOP, "width": 1366}, PHONE], ids=["1366", "390"])
def test_the_merida_game_page_names_its_placeholder_data(
    browser: Any, server: Server, shots: Path, viewport: dict[str, int]
) -> None:
    game = Merida(server)
    page = signed_in(browser, server, "franco", viewport)
    page.goto(f"/games/{game.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    notice = page.locator("#placeholder-notice")
    expect(notice.locator("summary")).to_contain_text("Placeholder data: terrain")
    expect(notice.locator("summary")).to_contain_text("counter values")
    board = page.locator(".board-frame").bounding_box()
    assert board is not None
    if viewport is PHONE:  # the closed notice is one line: the board keeps half the first screen
        visible = min(board["y"] + board["height"], PHONE["height"]) - max(board["y"], 0)
        assert visible >= PHONE["height"] / 2, board
    page.screenshot(path=str(shots / f"placeholders-{viewport['width']}.png"))
    notice.locator("summary").click()
    expect(notice).to_contain_text("every hex is clear until a club enters the printed terrain")
    expect(notice).to_contain_text("Counter values (72 values)")
    expect(notice.get_by_role("link", name="Clubs")).to_have_attribute("href", "/clubs")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    page.screenshot(path=str(shots / f"placeholders-open-{viewport['width']}.png"))


def test_the_start_form_says_it_before_the_game_is_created(
    browser: Any, server: Server, shots: Path
) -> None:
    page = signed_in(browser, server, "franco", {**DESKTOP, "width": 1366})
    page.goto("/")
    form = page.locator("form#create-game, form").filter(has=page.locator("select[name=system]"))
    form.locator("select[name=system]").select_option("merida")
    note = page.locator("#create-placeholders")
    expect(note).to_be_visible()
    expect(note).to_contain_text("terrain, hexsides (roads, rivers, rail) (44)")
    expect(note).to_contain_text("counter values (72)")
