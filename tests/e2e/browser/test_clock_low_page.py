"""A clock running low in the browser (issue 17: "a clock running low or expired"), Debian's
Chromium: a game whose clock is low from the start (one day per move, low below 24 hours) shows
alice's running clock as "running low" on the game page, and the server's own worker tells her,
once, in the notification list.  Screenshots at 1366×900 and 390×844."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
LOW = "Your clock in “Meeting at the Mill” is running low: less than 24 hours left."


def test_a_low_clock_is_shown_and_told_once(browser: Any, server: Server, shots: Path) -> None:
    from playwright.sync_api import expect

    server.user("alice")
    server.user("bob")
    r = requests.post(
        server.url + "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "bob"},
            "clock": {"kind": "per-move", "days": 1, "low_hours": 24},
        },
        headers=server.user("alice"),
    )
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    r = requests.post(f"{server.url}/api/games/{gid}/accept", headers=server.user("bob"))
    assert r.status_code == 200, r.text

    page = signed_in(browser, server, "alice", DESKTOP)
    page.goto(f"/games/{gid}")
    slot = page.locator("#lifecycle-slot")
    red = slot.locator('.clock-side[data-side="red"]')
    expect(red).to_contain_text("running low")
    expect(red).to_have_class("clock-side running low")
    expect(slot.locator('.clock-side[data-side="blue"]')).to_contain_text("stopped")
    page.locator("#notif-bell").click()
    expect(page.locator("#notif-list")).to_contain_text(LOW)  # the worker recorded ClockLow
    page.screenshot(path=shots / "clock-low-1366.png")
    told = requests.get(server.url + "/api/me/notifications", headers=server.user("alice")).json()
    assert [n["text"] for n in told["notifications"] if n["kind"] == "clock"] == [LOW]
    bob = requests.get(server.url + "/api/me/notifications", headers=server.user("bob")).json()
    assert [n for n in bob["notifications"] if n["kind"] == "clock"] == []
    page.context.close()

    phone = signed_in(browser, server, "alice", PHONE)
    phone.goto(f"/games/{gid}")
    expect(phone.locator('#lifecycle-slot .clock-side[data-side="red"]')).to_contain_text(
        "running low"
    )
    phone.screenshot(path=shots / "clock-low-390.png")
    phone.context.close()
