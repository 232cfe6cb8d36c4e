"""The game page's Chat and Notes panels (issue 30, docs/chat-and-notes.md), at 1366x900 and
390x844: two players talk (each message appears on the other's page without a reload), a third
reader of the game (a spectator of a public game) sees no chat and none of its words, a player's
notes and hex note (a mark on the map) are theirs alone, and axe-core finds no serious violation on
the page with both panels open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.e2e.browser.test_accessibility import _serious

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: two players talking at two sizes"
)

DESKTOP = {"width": 1366, "height": 900}


def _public_game(server: Server) -> str:
    for name in ("calla", "dorn", "ewan"):
        server.user(name)
    r = requests.post(
        server.url + "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "calla", "blue": "dorn"},
            "public": True,
        },
        headers=server.user("calla"),
    )
    assert r.status_code == 201, r.text
    gid = str(r.json()["id"])
    server.accept(gid, "dorn")
    return gid


def _ready(page: Any, gid: str) -> None:
    page.goto(f"/games/{gid}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)


def test_two_players_chat_and_a_spectator_reads_none_of_it(
    browser: Any, server: Server, shots: Path
) -> None:
    gid = _public_game(server)
    calla = signed_in(browser, server, "calla", DESKTOP)
    dorn = signed_in(browser, server, "dorn", PHONE)
    ewan = signed_in(browser, server, "ewan", DESKTOP)
    for page in (calla, dorn, ewan):
        _ready(page, gid)
    expect(calla.locator("#chat-box")).to_be_visible()
    calla.fill("#chat-text", "Shall we begin? Good luck.")
    calla.click("#chat-form button[type=submit]")
    expect(calla.locator("#chat-log")).to_contain_text("Shall we begin? Good luck.")
    expect(calla.locator("#chat-log li").first).to_contain_text("calla (you)")
    expect(calla.locator("#chat-log time").first).to_have_text("just now")
    # dorn, on a phone, reads it without reloading, and answers with the keyboard alone
    expect(dorn.locator("#chat-log")).to_contain_text("Shall we begin? Good luck.")
    dorn.locator("#chat-text").focus()
    dorn.keyboard.type("Thank you, and to you.")
    dorn.keyboard.press("Control+Enter")
    expect(calla.locator("#chat-log")).to_contain_text("Thank you, and to you.")
    # the spectator reads the game but not its chat: no panel, none of its words
    expect(ewan.locator("#chat-box")).to_be_hidden()
    expect(ewan.locator("#notes-box")).to_be_hidden()
    assert "Good luck" not in ewan.content() and "Thank you" not in ewan.content()
    r = requests.get(f"{server.url}/api/games/{gid}/chat", headers=server.user("ewan"))
    assert r.status_code == 403
    # too long a message is refused in words, naming the message
    calla.evaluate("document.getElementById('chat-text').maxLength = 5000")
    calla.fill("#chat-text", "x" * 1001)
    calla.click("#chat-form button[type=submit]")
    expect(calla.locator("#chat-error")).to_contain_text("Message: at most 1000 characters")
    calla.fill("#chat-text", "")
    calla.screenshot(path=shots / "chat-1366.png", full_page=True)
    dorn.locator("#chat-box").scroll_into_view_if_needed()
    dorn.screenshot(path=shots / "chat-390.png", full_page=True)
    assert dorn.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # muting folds the chat away
    dorn.check("#chat-mute")
    expect(dorn.locator("#chat-body")).to_be_hidden()
    expect(dorn.locator("#chat-muted-note")).to_be_visible()
    dorn.uncheck("#chat-mute")
    expect(dorn.locator("#chat-body")).to_be_visible()
    for page in (calla, dorn, ewan):
        page.context.close()


def test_notes_and_a_hex_note_are_their_authors_alone(
    browser: Any, server: Server, shots: Path
) -> None:
    gid = _public_game(server)
    for viewport, tag in ((DESKTOP, "1366"), (PHONE, "390")):
        calla = signed_in(browser, server, "calla", viewport)
        _ready(calla, gid)
        expect(calla.locator("#notes-box")).to_be_visible()
        calla.fill("#notes-text", f"Hold the ford ({tag}).")
        calla.click("#notes-form button[type=submit]")
        expect(calla.locator("#notes-saved")).to_contain_text("Saved just now")
        expect(calla.locator("#hex-note-add")).to_be_disabled()
        calla.locator("#board g.hex[data-hex=D5] polygon").dispatch_event("click")
        expect(calla.locator("#hex-note-hex")).to_contain_text("D5")
        calla.fill("#hex-note-text", "the weak point")
        calla.click("#hex-note-add")
        expect(calla.locator("#hex-notes")).to_contain_text("D5: the weak point")
        expect(calla.locator("#board .note-pin[data-hex=D5]")).to_have_count(1)
        calla.locator("#notes-box").scroll_into_view_if_needed()
        calla.screenshot(path=shots / f"notes-{tag}.png", full_page=True)
        assert calla.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        found = _serious(calla)
        assert found == [], found
        calla.context.close()
    dorn = signed_in(browser, server, "dorn", DESKTOP)
    _ready(dorn, gid)
    expect(dorn.locator("#notes-box")).to_be_visible()
    expect(dorn.locator("#notes-text")).to_have_value("")
    expect(dorn.locator("#board .note-pin")).to_have_count(0)
    assert "Hold the ford" not in dorn.content() and "weak point" not in dorn.content()
    dorn.context.close()


def test_the_game_page_with_chat_open_has_no_serious_accessibility_violation(
    browser: Any, server: Server
) -> None:
    gid = _public_game(server)
    server.api("POST", f"/api/games/{gid}/chat", "dorn", json={"text": "Hello there"})
    problems: dict[str, list[str]] = {}
    for viewport in (DESKTOP, PHONE):
        page = signed_in(browser, server, "calla", viewport)
        _ready(page, gid)
        expect(page.locator("#chat-log")).to_contain_text("Hello there")
        found = _serious(page)
        if found:
            problems[str(viewport["width"])] = found
        page.context.close()
    assert problems == {}


def test_an_arbiter_hides_a_message_and_the_players_read_the_reason(
    browser: Any, server: Server, shots: Path
) -> None:
    game = server.create_game({"red": "fenn", "blue": "gale"})
    gid = str(game["id"])
    server.grant("hugo", "arbiter")  # a site arbiter: moderates the games of no club
    server.api("POST", f"/api/games/{gid}/chat", "fenn", json={"text": "You cheat, gale."})
    gale = signed_in(browser, server, "gale", PHONE)
    hugo = signed_in(browser, server, "hugo", DESKTOP)
    for page in (gale, hugo):
        _ready(page, gid)
    expect(gale.locator("#chat-log")).to_contain_text("You cheat, gale.")
    expect(gale.get_by_role("button", name="Hide message 1 by fenn")).to_have_count(0)
    hugo.get_by_role("button", name="Hide message 1 by fenn").click()
    reason = hugo.get_by_label("Why it is hidden (the players read this)")
    expect(reason).to_be_focused()
    hugo.keyboard.type("accusations go to a dispute")
    hugo.keyboard.press("Enter")
    expect(hugo.locator("#chat-log")).to_contain_text(
        "Hidden from the players by hugo: accusations go to a dispute"
    )
    expect(hugo.locator("#chat-log")).to_contain_text("You cheat, gale.")  # the arbiter reads it
    expect(gale.locator("#chat-log")).to_contain_text(
        "hidden by the arbiter: accusations go to a dispute"
    )
    expect(gale.locator("#chat-log")).not_to_contain_text("You cheat")
    hugo.screenshot(path=shots / "chat-arbiter-1366.png", full_page=True)
    for page in (gale, hugo):
        page.context.close()
