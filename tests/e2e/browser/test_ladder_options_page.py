"""A ladder's game options on its page (issue 19: "A club may set, per game or ladder, that the old
automatic preference applies"), Debian's Chromium at 1366×900 and 390×844: the options are shown
in words, never as an object's repr."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def test_the_ladder_page_shows_its_game_options(browser: Any, server: Server, shots: Path) -> None:
    from playwright.sync_api import expect

    club = server.api("POST", "/api/clubs", "oann", json={"name": "Options Club"})
    ladder = server.api(
        "POST",
        f"/api/clubs/{club['id']}/ladders",
        "oann",
        json={
            "name": "Quick mill",
            "system": "skirmish",
            "scenario": "meeting",
            "options": {"turns": 2, "river_blocks_zoc": False},
        },
    )
    for viewport, name in ((DESKTOP, "ladder-options-1366.png"), (PHONE, "ladder-options-390.png")):
        page = signed_in(browser, server, "oann", viewport)
        page.goto(f"/ladders/{ladder['id']}")
        shown = page.locator('#settings dd[data-setting="options"]')
        expect(shown).to_have_text("river blocks zoc: no; turns: 2")
        expect(page.locator("#settings")).to_contain_text("Game options")
        assert "[object" not in page.locator("main").inner_text()
        page.screenshot(path=shots / name, full_page=True)
        page.context.close()
