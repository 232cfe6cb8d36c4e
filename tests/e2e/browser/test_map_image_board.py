"""A game started from a club scenario version with a calibrated map image draws the club's scan
under its hex grid (issue 32), fetched no wider than the zoom needs, and the player can switch it
off.  The scan is drawn by Pillow (tests/support/printed_map.py); upload, calibration, proposal,
acceptance and publishing go through the API; the page in Chromium at 1366x900 and 390x844, with
screenshots."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.e2e.browser.test_map_image_editor import _blank_scenario_with_scan
from tests.support.printed_map import PrintedMap, render

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a club scan drawn under the board"
)


def _game_on_a_scan(
    server: Server, printed: PrintedMap, club_name: str, admin: str, other: str
) -> dict[str, Any]:
    """A Bizkaya game started from a published club version whose map is ``printed``,
    calibrated by three exact points, its terrain proposed from one example per terrain and
    accepted (all through the API)."""
    sid = _blank_scenario_with_scan(server, printed, club_name, admin)
    club = server.api("GET", f"/api/club-scenarios/{sid}", admin)["club"]
    server.user(other)
    server.admit(club, admin, other)
    points = [
        {"hex": h, "x": round(printed.pixel(h)[0]), "y": round(printed.pixel(h)[1])}
        for h in ("0101", "1401", "0710")
    ]
    server.api(
        "PUT", f"/api/club-scenarios/{sid}/map-image/calibration", admin, json={"points": points}
    )
    by: dict[str, list[str]] = defaultdict(list)
    for label in printed.grid.labels():
        by[printed.terrain[label]].append(label)
    proposal = server.api(
        "POST",
        f"/api/club-scenarios/{sid}/map-image/proposal",
        admin,
        json={"hexes": {t: [labels[0]] for t, labels in by.items()}},
    )
    server.api(
        "POST",
        f"/api/club-scenarios/{sid}/map-image/proposal/accept",
        admin,
        json={"hexes": proposal["hexes"]},
    )
    server.api("POST", f"/api/club-scenarios/{sid}/versions", admin, json={})
    return server.api(
        "POST",
        "/api/games",
        admin,
        json={
            "system": "bizkaya",
            "scenario": sid,
            "sides": {"nationalist": admin, "republican": other},
        },
    )


def test_the_board_draws_the_scan_under_the_hexes(
    browser: Any, server: Server, shots: Path
) -> None:
    printed = render(cols=14, rows=10, radius=36.0, seed=4)
    game = _game_on_a_scan(server, printed, "Scan Board Club", "mann", "mrojo")
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


def _minimap_in_view(page: Any) -> None:
    """Zoomed in until part of the map is out of view, so the minimap shows."""
    for _ in range(6):
        if "whole" not in (page.locator("#minimap").get_attribute("class") or "").split():
            break
        page.locator("#zoom-in").click()
    expect(page.locator("#minimap")).to_be_visible()


def test_the_minimap_draws_a_small_copy_of_the_scan_and_follows_the_toggle(
    browser: Any, server: Server, shots: Path
) -> None:
    printed = render(cols=14, rows=10, radius=36.0, seed=5)
    game = _game_on_a_scan(server, printed, "Scan Minimap Club", "mini", "mrojas")
    for user, viewport, name in (
        ("mini", {"width": 1366, "height": 900}, "desktop"),
        ("mrojas", PHONE, "phone"),
    ):
        page = signed_in(browser, server, user, viewport=viewport)
        page.goto(f"/games/{game['id']}")
        expect(page.locator("#board g.scan image.scan-image")).to_have_count(1)
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        _minimap_in_view(page)
        mini = page.locator("#minimap image.mini-scan-image")
        expect(mini).to_have_count(1)
        expect(mini).to_be_visible()
        # a small copy, never the full scan
        href = mini.get_attribute("href") or ""
        assert "/map-image?width=" in href
        asked = int(href.rsplit("=", 1)[1])
        assert 16 <= asked <= 300 < printed.width, href
        loaded = page.evaluate(
            "(url) => fetch(url).then((r) => [r.status, r.headers.get('content-type')])", href
        )
        assert loaded == [200, "image/jpeg"]
        # placed as on the board: the same transform, and it covers the minimap's hexes
        assert mini.get_attribute("transform") == page.locator(
            "#board image.scan-image"
        ).get_attribute("transform")
        boxes = page.evaluate(
            """() => {
              const r = (el) => el.getBoundingClientRect();
              const s = r(document.querySelector('#minimap image.mini-scan-image'));
              const polys = [...document.querySelectorAll('#minimap .mini > polygon')].map(r);
              return [s.left, s.top, s.right, s.bottom,
                      Math.min(...polys.map((b) => b.left)), Math.min(...polys.map((b) => b.top)),
                      Math.max(...polys.map((b) => b.right)), Math.max(...polys.map((b) => b.bottom))];
            }"""
        )
        assert boxes[0] <= boxes[4] + 1 and boxes[1] <= boxes[5] + 1, boxes
        assert boxes[2] >= boxes[6] - 1 and boxes[3] >= boxes[7] - 1, boxes
        # in sight: brought to the middle of the screen (the zoom button's click may have scrolled
        # the page), nothing (the phone's orders sheet) lies over it; waited for, as a layout
        # still settling on a loaded machine once put the point briefly elsewhere
        page.evaluate("document.getElementById('minimap').scrollIntoView({ block: 'center' })")
        page.wait_for_function(
            """() => {
              const b = document.getElementById('minimap').getBoundingClientRect();
              const at = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
              return Boolean(at && at.closest('#minimap'));
            }""",
            timeout=5000,
        )
        page.locator("#minimap").screenshot(path=str(shots / f"map-image-minimap-{name}.png"))
        page.screenshot(path=str(shots / f"map-image-minimap-page-{name}.png"))
        # the board's "Printed map" switch takes the scan off the minimap too: terrain only
        toggle = page.get_by_label("Printed map")
        toggle.uncheck()
        expect(page.locator("#board g.scan")).to_be_hidden()
        expect(mini).to_be_hidden()
        expect(page.locator("#minimap .mini > polygon").first).to_be_visible()
        page.locator("#minimap").screenshot(path=str(shots / f"map-image-minimap-off-{name}.png"))
        toggle.check()
        expect(mini).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.context.close()
