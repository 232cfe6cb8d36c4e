"""The scenario editor sets a counter's set-up hex by dragging it onto the map (issue 18: "drag
units onto their set-up hexes"), from the counter sheet or from the set-up palette, as well as by
choosing it and clicking the hex; each drop is one edit, undone by Undo.  Checked through the
draft the API answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in


def test_an_organiser_drags_counters_onto_their_set_up_hexes(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "dann", json={"name": "Drag Club"})
    made = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "dann",
        json={"system": "merida", "base": "merida-1938", "title": "Merida, dragged"},
    )
    sid = made["id"]

    def setup_hex(unit: str) -> Any:
        draft = server.api("GET", f"/api/club-scenarios/{sid}", "dann")["document"]
        found = next(u for u in draft["units"] if u["id"] == unit)
        hex_ = found.get("hex")
        return hex_["value"] if isinstance(hex_, dict) else hex_

    page = signed_in(browser, server, "dann", viewport={"width": 1366, "height": 900})
    page.goto(f"/club-scenarios/{sid}")
    expect(page.locator("#ed-title")).to_have_text("Merida, dragged")
    hex_field = page.locator('tr[data-unit="n-19-div"] [data-field="hex"]')
    expect(hex_field).to_have_value("O10")

    # from the counter sheet: the row's counter onto R16
    # (a person drags with the pointer, the row and the hex both on screen: a tall window here)
    page.set_viewport_size({"width": 1366, "height": 2200})
    row = page.locator('tr[data-unit="n-19-div"] th .ed-drag')
    target = page.locator('[data-hex="R16"] polygon')
    target.scroll_into_view_if_needed()
    row.hover()  # may scroll the page: the hex is measured after
    end = target.bounding_box()
    assert end
    x, y = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    under = "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-hex]')?.dataset.hex"
    assert page.evaluate(under, [x, y]) == "R16"
    page.mouse.down()
    page.mouse.move(x, y, steps=5)
    page.mouse.move(x + 1, y + 1)  # a second move over the hex: its dragover
    page.mouse.up()
    page.set_viewport_size({"width": 1366, "height": 900})
    expect(hex_field).to_have_value("R16")
    assert setup_hex("n-19-div") == "R16"

    # from the set-up palette: the chosen counter onto S16
    page.get_by_label("set a counter's set-up hex").check()
    page.locator("#ed-palette select").select_option("n-19-div")
    page.locator("#ed-palette .ed-drag").drag_to(page.locator('[data-hex="S16"] polygon'))
    expect(hex_field).to_have_value("S16")
    assert setup_hex("n-19-div") == "S16"
    page.screenshot(path=str(shots / "scenario-editor-drag-desktop.png"))

    # each drop is one edit: Undo puts it back where the last drop found it
    page.get_by_role("button", name="Undo").click()
    expect(hex_field).to_have_value("R16")
    assert setup_hex("n-19-div") == "R16"
