"""The rules beside an event (issue 29, item 7), in Chromium at 1366x900 and 390x844: the game's
own sections and charts first, a chart drawn as a table (not a run of words), then the conflicts of
readings, club rulings, and other games' rulings under a heading naming the game; no entry id
anywhere. And the arbiter's citation search in the queue is scoped to the disputed game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import DESKTOP, PHONE, Server, signed_in
from tests.e2e.browser.test_game_page import Merida

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow("Chromium against a server of its own: the rules dialog at two sizes"),
]


@pytest.fixture(scope="module")
def moved(server: Server) -> tuple[Merida, int]:
    """A Merida game after the Nationalists' 1/21 Div moved to Y3, in the guerrilla's zone of
    control at Medellin; the game and the move's event seq."""
    game = Merida(server)
    game.deploy()
    t = next(
        t
        for t in game.actions("franco")["actions"]
        if t["label"].startswith("Move 1/21 Div (tactical)")
    )
    path = next(p for p in t["choose"]["path"]["one_of"] if p[-1] == "Y3")
    done = game.server.command(game.id, "franco", {"type": t["type"], **t["fixed"], "path": path})
    seq = next(e["seq"] for e in done["events"] if e["type"] == "UnitsMoved")
    return game, seq


def test_the_rules_of_a_move_in_order_with_its_charts_as_tables(
    browser: Any, server: Server, moved: tuple[Merida, int], shots: Path
) -> None:
    game, seq = moved
    found = server.read(f"/api/games/{game.id}/events/{seq}/rulings", "franco")
    ids = [e["id"] for e in found["governing"] + found["related"]]
    others = {e["belongs_to"] for e in found["related"] if e["binding"] is False}
    for name, viewport in (("desktop", {**DESKTOP, "width": 1366}), ("phone", PHONE)):
        page = signed_in(browser, server, "franco", viewport)
        page.goto(f"/games/{game.id}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        page.locator(f"#log li[data-seq='{seq}']").get_by_role("button", name="rules").click()
        dialog = page.locator("#rules-dialog")
        groups = dialog.locator("section.rulings-group h3")
        expect(groups.first).to_have_text("Closing the Merida Pocket: sections and charts")
        # the terrain effects chart is a table: its header, and the town's row with the line
        # the book sets under it
        tec = dialog.locator(".entry", has_text="Terrain Effects")
        expect(tec.locator("table thead th").first).to_have_text("Terrain")
        town = tec.locator("tbody tr", has=page.locator("th", has_text="Town"))
        expect(town.locator("td")).to_have_count(2)
        expect(town).to_contain_text("Defenders ignore retreats")
        mountain = tec.locator("tbody tr", has=page.locator("th", has_text="Mountain"))
        expect(mountain.locator("td").last).to_have_text("Defender doubled")
        # the move entered a zone of control: the conflict of readings (rules 5 and 7) next
        headings = groups.all_inner_texts()
        assert headings[1] == "Conflicts of readings", headings
        expect(dialog.locator(".rulings-conflicts .entry").first).to_contain_text("enemy ZOC")
        # other games' rulings last, under a heading naming the game
        last = headings[len(headings) - len(others) :]
        assert sorted(last) == sorted(f"Rulings of another game: {o}" for o in others), headings
        text = dialog.inner_text()
        assert "id:" not in text
        for entry_id in ids:
            assert entry_id not in text, f"the dialog shows the id {entry_id}"
        dialog.screenshot(path=shots / f"rules-dialog-merida-{name}.png")
        page.context.close()


def test_the_arbiters_citation_search_is_scoped_to_the_disputed_game(
    browser: Any, server: Server, moved: tuple[Merida, int], shots: Path
) -> None:
    game, seq = moved
    server.api(
        "POST",
        f"/api/games/{game.id}/disputes",
        "rojo",
        json={"seq": seq, "claim": "The division could not reach Y3."},
    )
    server.grant("marbiter", "arbiter")
    for name, viewport in (("desktop", {**DESKTOP, "width": 1366}), ("phone", PHONE)):
        page = signed_in(browser, server, "marbiter", viewport)
        page.goto("/disputes")
        card = page.locator(".dispute-card").first
        card.get_by_label("Search the rules for the entries your decision rests on").fill(
            "stacking limits"
        )
        results = card.locator(".cite-results .entry")
        expect(results.first).to_contain_text("Closing the Merida Pocket rulebook")
        expect(results.first.get_by_role("button", name="Cite:")).to_be_enabled()
        other = card.locator(".cite-results .entry.scope-other-game").first
        expect(other.get_by_role("button", name="Not citable")).to_be_disabled()
        results.first.get_by_role("button", name="Cite:").click()
        chosen = card.locator(".chosen li").first
        expect(chosen).to_contain_text("Closing the Merida Pocket")
        assert "merida:" not in card.inner_text()
        page.screenshot(path=shots / f"queue-cite-merida-{name}.png", full_page=True)
        page.context.close()
