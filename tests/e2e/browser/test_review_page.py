"""Issue 31 in the browser: a game's review page -- the luck of the dice in words with the per-roll
detail, the key moments linking to the board at that moment, the chart of victory points and
losses, the story turn by turn, links to the after-action report -- at 1366x900 and 390x844 (no
sideways scroll on the phone; axe-core finds no serious or critical violation), linked from the
game page; and the HTML report opens on its own, with the server out of reach.

The game is Merida's rules on the decisions drill (``tests.fixtures.merida_drill``): a 6-1 attack
with armour on E5, then the defender resigns."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

SIDES = {"nationalist": "rfranco", "republican": "rrojo"}
DESKTOP = {"width": 1366, "height": 900}
#: what a person must never read on the page
IDS = re.compile(r"\[object|\bn-[a-z0-9-]+\b|\br-[a-z0-9-]+\b|undefined|NaN")


def _fought(drill: Server) -> str:
    for name in SIDES.values():
        drill.user(name)
    game = drill.api(
        "POST",
        "/api/games",
        "rfranco",
        json={"system": "merida-drill", "scenario": "decisions-drill", "sides": SIDES},
    )
    gid = str(game["id"])
    drill.accept(gid, "rrojo")
    while drill.read(f"/api/games/{gid}", "rfranco")["phase"]["phase"] != "combat":
        side = drill.read(f"/api/games/{gid}", "rfranco")["active_sides"][0]
        drill.command(gid, SIDES[side], {"type": "end_phase"})
    actions = requests.get(
        f"{drill.url}/api/games/{gid}/actions", headers=drill.user("rfranco")
    ).json()["actions"]
    [attack] = [t for t in actions if t["type"] == "attack"]
    drill.command(
        gid,
        "rfranco",
        {"type": "attack", "hex": "E5", "attackers": attack["choose"]["attackers"]["some_of"]},
    )
    return gid


def _serious(page: Any) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']} -- {v['help']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def _measured(drill: Server, gid: str, user: str) -> dict[str, Any]:
    """The review once the worker has measured the attack's die (it runs every half second)."""
    for _ in range(100):
        body = drill.read(f"/api/games/{gid}/review", user)
        if any(r["outcome"] is not None for s in body["luck"].values() for r in s["rolls"]):
            return dict(body)
        time.sleep(0.2)
    raise AssertionError("the reviews view never measured the attack")


def _charted(drill: Server, gid: str, user: str) -> dict[str, Any]:
    """The review once the worker's reviews view holds the game's turns (its luck no longer waits
    for the view: the rolls past it are measured from the log, so :func:`_measured` can answer
    before the chart has its points)."""
    for _ in range(100):
        body = drill.read(f"/api/games/{gid}/review", user)
        if (body.get("chart") or {}).get("turns"):
            return dict(body)
        time.sleep(0.2)
    raise AssertionError("the reviews view never took the game's turns")


def test_the_review_page_tells_the_story_and_the_dice(
    browser: Any, drill: Server, shots: Path
) -> None:
    gid = _fought(drill)
    during = _measured(drill, gid, "rfranco")
    assert list(during["luck"]) == ["nationalist"]
    # a player finds the review from the game page during the game
    page = signed_in(browser, drill, "rfranco", DESKTOP)
    page.goto(f"/games/{gid}")
    expect(page.locator("#review-link")).to_be_visible()
    page.locator("#review-link").click()
    expect(page.locator(".luck-words")).to_have_count(1)
    words = page.locator(".luck-words").inner_text()
    assert words.startswith("Nationalist dice were") and "roll measured" in words
    page.context.close()
    # the defender resigns: every side's luck, for every reader
    drill.api("POST", f"/api/games/{gid}/resign", "rrojo", json={})
    _measured(drill, gid, "rrojo")
    _charted(drill, gid, "rrojo")  # the view caught up: the profile below reads it alone
    problems: dict[str, list[str]] = {}
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = signed_in(browser, drill, "rrojo", viewport)
        page.goto(f"/games/{gid}/review")
        expect(page.locator(".luck-words")).to_have_count(2)
        expect(page.locator("#review-result")).to_contain_text("Nationalist (rfranco) won")
        page.wait_for_load_state("networkidle")
        text = page.locator("#review-page").inner_text()
        assert not IDS.search(text), IDS.search(text)
        # the per-roll detail in words
        page.locator("#luck details summary").first.click()
        expect(page.locator(".luck-rolls li").first).to_contain_text("combat — rolled")
        # the story, turn by turn, each event linking to the board then
        expect(page.locator("#timeline h3").first).to_have_text(re.compile(r"Turn \d+"))
        link = page.locator("#timeline .board-link").first.get_attribute("href")
        assert link and re.fullmatch(rf"/games/{gid}\?v=\d+", link)
        expect(page.locator("#report-html")).to_have_attribute(
            "href", f"/api/games/{gid}/report.html"
        )
        # the chart in the counters' colours (Merida rule 2: Nationalists blue, Republicans
        # green), as the board draws them -- it was red and blue (issue 51, finding 10)
        legend = page.locator("#review-chart .legend li")
        expect(legend.filter(has_text="Nationalist")).to_have_class("side-1")
        expect(legend.filter(has_text="Republican")).to_have_class("side-2")
        assert page.locator("#review-chart .series.side-1").count() >= 1
        page.screenshot(path=shots / f"review-{name}.png", full_page=True)
        if viewport is PHONE:
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        found = _serious(page)
        if found:
            problems[name] = found
        page.context.close()
    assert problems == {}
    # the profile shows the player's luck across their finished games, each linking its review
    page = signed_in(browser, drill, "rrojo", PHONE)
    page.goto("/users/rrojo")
    expect(page.locator("#profile-luck-games li")).to_have_count(1)
    expect(page.locator("#profile-luck-totals li")).to_contain_text("units of losses")
    href = page.locator("#profile-luck-games a").get_attribute("href")
    assert href == f"/games/{gid}/review"
    page.screenshot(path=shots / "profile-luck-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.context.close()


def test_the_html_report_opens_standalone(browser: Any, drill: Server, shots: Path) -> None:
    gid = _fought(drill)
    drill.api("POST", f"/api/games/{gid}/resign", "rrojo", json={})
    _measured(drill, gid, "rrojo")
    _charted(drill, gid, "rrojo")
    r = requests.get(f"{drill.url}/api/games/{gid}/report.html", headers=drill.user("rrojo"))
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    html = r.text
    assert "<script" not in html.lower()
    # loaded with every request to anywhere refused: nothing it shows may come from the server
    context = browser.new_context(viewport=DESKTOP, offline=True)
    asked: list[str] = []

    def refuse(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    page.set_content(html)
    expect(page.locator("h1")).to_contain_text("After-action report")
    expect(page.locator(".result")).to_contain_text("Nationalist (rfranco) won")
    assert page.locator("svg.chart").count() == 1
    assert page.locator("svg.board").count() >= 1  # the board at a key moment
    assert "re-derived from the revealed seed and matched" in page.inner_text("body")
    box = page.locator("svg.chart").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 50  # drawn with its own styles
    page.screenshot(path=shots / "report-standalone.png", full_page=True)
    assert asked == []
    context.close()


def _note_errors(errors: list[str]) -> Any:
    return lambda m: errors.append(m.text) if m.type == "error" else None


def _note_failures(failed: list[str]) -> Any:
    return lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None


def test_the_html_report_as_served_is_styled_at_both_sizes(
    browser: Any, drill: Server, shots: Path
) -> None:
    """Issue 51, finding 3: opened from the site, the report was unstyled (its own CSP refused its
    inline styles: 3 console errors), a request answered 404, and it was 511 px wide on a phone."""
    gid = _fought(drill)
    drill.api("POST", f"/api/games/{gid}/resign", "rrojo", json={})
    _measured(drill, gid, "rrojo")
    _charted(drill, gid, "rrojo")
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = signed_in(browser, drill, "rrojo", viewport)
        errors: list[str] = []
        failed: list[str] = []
        page.on("console", _note_errors(errors))
        page.on("response", _note_failures(failed))
        page.goto(f"/api/games/{gid}/report.html")
        expect(page.locator("h1")).to_contain_text("After-action report")
        page.wait_for_load_state("networkidle")
        assert errors == [] and failed == []
        font = page.evaluate("getComputedStyle(document.body).fontFamily")
        assert "system-ui" in font  # its stylesheet applied, not the browser's serif
        width = page.evaluate("document.querySelector('svg.chart').getBoundingClientRect().width")
        assert width <= min(viewport["width"], 960)  # the chart within the page's column
        swatches = page.locator(".legend svg rect")
        assert swatches.count() >= 2 and swatches.first.get_attribute("fill")
        page.screenshot(path=shots / f"report-served-{name}.png", full_page=True)
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
            " > innerWidth + 1).map(e => e.tagName + ' ' + e.getAttribute('class') + ' '"
            " + Math.round(e.getBoundingClientRect().right) + ' ' + (e.closest('details') ?"
            " e.closest('details').open : '-'))"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], wide
        assert _serious(page) == []
        page.context.close()
