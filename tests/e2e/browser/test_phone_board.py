"""The game page on a 390x844 phone (issue 29, item 5): the header folds away, the board keeps at
least half of the first screen, and the orders sheet opens at a peek height that can be pulled up
to the whole of the orders."""

from __future__ import annotations

import math
import re
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


def board_window(page: Any) -> dict[str, float]:
    """The part of the board a person sees: inside the board's frame, on the screen and above the
    orders sheet."""
    return dict(
        page.evaluate(
            """() => {
              const frame = document.getElementById('board').getBoundingClientRect();
              const sheet = document.getElementById('orders-sheet').getBoundingClientRect();
              return {left: Math.max(frame.left, 0), right: Math.min(frame.right, window.innerWidth),
                      top: Math.max(frame.top, 0),
                      bottom: Math.min(frame.bottom, sheet.top, window.innerHeight)};
            }"""
        )
    )


def seen(page: Any, selector: str) -> list[bool]:
    """For each element matching ``selector``: whether its centre lies in the board's window."""
    w = board_window(page)
    out = []
    for box in (e.bounding_box() for e in page.locator(selector).all()):
        assert box
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        out.append(w["left"] <= x <= w["right"] and w["top"] <= y <= w["bottom"])
    return out


def reach(game: Merida, unit: str) -> set[str]:
    """The hexes ``unit`` may move to by its first order (the tactical move), from the API."""
    t = next(
        t
        for t in game.actions("rojo")["actions"]
        if t["type"] == "move" and t["fixed"].get("units") == [unit]
    )
    return {path[-1] for path in t["choose"]["path"]["one_of"]}


def test_a_phone_move_is_two_taps_and_a_confirm(browser: Any, server: Server, shots: Path) -> None:
    """Issue 51, finding 1: the Republican's first screen shows his units; a tap on one opens the
    sheet with the unit and the hexes it may move to above the sheet (at a size that keeps the
    counters' names); a tap on a hex and one on Confirm store the move.  A unit chosen from the
    list (37 Div #2, whose 9 hexes lay under the sheet) is framed the same way."""
    from playwright.sync_api import expect

    game = Merida(server)
    game.deploy()
    game.finish_phase()  # the Nationalist movement: the Republican movement is next
    assert game.game()["phase"] == {
        "acting": "republican",
        "phase": "movement",
        "side": "republican",
        "turn": 1,
    }
    page = signed_in(browser, server, "rojo", PHONE, touch=True)
    page.goto(f"/games/{game.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    page.screenshot(path=shots / "phone-move-first-screen.png")
    movable = [
        b.get_attribute("data-unit") for b in page.locator("#selection button[data-unit]").all()
    ]
    # a unit alone in its hex (a tap on a stack of several lists them first)
    alone = '.stack:not(:has(.stack-badge)) .counter[data-unit="{}"]'
    shown = [u for u in movable if seen(page, alone.format(u)) == [True]]
    assert shown, "none of the Republican's units that can move is on the first screen"
    unit = shown[0]
    page.locator(f'.counter[data-unit="{unit}"]').tap()  # tap 1: the unit
    expect(page.locator("#sheet-handle")).to_have_attribute("aria-expanded", "true")
    page.screenshot(path=shots / "phone-move-unit-tapped.png")
    # the unit, at a size that keeps the counters' names, and the hexes around it it may go to (a
    # unit that goes far has the nearest around it, the farther ones a drag away)
    assert seen(page, f'.counter[data-unit="{unit}"]') == [True]
    assert float(page.locator("#board").get_attribute("data-zoom") or 0) >= 0.9
    origin = game.at[next(c["hex"] for c in game.game()["counters"] if c["id"] == unit)]
    near = sorted(
        h for h in reach(game, unit) if math.dist(game.at[h], origin) < 2.1 * math.sqrt(3)
    )
    assert near
    hidden = [h for h in near if seen(page, f'#board .mark-dest[data-hex="{h}"]') != [True]]
    assert not hidden, f"{len(hidden)} of the {len(near)} hexes within two of the unit are hidden"
    target = page.locator("#board .mark-dest").first
    hex_ = target.get_attribute("data-hex")
    # the move's preview (what it would trigger) is asked for when the hex is chosen and shown
    # above Confirm: held here until Confirm is on screen, so that the test sees both moments
    held: list[Any] = []
    holding = [True]
    page.route("**/preview", lambda r: held.append(r) if holding[0] else r.continue_())
    target.tap()  # tap 2: the hex
    confirm = page.locator("#selection").get_by_role("button", name=re.compile("^Confirm"))
    assert all(seen(page, "#board .mark-chosen"))
    box = page.locator("#selection .consequences")
    expect(box).to_have_attribute("aria-busy", "true")
    expect(confirm).to_be_visible()
    holding[0] = False
    for route in held:
        route.continue_()
    expect(box).not_to_have_attribute("aria-busy", "true")
    # the answer: what the move costs, hex by hex, with the rule; it moves Confirm down (a tap
    # made while it was still asked for once landed beside the button)
    expect(box).to_contain_text("Movement points")
    expect(box).to_contain_text("Terrain Effects Chart")
    confirm.tap()  # and the confirm
    expect(page.locator(f'.stack[data-hex="{hex_}"] .counter[data-unit="{unit}"]')).to_have_count(1)
    page.screenshot(path=shots / "phone-move-stored.png")
    # the unit chosen from the list: the board frames it and its 9 hexes above the sheet
    other = "r-37-div-2"
    where = next(c["hex"] for c in game.game()["counters"] if c["id"] == other)
    page.locator(f'#selection button[data-unit="{other}"]').tap()
    expect(page.locator("#sheet-handle")).to_have_attribute("aria-expanded", "true")
    page.screenshot(path=shots / "phone-move-listed-unit.png")
    dests = seen(page, "#board .mark-dest")
    assert len(dests) == len(reach(game, other))
    assert all(dests), f"{dests.count(False)} of {len(dests)} destinations are hidden"
    assert seen(page, f'.stack[data-hex="{where}"]') == [True]
    page.context.close()
