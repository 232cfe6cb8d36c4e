"""A game started from a club scenario version with a calibrated map image draws the club's scan
under its hex grid (issue 32), fetched no wider than the zoom needs, and the player can switch it
off.  The scan is drawn by Pillow (tests/support/printed_map.py); upload, calibration, proposal,
acceptance and publishing go through the API; the page in Chromium at 1366x900 and 390x844, with
screenshots."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.support.printed_map import render


def test_the_board_draws_the_scan_under_the_hexes(
    browser: Any, server: Server, shots: Path
) -> None:
    printed = render(cols=14, rows=10, radius=36.0, seed=4)
    club = server.api("POST", "/api/clubs", "mann", json={"name": "Scan Board Club"})
    server.user("mrojo")
    server.api("POST", f"/api/clubs/{club['id']}/members", "mann", json={"username": "mrojo"})
    blank = {
        "coordinates": "four-digit",
        "bounds": {"min_col": 1, "max_col": 14, "min_row": 1, "max_row": 10},
        "sides": ["nationalist", "republican"],
        "terrain_types": ["clear", "forest", "rough", "mountain"],
    }
    sid = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "mann",
        json={"system": "bizkaya", "title": "Our printed map", "blank": blank},
    )["id"]
    up = requests.post(
        f"{server.url}/api/club-scenarios/{sid}/map-image",
        data=printed.data,
        headers={**server.user("mann"), "Content-Type": "image/jpeg"},
    )
    assert up.status_code == 201, up.text
    points = [
        {"hex": h, "x": round(printed.pixel(h)[0]), "y": round(printed.pixel(h)[1])}
        for h in ("0101", "1401", "0710")
    ]
    server.api(
        "PUT", f"/api/club-scenarios/{sid}/map-image/calibration", "mann", json={"points": points}
    )
    by: dict[str, list[str]] = defaultdict(list)
    for label in printed.grid.labels():
        by[printed.terrain[label]].append(label)
    proposal = server.api(
        "POST",
        f"/api/club-scenarios/{sid}/map-image/proposal",
        "mann",
        json={"hexes": {t: [labels[0]] for t, labels in by.items()}},
    )
    server.api(
        "POST",
        f"/api/club-scenarios/{sid}/map-image/proposal/accept",
        "mann",
        json={"hexes": proposal["hexes"]},
    )
    server.api("POST", f"/api/club-scenarios/{sid}/versions", "mann", json={})
    game = server.api(
        "POST",
        "/api/games",
        "mann",
        json={
            "system": "bizkaya",
            "scenario": sid,
            "sides": {"nationalist": "mann", "republican": "mrojo"},
        },
    )
    board = server.api("GET", f"/api/games/{game['id']}/board", "mann")
    assert board["image"]["width"] == printed.width
    terrain = {h["hex"]: h["terrain"] for h in board["hexes"]}
    assert sum(terrain[h] == printed.terrain[h] for h in terrain) >= 0.97 * len(terrain)

    page = signed_in(browser, server, "mann", viewport={"width": 1366, "height": 900})
    page.goto(f"/games/{game['id']}")
    scan = page.locator("#board g.scan image.scan-image")
    expect(scan).to_have_count(1)
    page.wait_for_function(
        "() => (document.querySelector('#board image.scan-image')?.getAttribute('href') || '').includes('/map-image?width=')"
    )
    href = scan.get_attribute("href") or ""
    asked = int(href.rsplit("=", 1)[1])
    assert 16 <= asked <= printed.width
    loaded = page.evaluate(
        "(url) => fetch(url).then((r) => [r.status, r.headers.get('content-type')])", href
    )
    assert loaded == [200, "image/jpeg"]
    assert "with-scan" in (page.locator("#board").get_attribute("class") or "")
    # the scan lies under the hexes: its box on screen covers the hex grid's
    boxes = page.evaluate(
        """() => {
          const r = (el) => el.getBoundingClientRect();
          const s = r(document.querySelector('#board image.scan-image'));
          const h = r(document.querySelector('#board g.hexes'));
          return [s.left, s.top, s.right, s.bottom, h.left, h.top, h.right, h.bottom];
        }"""
    )
    assert boxes[0] <= boxes[4] + 1 and boxes[1] <= boxes[5] + 1
    assert boxes[2] >= boxes[6] - 1 and boxes[3] >= boxes[7] - 1
    page.screenshot(path=str(shots / "map-image-board-desktop.png"))
    toggle = page.get_by_label("Printed map")
    expect(toggle).to_be_checked()
    toggle.uncheck()
    expect(page.locator("#board g.scan")).to_be_hidden()
    assert "with-scan" not in (page.locator("#board").get_attribute("class") or "")
    page.screenshot(path=str(shots / "map-image-board-off-desktop.png"))

    phone = signed_in(browser, server, "mrojo", viewport=PHONE)
    phone.goto(f"/games/{game['id']}")
    phone.wait_for_function(
        "() => (document.querySelector('#board image.scan-image')?.getAttribute('href') || '').includes('/map-image?width=')"
    )
    small = int(
        (phone.locator("#board image.scan-image").get_attribute("href") or "").rsplit("=", 1)[1]
    )
    assert small <= asked  # a phone asks for no more than the desktop
    phone.screenshot(path=str(shots / "map-image-board-phone.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
