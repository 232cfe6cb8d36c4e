"""The scenario editor in words (issue 29, item 9): no counter id ("n-1-21-div") and no field
name ("map.orientation") in what a club organiser reads -- counters by their printed names,
the scenario's notes and problems by what they are about."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.e2e.browser.test_game_page import UNIT_ID

pytestmark = pytest.mark.browser

FIELD = re.compile(r"\b(?:map|units|reinforcements|areas|objectives)(?:\.[a-z_]+|\[\d+\])+")


def test_the_editor_reads_as_words(browser: Any, server: Server, shots: Path) -> None:
    club = server.api("POST", "/api/clubs", "wann", json={"name": "Words Club"})
    page = signed_in(browser, server, "wann", {"width": 1366, "height": 900})
    page.goto(f"/clubs/{club['id']}/scenarios")
    form = page.locator("#create-form")
    form.get_by_label("Title").fill("Merida, in words")
    form.get_by_label("Rules system").select_option("merida")
    form.get_by_label("From").select_option("merida-1938")
    form.get_by_role("button", name="Start editing").click()
    expect(page.locator("#ed-title")).to_have_text("Merida, in words")
    expect(page.locator("#ed-errors")).to_contain_text("None: the scenario can be published")
    page.screenshot(path=shots / "editor-words-1366.png", full_page=True)
    text = page.locator("main").inner_text()
    (shots / "editor-words.txt").write_text(text)
    assert not UNIT_ID.findall(text), UNIT_ID.findall(text)[:5]
    assert not FIELD.findall(text), FIELD.findall(text)[:5]
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "editor-words-390.png", full_page=True)
    page.context.close()
