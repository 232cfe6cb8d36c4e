"""The club pages a page at a time in Chromium: 51 clubs show as the first 50 by name and a
"More clubs" button, which appends the last and goes away (``GET /api/clubs`` pages by
``X-Next-Cursor``); a club of 51 members shows 50 in the order they joined and "More members";
an admin (told by the club's ``viewer_roles``, not by finding themself among the members) still
manages a member of the second page; a ladder's 51 challenges show as 50, newest first, and
"More challenges"."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: 51 clubs and a club's members a page at a time"
)

MANY = 51  # one more than a page


def test_the_clubs_page_shows_a_page_then_more(browser: Any, server: Server) -> None:
    names = [f"Club {n:02d} of the Mill" for n in range(MANY, 0, -1)]  # made in reverse order
    for n, name in enumerate(names):  # a founder founds at most 5 (ARBITER_CLUBS_PER_USER)
        server.api("POST", "/api/clubs", f"cfounder{n // 5}", json={"name": name})
    page = signed_in(browser, server, "cvisitor")
    page.goto(f"{server.url}/clubs")
    items = page.locator("#clubs li")
    expect(items).to_have_count(50)
    more = page.get_by_role("button", name="More clubs")
    expect(more).to_be_visible()
    more.click()
    expect(items).to_have_count(MANY)
    expect(more).to_be_hidden()
    assert items.all_inner_texts() == sorted(names)  # by name, each once
    page.context.close()


def test_a_clubs_members_page_then_more_and_an_admin_manages_the_last(
    browser: Any, server: Server
) -> None:
    club = server.api("POST", "/api/clubs", "madmin", json={"name": "Members Club"})
    joined = ["madmin"]
    for n in range(1, MANY):
        name = f"m{n:02d}"
        server.user(name)
        server.admit(club["id"], "madmin", name)
        joined.append(name)
    page = signed_in(browser, server, "madmin")
    page.goto(f"{server.url}/clubs/{club['id']}")
    rows = page.locator("#members tbody tr")
    expect(rows).to_have_count(50)
    expect(page.locator("#members-count")).to_have_text("51 members, in the order they joined.")
    expect(page.locator("#member-form")).to_be_visible()  # an admin, though not of this page
    more = page.get_by_role("button", name="More members")
    more.click()
    expect(rows).to_have_count(MANY)
    expect(more).to_be_hidden()
    assert [r.get_attribute("data-member") for r in rows.all()] == joined
    page.get_by_label(f"{joined[-1]} is arbiter").check()
    expect(page.get_by_text(f"{joined[-1]}: arbiter granted")).to_be_visible()
    members = server.api("GET", f"/api/clubs/{club['id']}/members?limit=100", "madmin")
    assert members[-1]["username"] == joined[-1] and "arbiter" in members[-1]["roles"]
    page.context.close()


def test_a_ladders_challenges_show_a_page_then_more(browser: Any, server: Server) -> None:
    club = server.api("POST", "/api/clubs", "ladmin", json={"name": "Challenge Club"})
    for name in ("lhigh", "llow"):
        server.user(name)
        server.admit(club["id"], "ladmin", name)
    ladder = server.api(
        "POST",
        f"/api/clubs/{club['id']}/ladders",
        "ladmin",
        json={"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"},
    )
    for name in ("lhigh", "llow"):
        server.api("POST", f"/api/ladders/{ladder['id']}/players", name)
    board = server.api("GET", f"/api/ladders/{ladder['id']}/standings", "ladmin")["standings"]
    low, high = board[-1]["username"], board[0]["username"]
    issued = []
    for _ in range(MANY):
        challenge = server.api(
            "POST", f"/api/ladders/{ladder['id']}/challenges", low, json={"opponent": high}
        )
        server.api("POST", f"/api/challenges/{challenge['id']}/decline", high, json={})
        issued.append(challenge["id"])
    page = signed_in(browser, server, "ladmin")
    page.goto(f"{server.url}/ladders/{ladder['id']}")
    items = page.locator("#challenges li")
    expect(items).to_have_count(50)
    more = page.get_by_role("button", name="More challenges")
    more.click()
    expect(items).to_have_count(MANY)
    expect(more).to_be_hidden()
    shown = [i.get_attribute("data-challenge") for i in items.all()]
    assert shown == issued[::-1]  # newest first, each once
    page.context.close()
