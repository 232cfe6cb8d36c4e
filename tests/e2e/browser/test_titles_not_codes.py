"""Lists name a rules system by its printed title, never by its code: the open games (their page
and the home card), a ladder's heading (the title once, when the scenario's repeats it), and a
game's first log line ("Game created: <title>")."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in

TITLE = "Skirmish (test fixture)"
CODE = re.compile(r"\bskirmish\b|\bmeeting\b")  # the fixture's system and scenario codes


def _no_code(page: Any, selector: str) -> str:
    text = str(page.locator(selector).inner_text())
    assert not CODE.search(text), f"{selector} shows a code: {text!r}"
    return text


def test_lists_name_the_system_by_its_title(browser: Any, server: Server) -> None:
    server.user("tbob")
    server.api(
        "POST",
        "/api/seeks",
        "tbob",
        json={"system": "skirmish", "scenario": "meeting", "side": "red"},
    )
    club = server.api("POST", "/api/clubs", "tbob", json={"name": "Title Club"})
    ladder = server.api(
        "POST",
        f"/api/clubs/{club['id']}/ladders",
        "tbob",
        json={"name": "Title ladder", "system": "skirmish", "scenario": "meeting"},
    )
    merida = server.api(
        "POST",
        f"/api/clubs/{club['id']}/ladders",
        "tbob",
        json={"name": "Merida ladder", "system": "merida", "scenario": "merida-1938"},
    )
    game = server.create_game({"red": "tbob", "blue": "tcat"})

    page = signed_in(browser, server, "tcat")
    page.goto("/seeks")
    expect(page.locator("#seeks li.seek")).to_contain_text(TITLE)
    _no_code(page, "#seeks")
    page.goto("/")
    expect(page.locator("#home-seeks")).to_contain_text(TITLE)
    _no_code(page, "#home-seeks")
    page.goto(f"/ladders/{ladder['id']}")
    expect(page.locator("#ladder-meta")).to_contain_text(TITLE)
    _no_code(page, "#ladder-meta")
    page.goto(f"/ladders/{merida['id']}")  # Merida's scenario has the system's title: said once
    expect(page.locator("#ladder-meta")).to_contain_text("Closing the Merida Pocket")
    assert page.locator("#ladder-meta").inner_text().count("Closing the Merida Pocket") == 1
    page.goto(f"/games/{game['id']}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    first = page.locator("#log li", has_text="Game created")
    expect(first).to_have_count(1)
    assert "Game created: Meeting at the Mill" in _no_code(page, "#log")
    page.context.close()
