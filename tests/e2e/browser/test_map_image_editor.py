"""The club scenario editor's "Printed map" section (issue 32) in Chromium, as a club organiser:
upload a scan of Merida's printed map (drawn by Pillow, tests/support/printed_map.py: a patch of
mountains, AB4 among them, and a river between R16 and S16), calibrate by clicking three hex
centres on the scan (a fourth, wrong, point is refused in words and removed), show examples
(typed, and clicked on the editor's map), propose, accept, publish; a game started from that
version draws the scan under its counters and charges what the accepted terrain says (TEC:
infantry entering a mountain hex pays 2 MP, clear 1), checked through the game's own API.
Screenshots at 1366x900 and 390x844; axe-core on the page with the section open."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from service.rules.kernel.grid import Bounds, HexGrid
from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.e2e.browser.test_accessibility import _serious
from tests.e2e.test_scenario_library_api import SIDES, moved_cost, play_to
from tests.support.api import ApiHelper
from tests.support.printed_map import PrintedMap, render

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a printed map uploaded, calibrated and played on"
)

DESKTOP = {"width": 1366, "height": 900}


class _Reply:
    def __init__(self, response: requests.Response) -> None:
        self.status_code = response.status_code
        self._response = response

    def get_json(self) -> Any:
        return self._response.json() if self._response.content else None


class _LiveClient:
    """Enough of Flask's test client for :class:`ApiHelper`, over HTTP to the live server."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str, query_string: Any = None, headers: Any = None) -> _Reply:
        return _Reply(requests.get(self.url + path, params=query_string, headers=headers))

    def post(self, path: str, json: Any = None, headers: Any = None) -> _Reply:
        return _Reply(requests.post(self.url + path, json=json, headers=headers))


def _click_scan(page: Any, printed: PrintedMap, hex_: str) -> None:
    """A real click on the scan where ``hex_``'s centre is drawn (the scan scrolled to it)."""
    x, y = printed.pixel(hex_)
    page.evaluate(
        """([x, y, w, h]) => {
          const view = document.getElementById('scan-view');
          const stage = view.querySelector('.scan-stage');
          view.scrollIntoView({ block: 'start' });
          view.scrollTop = y * stage.clientHeight / h - view.clientHeight / 2;
          view.scrollLeft = x * stage.clientWidth / w - view.clientWidth / 2;
        }""",
        [x, y, printed.width, printed.height],
    )
    box = page.locator("#scan-view .scan-overlay").bounding_box()
    page.mouse.click(
        box["x"] + x * box["width"] / printed.width, box["y"] + y * box["height"] / printed.height
    )


def test_an_organiser_reads_the_printed_map_in_the_editor_and_a_game_plays_on_it(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "sann", json={"name": "Scan Editor Club"})
    for name in SIDES.values():
        server.user(name)
        server.admit(club["id"], "sann", name)
    sid = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "sann",
        json={"system": "merida", "base": "merida-1938", "title": "Merida as printed"},
    )["id"]
    grid = HexGrid("letter-number", Bounds(1, 26, 1, 43), "flat", "odd")
    mountains = {"AB4", "AB5", "AC4", "AC5", "AD5"} | {
        grid.label(col, row) for col in range(18, 23) for row in range(36, 41)
    }
    terrain = {h: "mountain" if h in mountains else "clear" for h in grid.labels()}
    river = {frozenset(("R16", "S16")), frozenset(("S16", "T16"))}
    printed = render(grid=grid, terrain=terrain, rivers=river, radius=22.0, seed=11)
    scan = Path(shots) / "printed-merida.jpg"
    scan.write_bytes(printed.data)
    not_an_image = Path(shots) / "notes.txt"
    not_an_image.write_text("not a scan")

    page = signed_in(browser, server, "sann", viewport=DESKTOP)
    page.goto(f"/club-scenarios/{sid}")
    expect(page.locator("#ed-title")).to_have_text("Merida as printed")
    page.locator("#scan summary").click()
    expect(page.locator("#scan-facts")).to_have_text("No scan yet.")
    # 1. the scan: a wrong file is refused in words, the scan is kept and shown
    page.get_by_label("Scan or photo of the printed map").set_input_files(str(not_an_image))
    expect(page.locator("#scan-upload-error")).to_contain_text("is not a PNG or JPEG image")
    fake = Path(shots) / "fake-scan.png"
    fake.write_text("a PNG in name only")
    page.get_by_label("Scan or photo of the printed map").set_input_files(str(fake))
    expect(page.locator("#scan-upload-error")).to_contain_text("The scan: ")  # the server's words
    expect(page.locator("#scan-facts")).to_have_text("No scan yet.")
    page.get_by_label("Scan or photo of the printed map").set_input_files(str(scan))
    expect(page.locator("#scan-facts")).to_contain_text(
        f"{printed.width:,} × {printed.height:,} pixels, JPEG; not calibrated yet"
    )
    expect(page.locator("#scan-view img.scan-img")).to_have_count(1)
    page.wait_for_function("() => document.querySelector('#scan-view img').complete")
    assert page.evaluate("document.querySelector('#scan-view img').naturalWidth") > 0

    # 2. calibration: a click on the scan, then the hex (typed, or clicked on the map above)
    for hex_ in ("A1", "A26"):
        _click_scan(page, printed, hex_)
        expect(page.locator("#scan-point input[name=x]")).not_to_have_value("")
        page.locator("#scan-point").get_by_label("Hex").fill(hex_)
        page.locator("#scan-point").get_by_role("button", name="Add the point").click()
    _click_scan(page, printed, "AQ13")
    page.locator('#ed-map [data-hex="AQ13"] polygon').click()  # the hex on the editor's map
    expect(page.locator("#scan-points li")).to_have_count(3)
    # a fourth point said to be a hex it is not: the fit is refused, naming it in words
    _click_scan(page, printed, "J7")
    page.locator("#scan-point").get_by_label("Hex").fill("P20")
    page.locator("#scan-point").get_by_label("Hex").press("Enter")
    page.get_by_role("button", name="Fit the grid to these points").click()
    expect(page.locator("#scan-fit-error")).to_contain_text(
        re.compile(r"Point [1-4] \(hex [A-Z]+\d+\): [A-Z]+\d+ is [\d.]+ px from the fitted grid")
    )
    assert "points[" not in page.locator("#scan-fit-error").inner_text()
    page.get_by_role("button", name="Remove the point of hex P20").click()
    expect(page.locator("#scan-points li")).to_have_count(3)
    page.get_by_role("button", name="Fit the grid to these points").click()
    expect(page.locator("#scan-fit-result")).to_contain_text("The grid fits the 3 points")
    expect(page.locator("#scan-points")).to_contain_text("px from the fitted grid")
    expect(page.locator("#scan-facts")).to_contain_text("the grid is fitted to it")
    expect(page.locator("#scan-view .scan-grid polygon")).to_have_count(len(terrain))
    calibration = server.api("GET", f"/api/club-scenarios/{sid}", "sann")["document"]["map"][
        "image"
    ]["calibration"]
    assert calibration["residual_px"] < 2.0

    # 3. examples: typed, clicked on the scan's fitted grid, clicked on the editor's map
    page.get_by_label("clear hexes").fill("J7")
    page.get_by_label("an example of mountain").check()
    _click_scan(page, printed, "AB4")
    expect(page.get_by_label("mountain hexes")).to_have_value("AB4")
    page.get_by_label("an example river hexside").check()
    page.locator('#ed-map [data-hex="R16"] polygon').click()
    page.locator('#ed-map [data-hex="S16"] polygon').click()
    expect(page.get_by_label("river hexsides")).to_have_value("R16/S16")
    # a hexside of two hexes that do not meet is refused, named in words
    page.get_by_label("road hexsides").fill("R16/T18")
    page.get_by_role("button", name="Propose the terrain").click()
    expect(page.locator("#scan-propose-error")).to_have_text("Road hexside R16/T18: not a hexside")
    assert "hexsides." not in page.locator("#scan-propose-error").inner_text()
    page.get_by_label("road hexsides").fill("")
    page.get_by_role("button", name="Propose the terrain").click()
    expect(page.locator("#scan-proposal-summary")).to_contain_text(
        f"Terrain proposed for {len(terrain):,} hexes"
    )
    expect(page.locator("#scan-proposal-summary")).to_contain_text(f"{len(mountains)} would change")
    expect(page.locator("#scan-hexes tbody tr")).to_have_count(len(mountains))
    expect(page.locator('#scan-hexes tr[data-hex="AB4"]')).to_contain_text("mountain")
    expect(page.locator("#scan-sides")).to_contain_text("R16/S16")
    expect(page.locator("#scan-view .scan-grid polygon.proposed")).to_have_count(len(terrain))
    # lowest confidence first
    sure = [
        int(t.rstrip(" %"))
        for t in page.locator("#scan-hexes tbody td:last-child").all_inner_texts()
    ]
    assert sure == sorted(sure)
    page.screenshot(path=str(shots / "scan-editor-proposal-desktop.png"), full_page=True)
    problems = _serious(page)
    assert problems == [], problems

    # 4. accept hex by hex (AB5 unticked stays clear), then all of it; undo takes a batch back
    page.get_by_label("Accept AB5 as mountain").uncheck()
    page.get_by_label("Accept S16/T16 as river").uncheck()
    page.get_by_role("button", name="Accept the ticked ones").click()
    expect(page.locator('#ed-map [data-hex="AB4"] title')).to_contain_text("AB4: mountain")
    expect(page.locator('#ed-map [data-hex="AB5"] title')).to_contain_text("AB5: clear")
    expect(page.locator("#scan-hexes tbody tr")).to_have_count(1)
    terrain_now = server.api("GET", f"/api/club-scenarios/{sid}/board", "sann")["hexes"]
    assert sum(h["terrain"] == "mountain" for h in terrain_now) == len(mountains) - 1
    page.get_by_role("button", name="Undo").click()
    expect(page.locator('#ed-map [data-hex="AB4"] title')).to_contain_text("AB4: clear")
    expect(page.locator("#scan-hexes tbody tr")).to_have_count(len(mountains))
    page.get_by_role("button", name="Accept all of it").click()
    expect(page.locator('#ed-map [data-hex="AB4"] title')).to_contain_text("AB4: mountain")
    expect(page.locator("#scan-hexes")).to_contain_text("No hex would change.")
    expect(page.locator(".ed-hexsides title", has_text="R16/S16")).to_contain_text("river")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator("#ed-versions")).to_contain_text("published version 1")
    draft = server.api("GET", f"/api/club-scenarios/{sid}", "sann")
    assert draft["latest"] == 1

    # the phone: the same section, no sideways scroll
    phone = signed_in(browser, server, "sann", viewport=PHONE)
    phone.goto(f"/club-scenarios/{sid}")
    expect(phone.locator("#ed-versions")).to_contain_text("published version 1")
    expect(phone.locator("#scan summary")).to_be_visible()
    phone.locator("#scan summary").focus()  # by the keyboard
    phone.keyboard.press("Enter")
    expect(phone.locator("#scan-details")).to_have_attribute("open", "")
    expect(phone.locator("#scan-view .scan-grid polygon")).to_have_count(len(terrain))
    expect(phone.locator("#scan-points li")).to_have_count(3)
    phone.get_by_label("clear hexes").fill("J7")
    phone.get_by_label("mountain hexes").fill("AB4")
    phone.get_by_role("button", name="Propose the terrain").click()
    expect(phone.locator("#scan-hexes")).to_contain_text("No hex would change.")
    phone.get_by_label("only hexes whose terrain would change").uncheck()
    expect(phone.locator("#scan-hexes tbody tr")).to_have_count(60)
    expect(phone.get_by_role("button", name="More hexes")).to_contain_text("1,058 not shown")
    phone.locator("#scan").scroll_into_view_if_needed()
    phone.screenshot(path=str(shots / "scan-editor-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    problems = _serious(phone)
    assert problems == [], problems
    # the scan at its own pixels scrolls inside its box, never the page
    phone.get_by_label("Size").select_option(label="the scan's own pixels")
    expect(phone.locator("#scan-view .scan-grid polygon")).to_have_count(len(terrain))
    stage = phone.locator("#scan-view .scan-stage").bounding_box()
    assert stage and round(stage["width"]) == printed.width
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # a game from the published version: the scan under the counters, the terrain's costs
    game = server.api(
        "POST",
        "/api/games",
        "franco",
        json={"system": "merida", "scenario": sid, "sides": SIDES},
    )
    api = ApiHelper(_LiveClient(server.url))  # type: ignore[arg-type]
    api.tokens = dict(server.tokens)
    game = api.accept_all(game, "franco")
    assert game["state"]["map"]["terrain"]["AB4"] == "mountain"
    board = signed_in(browser, server, "franco", viewport=DESKTOP)
    board.goto(f"/games/{game['id']}")
    expect(board.locator("#board g.scan image.scan-image")).to_have_count(1)
    expect(board.locator("#board g.counters, #board .counter").first).to_be_attached()
    board.screenshot(path=str(shots / "scan-editor-game-desktop.png"))
    play_to(api, game["id"], "movement")
    assert moved_cost(api, game["id"], "n-1-21-div", ["AA3", "AB4"]) == 2.0
    assert moved_cost(api, game["id"], "n-2-21-div", ["AA3", "AA4"]) == 1.0


def _blank_scenario_with_scan(
    server: Server, printed: PrintedMap, club_name: str, admin: str
) -> str:
    """A club's blank Bizkaya scenario the size of ``printed`` (four-digit hexes; clear, forest,
    rough and mountain), with ``printed`` uploaded as its scan (not calibrated)."""
    club = server.api("POST", "/api/clubs", admin, json={"name": club_name})
    bounds = printed.grid.bounds
    blank = {
        "coordinates": "four-digit",
        "bounds": {
            "min_col": bounds.min_col,
            "max_col": bounds.max_col,
            "min_row": bounds.min_row,
            "max_row": bounds.max_row,
        },
        "sides": ["nationalist", "republican"],
        "terrain_types": ["clear", "forest", "rough", "mountain"],
    }
    sid: str = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        admin,
        json={"system": "bizkaya", "title": f"{club_name} map", "blank": blank},
    )["id"]
    up = requests.post(
        f"{server.url}/api/club-scenarios/{sid}/map-image",
        data=printed.data,
        headers={**server.user(admin), "Content-Type": "image/jpeg"},
    )
    assert up.status_code == 201, up.text
    return sid


def _open_scan_section(page: Any, sid: str) -> None:
    page.goto(f"/club-scenarios/{sid}")
    expect(page.locator("#ed-title")).not_to_be_empty()
    page.locator("#scan summary").click()
    expect(page.locator("#scan-view img.scan-img")).to_have_count(1)
    page.wait_for_function("() => document.querySelector('#scan-view img').complete")


def _keyboard_fill(page: Any, field: Any, text: str) -> None:
    """``text`` typed into ``field`` by the keyboard, over what it held."""
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def test_calibration_points_stay_until_a_fit_is_accepted_and_are_corrected_by_keyboard(
    browser: Any, server: Server, shots: Path
) -> None:
    printed = render(cols=14, rows=10, radius=30.0, seed=6)
    sid = _blank_scenario_with_scan(server, printed, "Scan Points Club", "pann")
    page = signed_in(browser, server, "pann", viewport=DESKTOP)
    _open_scan_section(page, sid)

    # three points clicked on the scan, the third said to be a hex the map does not have
    for clicked, said in (("0101", "0101"), ("1401", "1401"), ("0710", "0799")):
        _click_scan(page, printed, clicked)
        expect(page.locator("#scan-point input[name=x]")).not_to_have_value("")
        page.locator("#scan-point").get_by_label("Hex").fill(said)
        page.locator("#scan-point").get_by_role("button", name="Add the point").click()
    points = page.locator("#scan-points > li")
    bad = page.locator("#scan-points > li.bad")
    expect(points).to_have_count(3)
    fit = page.get_by_role("button", name="Fit the grid to these points")
    fit.click()
    expect(page.locator("#scan-fit-error")).to_contain_text("Point 3 (hex 0799): no hex")
    expect(page.locator("#scan-fit-error")).to_contain_text("Your 3 points are kept below")
    # the points are still listed as given; the wrong one says why beside it and on the scan
    expect(points).to_have_count(3)
    for n, hex_ in enumerate(("0101", "1401", "0799"), start=1):
        expect(page.get_by_label(f"Hex of point {n}")).to_have_value(hex_)
    expect(bad).to_have_count(1)
    expect(page.locator('#scan-points > li[data-point="3"]')).to_have_class(re.compile(r"\bbad\b"))
    expect(bad).to_contain_text("Its hex: no hex '0799' on this map")
    expect(page.locator("#scan-view circle.scan-point")).to_have_count(3)
    expect(page.locator('#scan-view circle.scan-point.bad[data-point="3"] title')).to_contain_text(
        "no hex '0799'"
    )
    # re-drawn (another size, the section closed and opened again): the points stay
    page.get_by_label("Size").select_option(label="the scan's own pixels")
    page.get_by_label("Size").select_option(label="the width of the page")
    page.locator("#scan summary").click()
    expect(page.locator("#scan-details")).not_to_have_attribute("open", "")
    page.locator("#scan summary").click()
    expect(points).to_have_count(3)
    expect(page.locator("#scan-view circle.scan-point")).to_have_count(3)
    expect(bad).to_have_count(1)

    # by the keyboard: point 3's hex corrected in its row, then a fourth point typed in the form
    # (0505's place on the scan, said to be 0905: four points that disagree)
    _keyboard_fill(page, page.get_by_label("Hex of point 3"), "0710")
    page.keyboard.press("Tab")
    expect(page.get_by_label("x of point 3", exact=True)).to_be_focused()  # the row was not redrawn
    expect(bad).to_have_count(0)
    expect(page.locator("#scan-view circle.scan-point.bad")).to_have_count(0)
    form = page.locator("#scan-point")

    def type_point(hex_: str, at: str) -> None:
        x, y = printed.pixel(at)
        _keyboard_fill(page, form.get_by_label("x", exact=True), str(round(x * 2) / 2))
        page.keyboard.press("Tab")
        page.keyboard.type(str(round(y * 2) / 2))
        page.keyboard.press("Tab")
        expect(form.get_by_label("Hex")).to_be_focused()
        page.keyboard.type(hex_)
        page.keyboard.press("Enter")

    type_point("0905", "0505")
    expect(points).to_have_count(4)
    fit.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#scan-fit-error")).to_contain_text(
        re.compile(r"Point 4 \(hex 0905\): 0905 is [\d.]+ px from the fitted grid of the other 3")
    )
    # a wrong point pulls the fit, but the server finds it (the other three fit the printed
    # grid's shape without it): it alone is marked
    expect(points).to_have_count(4)
    expect(page.locator('#scan-points > li[data-point="4"]')).to_contain_text(
        re.compile(r"0905 is [\d.]+ px from the fitted grid of the other 3 points: check its hex")
    )
    expect(page.locator("#scan-points li.bad")).to_have_count(1)
    expect(page.locator("#scan-view circle.scan-point.bad")).to_have_count(1)
    expect(page.locator('#scan-view circle.scan-point.bad[data-point="4"]')).to_have_count(1)
    expect(page.locator("#scan-view text.scan-point-label.bad")).to_have_text("4: 0905 (off)")
    for word in ("[object", "undefined", "NaN", "points["):
        assert word not in page.locator("#scan").inner_text()
    page.locator("#scan").screenshot(path=str(shots / "scan-points-refused-desktop.png"))
    problems = _serious(page)
    assert problems == [], problems
    # a reload keeps the points not yet fitted (this tab keeps them until a fit is accepted)
    _open_scan_section(page, sid)
    expect(points).to_have_count(4)
    expect(page.get_by_label("Hex of point 4")).to_have_value("0905")
    expect(page.locator("#scan-view circle.scan-point")).to_have_count(4)
    _keyboard_fill(page, page.get_by_label("Hex of point 4"), "0505")
    page.keyboard.press("Tab")
    expect(bad).to_have_count(0)  # the old fit's distances are gone with it
    type_point("1410", "1410")
    expect(points).to_have_count(5)
    expect(page.get_by_label("Hex of point 5")).to_have_value("1410")
    fit.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#scan-fit-result")).to_contain_text("The grid fits the 5 points")
    expect(page.locator("#scan-fit-error")).to_be_empty()
    expect(bad).to_have_count(0)
    expect(page.locator("#scan-points > li", has_text="px from the fitted grid")).to_have_count(5)
    expect(page.locator("#scan-view .scan-grid polygon")).to_have_count(140)
    calibration = server.api("GET", f"/api/club-scenarios/{sid}", "pann")["document"]["map"][
        "image"
    ]["calibration"]
    assert [p["hex"] for p in calibration["points"]] == ["0101", "1401", "0710", "0505", "1410"]
    assert calibration["residual_px"] < 2.0
    # once fitted, the points are the calibration's: a reload lists them, nothing else kept
    assert (
        page.evaluate("Object.keys(sessionStorage).filter((k) => k.includes('scan-points'))") == []
    )
    page.locator("#scan").screenshot(path=str(shots / "scan-points-fitted-desktop.png"))

    # the phone: the calibration's points listed, one row each, nothing scrolls sideways
    phone = signed_in(browser, server, "pann", viewport=PHONE)
    _open_scan_section(phone, sid)
    expect(phone.locator("#scan-points > li")).to_have_count(5)
    expect(phone.get_by_label("Hex of point 4")).to_have_value("0505")
    phone.locator("#scan-points").scroll_into_view_if_needed()
    phone.screenshot(path=str(shots / "scan-points-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    problems = _serious(phone)
    assert problems == [], problems


def test_every_hexside_feature_is_offered_and_rail_examples_are_sent(
    browser: Any, server: Server, shots: Path
) -> None:
    printed = render(cols=14, rows=10, radius=30.0, seed=8, river_length=10, road_length=14)
    sid = _blank_scenario_with_scan(server, printed, "Scan Rail Club", "rann")
    points = [
        {"hex": h, "x": round(printed.pixel(h)[0]), "y": round(printed.pixel(h)[1])}
        for h in ("0101", "1401", "0710")
    ]
    server.api(
        "PUT", f"/api/club-scenarios/{sid}/map-image/calibration", "rann", json={"points": points}
    )
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = signed_in(browser, server, "rann", viewport=viewport)
        _open_scan_section(page, sid)
        for feature in ("river", "road", "rail", "strait", "impassable"):
            expect(page.get_by_label(f"an example {feature} hexside")).to_have_count(1)
            expect(page.get_by_label(f"{feature} hexsides")).to_have_count(1)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        if name == "phone":
            problems = _serious(page)
            assert problems == [], problems
            break
        # one example of each terrain (typed); the road drawn on the scan given as a rail
        # hexside, clicked on the editor's map, and a second one typed
        for terrain in ("clear", "forest", "rough", "mountain"):
            example = next(h for h, t in sorted(printed.terrain.items()) if t == terrain)
            page.get_by_label(f"{terrain} hexes").fill(example)
        first, second = (sorted(side) for side in sorted(printed.roads, key=sorted)[:2])
        page.get_by_label("an example rail hexside").check()
        page.locator(f'#ed-map [data-hex="{first[0]}"] polygon').click()
        page.locator(f'#ed-map [data-hex="{first[1]}"] polygon').click()
        rail = page.get_by_label("rail hexsides")
        expect(rail).to_have_value(f"{first[0]}/{first[1]}")
        rail.fill(f"{rail.input_value()} {second[0]}/{second[1]}")
        with page.expect_request(
            lambda r: r.method == "POST" and r.url.endswith("/map-image/proposal")
        ) as sent:
            page.get_by_role("button", name="Propose the terrain").click()
        body = sent.value.post_data_json
        assert body["hexsides"] == {"rail": [first, second]}, body
        expect(page.locator("#scan-proposal-summary")).to_contain_text("Terrain proposed for 140")
        # the proposal reads the drawn road as rail: written in the table and on the scan
        rows = page.locator("#scan-sides tbody tr", has_text="rail")
        expect(rows.first).to_be_visible()
        expect(page.locator("#scan-sides")).not_to_contain_text("road")
        line = page.locator("#scan-view line.proposed-side.side-rail").first
        expect(line).to_have_attribute("stroke", "#1b1b1b")
        expect(line.locator("title")).to_contain_text("rail")
        found = {
            tuple(sorted(t.split(":")[0].split("/")))
            for t in page.locator("#scan-view line.side-rail title").all_text_contents()
        }
        assert found & {tuple(sorted(s)) for s in printed.roads}
        page.locator("#scan").screenshot(path=str(shots / "scan-rail-proposal-desktop.png"))
        page.context.close()
