"""Issue 29's accessible play: a Merida move and an attack made with the keyboard alone, from the
board as text (a hex a row: its ground, the counters in words, what a mark means, and buttons that
select and choose as clicking the map does) -- each control reached by focus and worked by Enter.

Merida's rules on the drill scenario (tests.fixtures.merida_drill)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in

SIDES = {"nationalist": "kfranco", "republican": "krojo"}


def _game(drill: Server, gid: str) -> dict[str, Any]:
    return dict(drill.read(f"/api/games/{gid}"))


def _actions(drill: Server, gid: str) -> list[dict[str, Any]]:
    r = requests.get(f"{drill.url}/api/games/{gid}/actions", headers=drill.user("kfranco"))
    return list(r.json()["actions"])


def press(page: Any, locator: Any) -> None:
    """Reach a control with the keyboard's focus and work it with Enter."""
    locator.focus()
    expect(locator).to_be_focused()
    page.keyboard.press("Enter")


@pytest.mark.slow("a Merida move and attack made by keyboard alone in Chromium")
def test_a_move_and_an_attack_with_the_keyboard_alone(
    browser: Any, drill: Server, shots: Path
) -> None:
    for name in SIDES.values():
        drill.user(name)
    game = drill.api("POST", "/api/games", "kfranco",
                     json={"system": "merida-drill", "scenario": "decisions-drill", "sides": SIDES})  # fmt: skip
    gid = game["id"]
    drill.accept(gid, "krojo")
    while not any(t["type"] == "move" for t in _actions(drill, gid)):
        side = _game(drill, gid)["active_sides"][0]
        drill.command(gid, SIDES[side], {"type": "end_phase"})
    move = next(t for t in _actions(drill, gid) if t["type"] == "move")
    unit = move["fixed"]["units"][0]
    counters = {c["id"]: c for c in _game(drill, gid)["counters"]}
    start = counters[unit]["hex"]

    page = signed_in(browser, drill, "kfranco", {"width": 1366, "height": 900})
    page.goto(f"/games/{gid}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    press(page, page.locator("#board-text-box summary"))
    table = page.locator("#board-text table.board-text")
    expect(table).to_be_visible()
    expect(table.locator(f'tr[data-hex="{start}"] td').nth(1)).to_contain_text(
        counters[unit]["name"]
    )
    press(page, table.get_by_role("button", name=f"Select {start}"))
    # a stack: the orders panel names its units; the unit that moves is chosen there
    pick = page.locator("#selection-body").get_by_text(f"Select {counters[unit]['name']}")
    if pick.count():
        press(page, pick.first)
    here = table.get_by_role("button", name=re.compile(r"^Move here"))
    expect(here.first).to_be_visible()
    target = here.first.get_attribute("aria-label") or here.first.inner_text()
    dest = re.search(r"\((\w+)\)", target).group(1)  # type: ignore[union-attr]
    press(page, here.first)
    press(page, page.locator("#confirm"))
    expect(page.locator("#log")).to_contain_text("moves")
    # a screen reader hears it: the live region says the new events in the log's words
    expect(page.locator("#announce")).to_contain_text("moves")
    assert {c["id"]: c for c in _game(drill, gid)["counters"]}[unit]["hex"] == dest

    while _game(drill, gid)["phase"]["phase"] != "combat":
        side = _game(drill, gid)["active_sides"][0]
        drill.command(gid, SIDES[side], {"type": "end_phase"})
    page.reload()
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    press(page, page.locator("#board-text-box summary"))
    attack = page.locator("#board-text").get_by_role("button", name=re.compile(r"^Attack "))
    expect(attack.first).to_be_visible()
    press(page, attack.first)
    confirm = page.locator("#confirm")
    expect(confirm).to_be_visible()
    page.screenshot(path=shots / "keyboard-attack.png", full_page=True)
    press(page, confirm)
    expect(page.locator("#log")).to_contain_text("attack")
    expect(page.locator("#announce")).to_contain_text("attack")
    events = drill.read(f"/api/games/{gid}/events", "kfranco")["events"]
    assert any(e["type"] == "CombatResolved" for e in events)
    page.context.close()
