"""A club event in the browser (issue 30): one member joins a Swiss from the club's page at
1366x900, another from the event's page on a 390x844 phone; the admin starts it from the event's
page; each player sees the round's pairing and opens the game, under way since it was paired (the
phone's player looks at it, the other resigns); both see the standings."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, on_a_phone, signed_in
from tests.e2e.browser.test_accessibility import _serious
from tests.e2e.browser.test_lifecycle_page import visible_text_is_words

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a Swiss event joined, paired and played"
)

WIDE = {"width": 1366, "height": 900}


def club_with_event(
    server: Server, admin: str, club_name: str, members: tuple[str, ...], name: str, rounds: int
) -> tuple[dict[str, Any], str]:
    """A club of ``admin`` and ``members`` with a Swiss of ``rounds`` open for players: the club
    and the event's id."""
    club = server.api("POST", "/api/clubs", admin, json={"name": club_name})
    for member in members:
        server.user(member)
        server.admit(club["id"], admin, member)
    spec = {"name": name, "format": "swiss", "rounds": rounds}
    event = server.api(
        "POST",
        f"/api/clubs/{club['id']}/events",
        admin,
        json=spec | {"system": "skirmish", "scenario": "meeting"},
    )
    return club, event["id"]


def test_join_see_the_pairing_play_and_see_the_standings(
    browser: Any, server: Server, shots: Path
) -> None:
    club, eid = club_with_event(server, "eann", "Event Club", ("ebob", "ecat"), "Autumn Swiss", 1)
    # ebob finds the event on the club's page and joins it
    bob = signed_in(browser, server, "ebob", WIDE)
    bob.goto(f"/clubs/{club['id']}")
    expect(bob.locator("#club-page[data-ready=true]")).to_have_count(1)
    bob.locator("#events").get_by_role("link", name="Autumn Swiss").click()
    expect(bob.locator("#event-page[data-ready=true]")).to_have_count(1)
    expect(bob.locator("#event-state")).to_have_text("open for players")
    bob.get_by_role("button", name="Join the event").click()
    expect(bob.locator("#event-join")).to_contain_text("You are playing in this event")
    expect(bob.get_by_role("button", name="Start the event")).to_have_count(0)  # not an admin
    # ecat joins on a phone, from the event's page
    cat = signed_in(browser, server, "ecat", PHONE)
    cat.goto(f"/events/{eid}")
    expect(cat.locator("#event-page[data-ready=true]")).to_have_count(1)
    cat.get_by_role("button", name="Join the event").click()
    expect(cat.locator("#event-join")).to_contain_text("You are playing in this event")
    assert cat.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the admin starts it from the event's page
    ann = signed_in(browser, server, "eann", WIDE)
    ann.goto(f"/events/{eid}")
    expect(ann.locator("#event-page[data-ready=true]")).to_have_count(1)
    ann.get_by_role("button", name="Start the event").click()
    expect(ann.locator("#event-state")).to_have_text("being played")
    ann.context.close()
    # ebob sees the round's pairing and opens his game
    bob.reload()
    expect(bob.locator("#event-page[data-ready=true]")).to_have_count(1)
    game = bob.locator('.event-round[data-round="1"] .event-game.mine')
    expect(game).to_contain_text("ebob")
    expect(game).to_contain_text("ecat")
    expect(game).to_contain_text("being played")
    expect(bob.locator('.event-round[data-round="1"]')).to_contain_text("Deadline ")
    bob.screenshot(path=shots / "event-round-1366.png", full_page=True)
    visible_text_is_words(bob)
    # ecat sees the same pairing on the phone and accepts the game there
    cat.reload()
    expect(cat.locator("#event-page[data-ready=true]")).to_have_count(1)
    mine = cat.locator('.event-round[data-round="1"] .event-game.mine')
    expect(mine).to_contain_text("ebob")
    cat.screenshot(path=shots / "event-round-390.png", full_page=True)
    assert cat.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the pairing started the game (joining was the consent): nothing to accept, it is under way
    mine.get_by_role("link").click()
    expect(cat.locator(".game-page[data-ready=true]")).to_have_count(1)
    cat_slot = cat.locator("#lifecycle-slot")
    expect(cat_slot).to_have_attribute("data-status", "active")
    expect(cat.get_by_role("button", name="Accept the invitation")).to_have_count(0)
    game.get_by_role("link").click()
    expect(bob.locator(".game-page[data-ready=true]")).to_have_count(1)
    slot = bob.locator("#lifecycle-slot")
    expect(bob.get_by_role("button", name="Accept the invitation")).to_have_count(0)
    expect(slot.get_by_role("button", name="Resign")).to_be_visible()
    bob.once("dialog", lambda dialog: dialog.accept())
    slot.get_by_role("button", name="Resign").click()
    expect(slot).to_have_attribute("data-status", "ended")
    # the server's worker records the result in the event; the standings show it
    bob.goto(f"/events/{eid}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        expect(bob.locator("#event-page[data-ready=true]")).to_have_count(1)
        if bob.locator("#event-state").text_content() == "finished":
            break
        time.sleep(0.5)
        bob.reload()
    expect(bob.locator("#event-state")).to_have_text("finished")
    first = bob.locator("#event-standings tbody tr").first
    expect(first).to_have_attribute("data-player", "ecat")
    expect(first.locator("td").nth(1)).to_have_text("2")  # rank, then points
    expect(bob.locator('#event-standings tr[data-player="ebob"] .record')).to_have_text("0-0-1")
    expect(bob.locator('.event-round[data-round="1"] .event-game')).to_contain_text("ecat won")
    bob.screenshot(path=shots / "event-standings-1366.png", full_page=True)
    assert _serious(bob) == []  # axe-core: no serious or critical violation
    on_a_phone(bob, "#event-page[data-ready=true]", shots / "event-standings-390.png")
    expect(bob.locator("#event-standings")).to_be_visible()
    assert _serious(bob) == []
    visible_text_is_words(bob)
    bob.context.close()
    # and ecat, on the phone, sees them too
    cat.goto(f"/events/{eid}")
    expect(cat.locator("#event-page[data-ready=true]")).to_have_count(1)
    expect(cat.locator("#event-standings tbody tr").first).to_have_attribute("data-player", "ecat")
    expect(cat.locator('#event-standings tr[data-player="ecat"] .record')).to_have_text("1-0-0")
    cat.context.close()


def test_the_admin_creates_an_event_on_a_phone(browser: Any, server: Server, shots: Path) -> None:
    club = server.api("POST", "/api/clubs", "pann", json={"name": "Phone Club"})
    page = signed_in(browser, server, "pann", {"width": 390, "height": 844})
    page.goto(f"/clubs/{club['id']}")
    expect(page.locator("#club-page[data-ready=true]")).to_have_count(1)
    form = page.locator("#event-form")
    form.get_by_label("Name").fill("Winter round robin")
    form.get_by_label("Format").select_option("double")
    form.get_by_role("button", name="Create the event").click()
    expect(page.locator("#event-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#event-meta")).to_contain_text("Round robin, double")
    expect(page.get_by_role("button", name="Join the event")).to_be_visible()
    page.screenshot(path=shots / "event-open-390.png", full_page=True)
    assert _serious(page) == []  # the admin's controls and the join button too
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.context.close()


def test_a_forfeit_ends_the_game_and_its_page_says_who_decided(
    browser: Any, server: Server, shots: Path
) -> None:
    """The admin releases a Swiss's second round giving a forfeit for the first round's game that
    was never played: the game ends, and its players read on its page and in its log that a club
    arbiter decided it, and who won -- at 1366x900 and on a phone, in words."""
    _, eid = club_with_event(
        server, "fann", "Forfeit Club", ("fbob", "fcat", "fdan"), "Short Swiss", 2
    )
    for name in ("fbob", "fcat", "fdan"):
        server.api("POST", f"/api/events/{eid}/join", name)
    started = server.api("POST", f"/api/events/{eid}/start", "fann")
    game = started["rounds"][0]["games"][0]
    gid, red, blue = game["game"], game["sides"]["red"], game["sides"]["blue"]
    server.api(
        "POST",
        f"/api/events/{eid}/rounds",
        "fann",
        json={
            "results": [
                {"game": gid, "winner": "red", "kind": "forfeit", "note": "blue never accepted"}
            ]
        },
    )
    page = signed_in(browser, server, blue, WIDE)
    page.goto(f"/games/{gid}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    slot = page.locator("#lifecycle-slot")
    expect(slot).to_have_attribute("data-status", "ended")
    expect(slot).to_contain_text(
        f"{blue} (Blue) forfeited (a club arbiter's decision): {red} (Red) wins"
    )
    expect(slot.get_by_role("button", name="Accept the invitation")).to_have_count(0)
    expect(page.locator("#log")).to_contain_text(
        "A club arbiter decided the game after its round's deadline (a forfeit): Red wins"
        " (“blue never accepted”)"
    )
    page.screenshot(path=shots / "event-forfeit-game-1366.png", full_page=True)
    visible_text_is_words(page)
    assert _serious(page) == []
    on_a_phone(page, ".game-page[data-ready=true]", shots / "event-forfeit-game-390.png")
    expect(slot).to_contain_text(f"{blue} (Blue) forfeited (a club arbiter's decision)")
    page.set_viewport_size(WIDE)
    page.goto("/archive")
    expect(page.locator("#ended li").first).to_contain_text(f"{red} (Red) wins by forfeit")
    on_a_phone(page, "#ended", shots / "event-forfeit-archive-390.png")
    visible_text_is_words(page)
    page.context.close()


def test_the_standings_on_a_phone_show_the_record_and_scroll_by_keyboard(
    browser: Any, server: Server, shots: Path
) -> None:
    """Issue 51, finding 12: with Merida's sides (Nationalist, Republican) the standings were wider
    than a 390 px phone: the W-D-L column was cut off, and axe found the scrolling table not
    reachable by keyboard (scrollable-region-focusable)."""
    scenario = next(
        s for s in requests.get(f"{server.url}/api/scenarios").json() if s["system"] == "merida"
    )
    club = server.api("POST", "/api/clubs", "mann", json={"name": "Merida Club"})
    for member in ("mbob", "mcat"):
        server.user(member)
        server.admit(club["id"], "mann", member)
    spec = {"name": "Merida Swiss", "format": "swiss", "rounds": 1}
    event = server.api(
        "POST",
        f"/api/clubs/{club['id']}/events",
        "mann",
        json=spec | {"system": "merida", "scenario": scenario["id"]},
    )
    for member in ("mbob", "mcat"):
        server.api("POST", f"/api/events/{event['id']}/join", member, json={})
    page = signed_in(browser, server, "mbob", PHONE)
    page.goto(f"/events/{event['id']}")
    expect(page.locator("#event-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#event-standings tbody tr")).to_have_count(2)
    record = page.locator('#event-standings tr[data-player="mbob"] .record')
    expect(record).to_have_text("0-0-0")
    box = record.bounding_box()
    assert box and box["x"] + box["width"] <= PHONE["width"]  # in view without scrolling
    wrapper = page.locator("#event-standings").locator("xpath=..")
    assert wrapper.get_attribute("tabindex") == "0"  # a keyboard reaches the scrolling table
    page.screenshot(path=shots / "event-standings-merida-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert _serious(page) == []
    page.context.close()
