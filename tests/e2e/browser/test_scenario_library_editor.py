"""The scenario editor in Chromium (issue 18), as a club organiser: starts a scenario from Merida's in
the club's library page, paints a mountain hex (Merida's TEC has no forest), sets a river hexside,
sets a counter's strength and moves its set-up hex, publishes; a game started from that version
has all of it -- checked through the game's own API (the rules' effects of the same edits are
checked move by move in tests/e2e/test_scenario_library_api.py).  Screenshots at both sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a scenario edited and published"
)

SIDES = {"nationalist": "efranco", "republican": "erojo"}


def test_an_organiser_enters_the_map_and_publishes(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "eann", json={"name": "Editor Club"})
    for name in SIDES.values():
        server.user(name)
        server.admit(club["id"], "eann", name)
    page = signed_in(browser, server, "eann")
    page.goto(f"/clubs/{club['id']}/scenarios")
    expect(page.locator("#library-table")).to_contain_text("No scenario yet")
    form = page.locator("#create-form")
    form.get_by_label("Title").fill("Merida, our map")
    form.get_by_label("Rules system").select_option("merida")
    form.get_by_label("From").select_option("merida-1938")
    form.get_by_role("button", name="Start editing").click()
    expect(page.locator("#ed-title")).to_have_text("Merida, our map")
    expect(page.locator("#ed-errors")).to_contain_text("None: the scenario can be published")
    page.screenshot(path=str(shots / "scenario-editor-desktop.png"))
    sid = page.url.rsplit("/", 1)[1]

    def draft() -> dict[str, Any]:
        return server.api("GET", f"/api/club-scenarios/{sid}", "eann")

    # paint a hex
    page.locator("#ed-palette").get_by_label("mountain").check()
    page.locator('[data-hex="AB4"] polygon').click()
    expect(page.locator('[data-hex="AB4"] title')).to_contain_text("AB4: mountain")
    # a river hexside: one hex, then the hex across the edge
    page.get_by_label("set a hexside").check()
    page.locator("#ed-palette").get_by_label("river").check()
    page.locator('[data-hex="R16"] polygon').click()
    page.locator('[data-hex="S16"] polygon').click()
    # (among the shipped placeholder road and rail hexsides)
    expect(page.locator(".ed-hexsides title", has_text="R16/S16")).to_have_text("R16/S16: river")
    # a hex's feature: the printed map says city
    page.get_by_label("set a hex's feature").check()
    page.locator("#ed-palette").get_by_label("city").check()
    page.locator('[data-hex="J7"] polygon').click()
    expect(page.locator('[data-hex="J7"] title')).to_contain_text("city")
    # a named place with its kind and victory points, asked in three questions
    answers = iter(["Mirandilla", "objective", "2"])
    page.on("dialog", lambda dialog: dialog.accept(next(answers)))
    page.get_by_label("name a place").check()
    page.locator('[data-hex="K5"] polygon').click()
    expect(page.locator('[data-hex="K5"] title')).to_contain_text("Mirandilla (objective)")
    # a counter's value in the counter sheet
    strength = page.locator('tr[data-unit="n-19-div"] [data-field="values.strength"]')
    strength.fill("5")
    strength.press("Tab")
    expect(page.locator('tr[data-unit="n-19-div"] [data-field="values.strength"]')).to_have_value(
        "5"
    )
    # its set-up hex, by clicking the map
    page.get_by_label("set a counter's set-up hex").check()
    page.locator("#ed-palette select").select_option("n-19-div")
    page.locator('[data-hex="R16"] polygon').click()
    expect(page.locator('tr[data-unit="n-19-div"] [data-field="hex"]')).to_have_value("R16")
    # undo and redo the last edit
    page.get_by_role("button", name="Undo").click()
    expect(page.locator('tr[data-unit="n-19-div"] [data-field="hex"]')).to_have_value("O10")
    boards: list[str] = []
    page.on("request", lambda r: boards.append(r.url) if r.url.endswith("/board") else None)
    page.get_by_role("button", name="Redo").click()
    expect(page.locator('tr[data-unit="n-19-div"] [data-field="hex"]')).to_have_value("R16")
    # the redo is done with once the sheet shows it, the page drawn once: a value typed now is
    # kept (a second drawing after an undo or redo once replaced the field being typed in)
    expect(page.get_by_role("button", name="Undo")).to_be_enabled()
    expect(page.get_by_role("button", name="Redo")).to_be_disabled()
    expect(page.locator("#editor")).not_to_have_attribute("aria-busy", "true")
    page.wait_for_load_state("networkidle")
    assert len(boards) == 1, boards
    # a bad value is shown at its place and publishing waits for it
    strength = page.locator('tr[data-unit="n-19-div"] [data-field="values.strength"]')
    strength.fill("five")
    strength.press("Tab")
    expect(page.locator("#ed-errors")).to_contain_text("counter 19 Div, strength")
    expect(page.locator('tr[data-unit="n-19-div"] td.error')).to_contain_text("strength: ")
    expect(page.get_by_role("button", name="Publish")).to_be_disabled()
    page.screenshot(path=str(shots / "scenario-editor-error-desktop.png"))
    strength = page.locator('tr[data-unit="n-19-div"] [data-field="values.strength"]')
    strength.fill("5")
    strength.press("Tab")
    expect(page.get_by_role("button", name="Publish")).to_be_enabled()
    page.get_by_role("button", name="Publish").click()
    expect(page.locator("#ed-versions")).to_contain_text("published version 1")
    page.locator("#diff-form").get_by_role("button", name="Show").click()
    expect(page.locator("#ed-diff")).to_contain_text("Nothing changed")
    assert draft()["latest"] == 1
    places = {p["name"]: p for p in draft()["document"]["map"]["places"]}
    assert places["Mirandilla"] == {
        "name": "Mirandilla",
        "hex": "K5",
        "kind": "objective",
        "values": {"vp": 2},
    }
    assert draft()["document"]["map"]["hex_features"]["J7"] == ["city"]

    phone = signed_in(browser, server, "eann", viewport=PHONE)
    phone.goto(f"/club-scenarios/{sid}")
    expect(phone.locator("#ed-versions")).to_contain_text("published version 1")
    phone.screenshot(path=str(shots / "scenario-editor-phone.png"), full_page=False)
    phone.goto(f"/clubs/{club['id']}/scenarios")
    expect(phone.locator("#library-table")).to_contain_text("Merida, our map")
    phone.screenshot(path=str(shots / "scenario-library-phone.png"))
    page.goto(f"/clubs/{club['id']}/scenarios")
    expect(page.locator("#library-table")).to_contain_text("version 1")
    # the system by its title, never its internal name
    expect(page.locator("#library-table tbody td").first).to_have_text(
        "Closing the Merida Pocket - Extremadura, 1938"
    )
    page.screenshot(path=str(shots / "scenario-library-desktop.png"))

    # a game from that version has the club's map and counters
    r = requests.post(
        f"{server.url}/api/games",
        json={"system": "merida", "scenario": sid, "scenario_version": 1, "sides": SIDES},
        headers=server.user("efranco"),
    )
    assert r.status_code == 201, r.text
    game = r.json()
    assert game["labels"]["scenario_version"] == 1
    assert game["labels"]["scenario_hash"] == draft()["versions"][0]["hash"]
    state = game["state"]
    assert state["map"]["terrain"]["AB4"] == "mountain"
    assert {"hexes": ["R16", "S16"], "features": ["river"]} in [
        {"hexes": list(s["hexes"]), "features": s["features"]} for s in state["map"]["hexsides"]
    ]
    assert state["units"]["n-19-div"]["hex"] == "R16"
    assert state["units"]["n-19-div"]["strength"] == 5


def test_barcelona_table_in_the_editor(browser: Any, server: Server, shots: Path) -> None:
    club = server.api("POST", "/api/clubs", "tann", json={"name": "Table Club"})
    made = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "tann",
        json={"system": "barcelona", "base": "skirmish", "title": "Ebro road, our table"},
    )
    page = signed_in(browser, server, "tann")
    page.goto(f"/club-scenarios/{made['id']}")
    expect(page.locator("#ed-system")).to_contain_text("Back to Barcelona")
    expect(page.locator(".ed-piece").first).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept("Chapel"))
    page.locator("#ed-map svg").click(position={"x": 200, "y": 150})
    expect(page.locator("#ed-map")).to_contain_text("Chapel")
    objectives = server.api("GET", f"/api/club-scenarios/{made['id']}", "tann")["document"][
        "objectives"
    ]
    assert [o["name"] for o in objectives] == ["Chapel"]
    x, y = objectives[0]["point"]
    assert 0 <= x <= 48 and 0 <= y <= 36  # in inches, on the table
    page.get_by_role("button", name="the scenario as a whole is right as it stands").click()
    expect(page.locator("#ed-complete-text")).to_have_text("100% of the placeholders dealt with")
    expect(page.locator("#ed-placeholders li")).to_have_count(0)
    page.screenshot(path=str(shots / "scenario-editor-table-desktop.png"))
    phone = signed_in(browser, server, "tann", viewport=PHONE)
    phone.goto(f"/club-scenarios/{made['id']}")
    expect(phone.locator(".ed-piece").first).to_be_visible()
    phone.screenshot(path=str(shots / "scenario-editor-table-phone.png"))
