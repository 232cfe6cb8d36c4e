"""Disputes end to end in three browsers: a player disputes an event citing the rules, a site
arbiter resolves it from the queue (overturn and rebase, citations found by searching inline) and
both players' boards go back live; then the game's audit page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, on_a_phone, signed_in

pytestmark = pytest.mark.slow("Chromium against a server of its own: disputes in three browsers")


def open_game(page: Any, server: Server, game_id: str) -> None:
    page.goto(f"{server.url}/games/{game_id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)


def on(page: Any, unit: str, hex_: str) -> Any:
    return page.locator(f'.stack[data-hex="{hex_}"] .counter[data-unit="{unit}"]')


@pytest.fixture(scope="module")
def disputed(server: Server) -> dict[str, Any]:
    """alice (red) moves r2 to D4 and r1 to C3 and ends the phase; bob will dispute the first move."""
    game = server.create_game({"red": "alice", "blue": "bob"})
    gid = game["id"]
    server.command(gid, "alice", {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    server.command(gid, "alice", {"type": "move", "unit": "r1", "path": ["C3"]})
    server.command(gid, "alice", {"type": "end_phase"})
    server.grant("carol", "arbiter")
    return game


def test_dispute_resolved_by_an_arbiter_rebases_both_boards_live(
    browser: Any, server: Server, disputed: dict[str, Any], shots: Path
) -> None:
    gid = disputed["id"]
    alice = signed_in(browser, server, "alice")
    bob = signed_in(browser, server, "bob")
    for page in (alice, bob):
        open_game(page, server, gid)
    expect(on(alice, "r2", "D4")).to_have_count(1)

    # bob disputes the move, citing an entry found by searching inline
    moved = bob.locator("#log li", has_text="2nd Foot moves from D2 to Crossroads (D4)")
    seq = int(moved.get_attribute("data-seq"))
    moved.get_by_role("button", name="dispute").click()
    bob.get_by_label("What is wrong, in your words").fill("The road does not reach D4 this turn.")
    bob.get_by_label("Search the rules for entries that support your claim").fill("road movement")
    cite = bob.locator(".cite-results .entry button.cite").first
    cited_heading = cite.get_attribute("aria-label").removeprefix("Cite: ")
    cite.click()
    expect(bob.locator(".cite-picker .chosen li")).to_have_count(1)
    bob.screenshot(path=shots / "dispute-form.png")
    bob.get_by_role("button", name="Open the dispute").click()
    expect(bob.locator("#log")).to_contain_text(f"Blue disputed event #{seq}")
    # in words (issue 29, item 9: it read "d1: blue disputed event #7 (UnitMoved)")
    expect(alice.locator("#disputes")).to_contain_text(
        f"Blue disputed event #{seq}: “2nd Foot moves from D2 to Crossroads (D4)"
    )
    expect(alice.locator("#disputes")).not_to_contain_text("UnitMoved")
    expect(alice.locator("#disputes")).to_contain_text("open: waiting for an arbiter")

    # carol, a site arbiter, finds it in her queue with the event in words and the cited entry
    carol = signed_in(browser, server, "carol")
    carol.goto(f"{server.url}/disputes")
    card = carol.locator(".dispute-card", has_text="The road does not reach D4")
    expect(card.locator(".disputed-event")).to_contain_text(
        f"Event #{seq}: 2nd Foot moves from D2 to Crossroads (D4)"
    )
    player_cites = card.get_by_role("region", name="Entries the player cites")
    expect(player_cites.get_by_role("link", name=cited_heading)).to_have_attribute(
        "href", re.compile(r"^/rules/")
    )
    expect(card.locator(".cite-picker .chosen li")).to_have_count(1)  # the arbiter starts from it
    expect(
        card.get_by_role("link", name=f"Board at version {seq} (after the event)")
    ).to_have_attribute("href", f"/games/{gid}?version={seq}")
    expect(card.get_by_label(re.compile("Rebase:"))).to_be_disabled()
    card.get_by_label("Overturn: the event was wrong").check()
    card.get_by_label(re.compile("Rebase:")).check()
    card.get_by_label("Search the rules for the entries your decision rests on").fill(
        "zone of control"
    )
    card.locator(".cite-results .entry button.cite").first.click()
    expect(card.locator(".cite-picker .chosen li")).to_have_count(2)
    card.get_by_label("Note to the players").fill("Two hexes by road only from the road hex.")
    carol.screenshot(path=shots / "queue-resolving.png", full_page=True)
    card.get_by_role("button", name=f"Resolve the dispute of event #{seq}").click()

    # the rebase report: the later move and the end of the phase are replayed and kept
    report = card.locator("table.report")
    expect(report).to_contain_text("move (#")
    expect(report.locator("tr.report-kept")).to_have_count(2)
    expect(card.locator(".resolution-result")).to_contain_text("overturned — rebase")
    carol.screenshot(path=shots / "queue-resolved.png", full_page=True)

    # both players' boards go back by themselves: r2 where it was, r1's later move kept
    for page in (alice, bob):
        expect(on(page, "r2", "D2")).to_have_count(1)
        expect(on(page, "r1", "C3")).to_have_count(1)
        expect(page.locator("#log")).to_contain_text("overturned (rebase)")
        expect(
            page.locator("#log li.retracted", has_text="2nd Foot moves from D2 to Crossroads (D4)")
        ).to_have_count(1)
        expect(page.locator("#disputes")).to_contain_text("overturned")
    alice.screenshot(path=shots / "board-after-rebase.png", full_page=True)

    carol.set_viewport_size(PHONE)
    carol.goto(f"{server.url}/disputes")
    expect(carol.locator("#queue-status")).to_have_text("No open dispute for you to resolve.")
    assert carol.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for page in (alice, bob, carol):
        page.context.close()


def test_the_queue_is_empty_for_players_and_the_home_page_lists_my_disputes(
    browser: Any, server: Server, shots: Path
) -> None:
    game = server.create_game({"red": "hred", "blue": "hblue"})
    server.command(game["id"], "hred", {"type": "move", "unit": "r2", "path": ["D3"]})
    events = server.read(f"/api/games/{game['id']}/events")["events"]
    seq = next(e["seq"] for e in events if e["type"] == "UnitMoved")
    server.api(
        "POST", f"/api/games/{game['id']}/disputes", "hblue", json={"seq": seq, "claim": "no road"}
    )
    server.grant("harbiter", "arbiter")
    red = signed_in(browser, server, "hred")
    red.goto(f"{server.url}/")
    expect(red.locator("#home-disputes li.involved")).to_contain_text("hblue (Blue) disputes event")
    red.goto(f"{server.url}/disputes")
    expect(red.locator("#queue-status")).to_have_text("No open dispute for you to resolve.")
    arbiter = signed_in(browser, server, "harbiter", viewport=PHONE)
    arbiter.goto(f"{server.url}/")
    expect(arbiter.locator("#home-disputes li.to-resolve")).to_contain_text(
        "hblue (Blue) disputes event"
    )
    arbiter.get_by_role("link", name=re.compile("^Resolve: ")).click()
    expect(arbiter.locator(".dispute-card")).to_have_count(1)
    arbiter.screenshot(path=shots / "phone-queue.png", full_page=True)
    assert arbiter.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    red.context.close()
    arbiter.context.close()


def test_the_audit_page(
    browser: Any, server: Server, disputed: dict[str, Any], shots: Path
) -> None:
    gid = disputed["id"]
    version = server.read(f"/api/games/{gid}")["version"]
    page = signed_in(browser, server, "alice")
    page.goto(f"{server.url}/games/{gid}/audit")
    expect(page.locator("#audit-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#verify-result")).to_have_text(
        re.compile(rf"^Intact: all {version} events check out")
    )
    rows = page.locator(".audit-actions tbody tr")
    moved = rows.filter(has_text="Order: move: unit 2nd Foot; path D3 → Crossroads (D4)")
    expect(moved.locator("li.retracted")).to_have_text(
        re.compile(r"2nd Foot moves from D2 to Crossroads \(D4\)")
    )
    expect(rows.filter(has_text="Dispute opened")).to_contain_text("bob")
    page.get_by_label("Side").select_option("blue")
    expect(rows.filter(has_text="Order:")).to_have_count(0)
    expect(rows.first).to_contain_text("Blue")  # the side in words
    start = disputed["version"]  # the game as it started (bob accepted the invitation)
    page.get_by_label("From version").fill(str(start))
    page.get_by_label("To version").fill(str(start + 2))  # r2's move
    page.get_by_role("button", name="Compare").click()
    diff = page.locator("#diff-result")
    expect(diff).to_contain_text(f"from version {start} to {start + 2}")
    expect(diff.locator("tr", has_text="2nd Foot › hex")).to_contain_text("D2")
    expect(diff.locator("tr", has_text="2nd Foot › hex")).to_contain_text("D4")
    expect(page.locator("#dispute-list")).to_contain_text("overturned")
    page.screenshot(path=shots / "audit.png", full_page=True)
    # the rebase report's table scrolls inside its card: the page itself never scrolls sideways
    on_a_phone(page, "#audit-page[data-ready=true]", shots / "phone-audit.png")
    page.context.close()
