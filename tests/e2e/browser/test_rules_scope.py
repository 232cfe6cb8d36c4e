"""Issue 15 in the browser: the dispute citation picker searches scoped to the game's rulebook,
labels each result's source and offers no "Cite" for another game's rulebook; the rules page's
Game filter does the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import DESKTOP, PHONE, Server, signed_in
from tests.support.api import every

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: the citation picker and rules dialog of two games"
)


def merida_game(server: Server) -> tuple[dict[str, Any], str]:
    sides = {"nationalist": "mnat", "republican": "mrep"}
    for name in sides.values():
        server.user(name)
    r = requests.post(
        server.url + "/api/games",
        json={"system": "merida", "scenario": "merida-1938", "sides": sides},
        headers=server.user("mnat"),
    )
    assert r.status_code == 201, r.text
    game = r.json()
    server.accept(game["id"], "mrep")  # the named opponent accepts the invitation
    side = server.read(f"/api/games/{game['id']}")["active_sides"][0]
    listed = requests.get(
        f"{server.url}/api/games/{game['id']}/actions",
        params={"side": side},
        headers=server.user(sides[side]),
    ).json()["actions"]
    command = every(listed[0])  # the first order offered, the first choice of each field
    server.command(game["id"], sides[side], command)
    return game, "mrep" if side == "nationalist" else "mnat"


def test_the_citation_picker_is_scoped_to_the_game(
    browser: Any, server: Server, shots: Path
) -> None:
    game, player = merida_game(server)
    for name, viewport in (("desktop", {**DESKTOP, "width": 1366}), ("phone", PHONE)):
        page = signed_in(browser, server, player, viewport)
        page.goto(f"{server.url}/games/{game['id']}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        page.locator("#log li.event").first.get_by_role("button", name="Dispute event").click()
        picker = page.locator(".cite-picker")
        picker.get_by_role("searchbox").press_sequentially("stacking limits")
        results = picker.locator(".cite-results .entry")
        expect(results.first).to_contain_text("Closing the Merida Pocket rulebook")
        expect(results.first.get_by_role("button", name="Cite:")).to_be_enabled()
        other = picker.locator(".cite-results .entry.scope-other-game").first
        expect(other).to_contain_text("(another game)")
        expect(other.get_by_role("button", name="Not citable")).to_be_disabled()
        page.screenshot(path=shots / f"cite-picker-{name}.png", full_page=True)
        other.scroll_into_view_if_needed()
        page.locator("#rules-dialog").screenshot(path=shots / f"cite-picker-other-{name}.png")
        page.context.close()


def test_the_rules_page_game_filter(browser: Any, server: Server, shots: Path) -> None:
    for name, viewport in (("desktop", {**DESKTOP, "width": 1366}), ("phone", PHONE)):
        page = browser.new_page(base_url=server.url, viewport=viewport)
        page.goto("/rules?game=backbone&q=retreat")
        expect(page.locator("#results .entry").first).to_contain_text("Operation Backbone rulebook")
        expect(page.locator("#game")).to_have_value("backbone")
        page.screenshot(path=shots / f"rules-game-{name}.png", full_page=True)
        page.close()


def backbone_event_with_another_games_rulings(server: Server) -> tuple[dict[str, Any], int, str]:
    """A Backbone game played by its first listed orders until an event's rulings include one of
    For Whom the Bell Tolls's FAQ (by word similarity); the game, the event's seq and a player."""
    sides = {"allied": "bally", "spanish": "bspan"}
    for name in sides.values():
        server.user(name)
    r = requests.post(
        server.url + "/api/games",
        json={"system": "backbone", "scenario": "scenario-1", "sides": sides},
        headers=server.user("bally"),
    )
    assert r.status_code == 201, r.text
    game = r.json()
    server.accept(game["id"], "bspan")
    for _ in range(120):
        side = server.read(f"/api/games/{game['id']}")["active_sides"][0]
        listed = requests.get(
            f"{server.url}/api/games/{game['id']}/actions",
            params={"side": side},
            headers=server.user(sides[side]),
        ).json()["actions"]
        # the first order offered, its first choices: a pick of several takes as many as it may
        # (all options could be more: Tunisia takes exactly two battalions, 10.2)
        command = every(listed[0])
        for event in server.command(game["id"], sides[side], command)["events"]:
            rulings = server.read(f"/api/games/{game['id']}/events/{event['seq']}/rulings")
            if any(r["binding"] is False for r in rulings["related"]):
                return game, event["seq"], "bally"
    raise AssertionError("no event related another game's rulings")


def test_the_rules_dialog_labels_another_games_rulings(
    browser: Any, server: Server, shots: Path
) -> None:
    """Issue 33: beside an event, For Whom the Bell Tolls's FAQ rulings are labelled with that
    game, in words, as persuasive, not binding; this game's sections are not."""
    game, seq, player = backbone_event_with_another_games_rulings(server)
    expected = server.read(f"/api/games/{game['id']}/events/{seq}/rulings")
    others = [r for r in expected["related"] if r["binding"] is False]
    for name, viewport in (("desktop", {**DESKTOP, "width": 1366}), ("phone", PHONE)):
        page = signed_in(browser, server, player, viewport)
        page.goto(f"{server.url}/games/{game['id']}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        page.locator(f"#log li[data-seq='{seq}']").get_by_role("button", name="rules").click()
        dialog = page.locator("#rules-dialog")
        # under a heading naming the game, after this game's own sections (issue 29, item 7)
        related = dialog.locator("section.rulings-other-game")
        expect(related.locator("h3")).to_have_text(
            "Rulings of another game: For Whom the Bell Tolls"
        )
        expect(related).to_contain_text("persuasive at most, never binding here")
        labelled = related.locator(".entry.persuasive")
        expect(labelled).to_have_count(len(others))
        expect(labelled.first).to_contain_text(others[0]["heading"])
        expect(labelled.first.locator(".source-label")).to_have_text(
            "For Whom the Bell Tolls FAQ — another game's ruling: persuasive, not binding "
            "in Operation Backbone"
        )
        # the label and the line under the title in words: the game's title, not a document id
        expect(labelled.first.locator("span.meta")).not_to_contain_text("fwtbt")
        governing = dialog.locator("section.rulings-own .entry")
        expect(governing.first.locator(".source-label")).to_have_text("Operation Backbone rulebook")
        page.screenshot(path=shots / f"rules-dialog-other-game-{name}.png", full_page=True)
        page.context.close()


def test_the_rules_page_lists_the_conflicts_with_their_game_options(
    browser: Any, server: Server, shots: Path
) -> None:
    """Issue 33: the kind "conflict" with nothing typed lists the readings the games settle in the
    open, each with its passages and the game option giving the other reading."""
    page = browser.new_page(base_url=server.url, viewport={**DESKTOP, "width": 1366})
    page.goto("/rules?kind=conflict")
    listed = page.locator("#results .entry.conflict")
    expected = requests.get(f"{server.url}/api/rules/search", params={"kind": "conflict"}).json()
    expect(listed).to_have_count(len(expected["results"]))
    for heading, option, choices in (
        ("the Legion take the first loss", "legion_first_loss", "ability_used or always"),
        (
            "euphoria doubles the morale difference",
            "euphoria_doubling",
            "any_difference or in_its_favour",
        ),
        ("holding instead of retreating", "hold_check", "each_unit or whole_stack"),
        ("once per turn", "combat_once_per", "player_turn or game_turn"),
    ):
        item = listed.filter(has_text=heading)
        expect(item).to_have_count(1)
        expect(item.locator(f"[data-option='{option}']")).to_contain_text(choices)
        expect(item.locator(".readings li").first).to_contain_text("“")
    page.locator("#game").select_option("bizkaya")
    expect(listed).to_have_count(4)
    page.screenshot(path=shots / "rules-conflicts.png", full_page=True)
    page.close()
