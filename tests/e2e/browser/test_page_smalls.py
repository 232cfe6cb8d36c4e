"""Issue 29, item 9's smaller things, each in Chromium: side names as labels (capitalised, not the
ids the API sends), the town and city marks on the map (not a bare "t" or "c"), the Actions box
saying that its buttons act at once, and the rules page's document filter listing every rulebook
by its title (it listed ids, and only those some result had named: never Barcelona)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import DESKTOP, PHONE, Server, signed_in
from tests.e2e.browser.test_game_page import Merida

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow(
        "Chromium against a server of its own: a Merida game read for its smaller things"
    ),
]


@pytest.fixture(scope="module")
def merida(server: Server) -> Merida:
    game = Merida(server)
    game.deploy()
    # the units out of command move (rule 10), so that ending the phase is offered
    for _ in range(10):
        acts = game.actions("franco")
        must = [b for b in acts["blocked"] if "must move" in b["reason"]]
        if not must:
            break
        unit = must[0]["reason"].split(" is out of command")[0]
        t = next(t for t in acts["actions"] if t["label"].startswith(f"Move {unit} ("))
        game.send("franco", t)
    return game


def test_sides_marks_and_one_click_actions_on_the_game_page(
    browser: Any, server: Server, merida: Merida, shots: Path
) -> None:
    page = signed_in(browser, server, "franco", {**DESKTOP, "width": 1366})
    page.goto(f"/games/{merida.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    # sides as labels: "Nationalist (franco) to act · you play Nationalist"
    turn = page.locator("#turn")
    expect(turn).to_contain_text("Nationalist (franco) to act")
    expect(turn).to_contain_text("you play Nationalist")
    assert "nationalist" not in turn.inner_text()
    expect(page.locator("#log")).to_contain_text("rojo (Republican)")
    page.locator('#selection button[data-unit="n-1-21-div"]').click()
    expect(page.locator("#selection")).to_contain_text("(Nationalist infantry; strength 4)")
    # the town and city marks: the map's conventions, explained in the legend, never one letter
    town = page.locator(".hex-feature", has=page.locator("title", has_text=re.compile("^town$")))
    expect(town.first).to_contain_text("⌂")
    marks = page.locator("#legend [aria-label='Map marks'] li")
    expect(marks.filter(has_text="Town").locator(".mark-letter")).to_have_text("⌂")
    expect(marks.filter(has_text="City").locator(".mark-letter")).to_have_text("▣")
    for text in page.locator(".hex-feature").all_text_contents():
        assert not re.fullmatch(r"[a-z]+", text.strip()), text
    # place labels read as the map's towns: the set-up table's Guarena (AA3) reads "Guarena", and
    # its title says which table puts the town where (never "Guarena (Set up table)")
    labels = page.locator(".places .place text").all_text_contents()
    assert labels.count("Guarena") == 2 and not [t for t in labels if "(" in t], labels
    guarena = page.locator(".places .place-set-up", has=page.locator("text", has_text="Guarena"))
    expect(guarena.locator("title")).to_contain_text("Victory Point table at M3")
    # "End the movement phase" acts on one click: the Actions box says so
    page.locator("#selection").get_by_role("button", name="Cancel").click()
    actions = page.locator("#actions-box")
    expect(actions.locator(".acts-note")).to_contain_text("acts at once")
    page.screenshot(path=shots / "smalls-game-1366.png")
    page.set_viewport_size(PHONE)
    page.screenshot(path=shots / "smalls-game-390.png")
    page.context.close()


def test_the_rules_page_lists_every_rulebook_by_title(
    browser: Any, server: Server, shots: Path
) -> None:
    for name, viewport in (("1366", {**DESKTOP, "width": 1366}), ("390", PHONE)):
        page = browser.new_page(base_url=server.url, viewport=viewport)
        page.goto("/rules")
        options = page.locator("#document option")
        expect(options.filter(has_text="Back to Barcelona rulebook")).to_have_count(1)
        texts = options.all_text_contents()
        for title in (
            "Closing the Merida Pocket rulebook",
            "Operation Backbone rulebook",
            "For Whom the Bell Tolls FAQ",
            "Club rulings",
        ):
            assert title in texts, texts
        assert not [t for t in texts if re.fullmatch(r"[a-z0-9:-]+", t)], texts
        # choosing one searches that document only
        page.locator("#document").select_option(label="Back to Barcelona rulebook")
        page.get_by_label("Search the rulebooks and rulings").fill("morale")
        first = page.locator("#results .entry").first
        expect(first).to_contain_text("Back to Barcelona")
        assert "id:" not in page.locator("#results").inner_text()
        # its troop chart is a table, each troop one row under its column's heading
        troops = page.locator("#results .entry", has_text="Troop Type").locator("table")
        expect(troops.locator("thead th").last).to_have_text("Points")
        carlists = troops.locator("tbody tr", has=page.locator("th", has_text="Carlists"))
        expect(carlists.locator("td")).to_have_text(["", "3/4", "2", "5/6"])
        page.screenshot(path=shots / f"rules-page-{name}.png", full_page=True)
        # the chart's own page draws it as the same table, and names no document by its id
        page.locator("#results .entry", has_text="Troop Type").get_by_role("link").first.click()
        expect(page.locator("#entry h1")).to_have_text("Troop Type")
        expect(page.locator("#entry table thead th").last).to_have_text("Points")
        (shots / f"entry-{name}.txt").write_text(page.locator("#entry").inner_text())
        assert "barcelona" not in page.locator("#entry").inner_text()
        page.screenshot(path=shots / f"rules-entry-{name}.png", full_page=True)
        page.close()


def test_backbone_placeholder_notes_in_words_and_counters_legible_on_load(
    browser: Any, server: Server, shots: Path
) -> None:
    """Backbone's placeholder map: the legend's notes say what each is about, not the field's
    path ("map.terrain", "map.entries[0].hexes"); and the board opens at a zoom where counters
    show their values (it fitted the whole map: one letter a counter, no strength)."""
    sides = {"allied": "pally", "spanish": "pspan"}
    for name in sides.values():
        server.user(name)
    game = server.api(
        "POST",
        "/api/games",
        "pally",
        json={"system": "backbone", "scenario": "scenario-1", "sides": sides},
    )
    server.accept(game["id"], "pspan")
    page = signed_in(browser, server, "pally", {**DESKTOP, "width": 1366})
    page.goto(f"/games/{game['id']}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    notes = page.locator(".placeholder-map li")
    expect(notes.first).to_be_attached()
    texts = notes.all_inner_texts()
    assert not [t for t in texts if re.match(r"map\.|\w+\[\d+\]", t)], texts
    assert any(t.startswith("Terrain: ") for t in texts), texts
    page.locator(".placeholder-map").screenshot(path=shots / "placeholder-notes-1366.png")
    # at the zoom the page opens at, a counter shows its type and values, not one letter
    for viewport, name in (({**DESKTOP, "width": 1366}, "1366"), (PHONE, "390")):
        page.set_viewport_size(viewport)
        page.reload()
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        board = page.locator("#board")
        assert float(board.get_attribute("data-zoom") or 0) >= 0.55, board.get_attribute(
            "data-zoom"
        )
        values = page.locator(".counter .counter-values").first
        expect(values).to_be_visible()
        assert (values.text_content() or "").strip()
        page.screenshot(path=shots / f"backbone-opening-{name}.png")
    page.context.close()
