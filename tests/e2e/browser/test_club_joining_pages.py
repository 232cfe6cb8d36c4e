"""Clubs people can join and club games whose disputes someone can decide (issue 29, items 1 and
8), in Chromium against a real server: an admin appoints (and removes) an arbiter on the club page,
a member is invited and accepts, a non-member asks to join and an admin approves, a club game is
started from the home page, and its dispute panel says who can rule and lets the two players
settle it by agreement.

Before: the club page had no "How to join", no "Arbiters" and no invitation or request; the home
page's "Start a game" had no club; the dispute panel said nothing of who rules."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: clubs joined and disputes decided by appointed members"
)

WIDE = {"width": 1366, "height": 900}


def fits(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def both_sizes(page: Any, ready: str, shots: Path, name: str) -> None:
    """Screenshots at 1366x900 and 390x844 (the page reloaded), neither scrolling sideways; the
    page is left at 1366x900."""
    for size, tag in ((WIDE, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.reload()
        expect(page.locator(ready)).to_have_count(1)
        page.screenshot(path=str(shots / f"{name}-{tag}.png"), full_page=True)
        fits(page)
    page.set_viewport_size(WIDE)
    page.reload()
    expect(page.locator(ready)).to_have_count(1)


def told(server: Server, user: str, text: str) -> None:
    """``user`` has a notification containing ``text`` (the server's worker derives it)."""
    deadline = time.monotonic() + 20
    seen: list[str] = []
    while time.monotonic() < deadline:
        body = server.api("GET", "/api/me/notifications", user)
        seen = [n["text"] for n in body["notifications"]]
        if any(text in t for t in seen):
            return
        time.sleep(0.2)
    raise AssertionError(f"{user} was not told {text!r}: {seen}")


def test_an_admin_appoints_and_removes_arbiters(browser: Any, server: Server, shots: Path) -> None:
    club = server.api("POST", "/api/clubs", "jadmin", json={"name": "Arbiters Club"})
    server.user("jmember")
    server.user("jneutral")
    server.admit(club["id"], "jadmin", "jmember")
    page = signed_in(browser, server, "jadmin", viewport=WIDE)
    page.goto(f"/clubs/{club['id']}")
    expect(page.locator("#club-page[data-ready=true]")).to_have_count(1)
    arbiters = page.locator("#arbiters li")
    expect(arbiters).to_have_text(["jadmin remove as arbiter"])
    form = page.locator("#arbiter-form")
    form.get_by_label("Username").fill("jmember")  # a member: appointed at once
    form.get_by_role("button", name="Appoint").click()
    expect(page.locator("#toast")).to_have_text("jmember is an arbiter of the club")
    expect(page.locator('#arbiters li[data-arbiter="jmember"]')).to_have_count(1)
    expect(page.get_by_label("jmember is arbiter")).to_be_checked()
    form.get_by_label("Username").fill("jneutral")  # not a member: invited as an arbiter only
    form.get_by_role("button", name="Appoint").click()
    expect(page.locator("#toast")).to_contain_text("jneutral is invited as an arbiter")
    expect(page.locator('#invitations li[data-invitation="jneutral"]')).to_contain_text(
        "jneutral as arbiter (invited by jadmin)"
    )
    both_sizes(page, "#club-page[data-ready=true]", shots, "club-arbiters")
    page.get_by_role("button", name="Remove jmember as arbiter").click()
    expect(page.locator('#arbiters li[data-arbiter="jmember"]')).to_have_count(0)
    roles = {
        m["username"]: m["roles"]
        for m in requests.get(f"{server.url}/api/clubs/{club['id']}").json()["members"]
    }
    assert roles["jmember"] == ["player"]
    # the neutral arbiter accepts on the club's page: an arbiter, not a player
    neutral = signed_in(browser, server, "jneutral", viewport=WIDE)
    neutral.goto(f"/clubs/{club['id']}")
    expect(neutral.locator("#join")).to_contain_text(
        "jadmin invites you to join Arbiters Club as arbiter."
    )
    neutral.get_by_role("button", name="Accept the invitation").click()
    expect(neutral.locator("#join")).to_have_text("You are a member of Arbiters Club: arbiter.")
    expect(neutral.locator('#arbiters li[data-arbiter="jneutral"]')).to_have_count(1)
    page.context.close()
    neutral.context.close()


def test_an_invited_user_is_told_and_accepts(browser: Any, server: Server, shots: Path) -> None:
    club = server.api("POST", "/api/clubs", "kadmin", json={"name": "Invite Club"})
    server.user("kguest")
    page = signed_in(browser, server, "kadmin", viewport=WIDE)
    page.goto(f"/clubs/{club['id']}")
    expect(page.locator("#club-page[data-ready=true]")).to_have_count(1)
    form = page.locator("#member-form")
    form.get_by_label("Username").fill("kguest")
    form.get_by_role("button", name="Invite").click()
    expect(page.locator("#toast")).to_contain_text("kguest is invited")
    expect(page.locator('#invitations li[data-invitation="kguest"]')).to_have_count(1)
    expect(page.locator('#members tr[data-member="kguest"]')).to_have_count(0)  # not yet
    told(server, "kguest", "kadmin invites you to join the club “Invite Club” as player")

    guest = signed_in(browser, server, "kguest", viewport=WIDE)
    guest.goto("/")  # the home page lists it, with the club's page a click away
    expect(guest.locator("#home-club-invitations li")).to_have_text(
        ["Invite Club · kadmin invites you as player Join Decline"]
    )
    both_sizes(guest, "body[data-ready=true]", shots, "home-club-invitation")
    guest.get_by_role("link", name="Invite Club").click()
    expect(guest.locator("#club-page[data-ready=true]")).to_have_count(1)
    expect(guest.locator("#join")).to_contain_text(
        "kadmin invites you to join Invite Club as player."
    )
    both_sizes(guest, "#club-page[data-ready=true]", shots, "club-invited")
    guest.get_by_role("button", name="Accept the invitation").click()
    expect(guest.locator("#toast")).to_have_text("You joined Invite Club")
    expect(guest.locator("#join")).to_have_text("You are a member of Invite Club: player.")
    expect(guest.locator('#members tr[data-member="kguest"]')).to_have_count(1)
    told(server, "kadmin", "kguest accepted the invitation to join “Invite Club”.")
    page.context.close()
    guest.context.close()


def test_a_non_member_asks_to_join_and_an_admin_approves(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "radmin", json={"name": "Request Club"})
    visitor = browser.new_context(viewport=WIDE, base_url=server.url).new_page()
    visitor.goto(f"/clubs/{club['id']}")
    expect(visitor.locator("#join")).to_contain_text("Sign in to ask to join")
    visitor.context.close()

    asker = signed_in(browser, server, "rasker", viewport=WIDE)
    asker.goto(f"/clubs/{club['id']}")
    expect(asker.locator("#club-page[data-ready=true]")).to_have_count(1)
    expect(asker.locator("#join")).to_contain_text("Ask to join: the club's admins are told")
    both_sizes(asker, "#club-page[data-ready=true]", shots, "club-how-to-join")
    asker.get_by_role("button", name="Ask to join").click()
    expect(asker.locator("#join")).to_contain_text("You asked to join")
    told(server, "radmin", "rasker asks to join the club “Request Club”.")

    admin = signed_in(browser, server, "radmin", viewport=WIDE)
    admin.goto(f"/clubs/{club['id']}")
    expect(admin.locator('#requests li[data-request="rasker"]')).to_have_count(1)
    both_sizes(admin, "#club-page[data-ready=true]", shots, "club-admin-requests")
    admin.get_by_role("button", name="Approve rasker").click()
    expect(admin.locator("#toast")).to_have_text("rasker joined the club")
    expect(admin.locator('#members tr[data-member="rasker"]')).to_have_count(1)
    expect(admin.locator("#requests")).to_have_text("Nobody is asking to join.")
    told(server, "rasker", "radmin approved your request to join the club “Request Club”.")
    asker.reload()
    expect(asker.locator("#join")).to_have_text("You are a member of Request Club: player.")
    asker.context.close()
    admin.context.close()


def test_a_club_game_from_the_home_page_and_a_dispute_settled_by_agreement(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "gann", json={"name": "Pair Club"})
    server.user("gbob")
    server.admit(club["id"], "gann", "gbob")
    ann = signed_in(browser, server, "gann", viewport=WIDE)
    ann.goto("/")
    expect(ann.locator("body[data-ready=true]")).to_have_count(1)
    form = ann.locator("#create-form")
    expect(form.get_by_label("Club")).to_have_value(club["id"])  # my only club, chosen already
    form.get_by_label("Rules system").select_option("skirmish")
    form.locator('[name="side:red"]').fill("gann")
    form.locator('[name="side:blue"]').fill("gbob")
    form.scroll_into_view_if_needed()
    ann.screenshot(path=str(shots / "home-start-club-game-desktop.png"), full_page=True)
    form.get_by_role("button", name="Start the game").click()
    ann.wait_for_url("**/games/*")
    gid = ann.url.rstrip("/").rsplit("/", 1)[1]
    game = server.api("GET", f"/api/games/{gid}", "gann")
    assert game["labels"]["club"] == club["id"]
    server.accept(gid, "gbob")
    server.command(gid, "gann", {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    seq = server.read(f"/api/games/{gid}", "gann")["version"]
    server.api("POST", f"/api/games/{gid}/disputes", "gbob", json={"seq": seq, "claim": "too far"})

    ann.goto(f"/games/{gid}")
    panel = ann.locator("#dispute-ruling")
    expect(panel).to_contain_text("Nobody can rule yet: every arbiter of Pair Club plays this game")
    expect(panel.get_by_role("link", name="Pair Club's page")).to_have_attribute(
        "href", f"/clubs/{club['id']}#arbiters-title"
    )
    panel.get_by_label("Why (optional)", exact=False).fill("my mistake: the wood costs 2")
    panel.get_by_role("button", name="Propose: the event was wrong").click()
    expect(panel).to_contain_text("Red proposes: the event was wrong")
    expect(panel).to_contain_text("Waiting for the other side to accept it")

    bob = signed_in(browser, server, "gbob", viewport=WIDE)
    bob.goto(f"/games/{gid}")
    bpanel = bob.locator("#dispute-ruling")
    expect(bpanel).to_contain_text("Red proposes: the event was wrong")
    for size, tag in ((WIDE, "desktop"), (PHONE, "phone")):
        bob.set_viewport_size(size)
        bob.locator("#disputes-box").scroll_into_view_if_needed()
        bob.screenshot(path=str(shots / f"game-dispute-agreement-{tag}.png"), full_page=True)
        bob.locator("#disputes-box").screenshot(path=str(shots / f"game-disputes-box-{tag}.png"))
        fits(bob)
    bob.set_viewport_size(WIDE)
    bpanel.get_by_role("button", name="Accept this verdict").click()
    expect(bob.locator("#disputes")).to_contain_text("overturned by both players' agreement")
    expect(bpanel).to_be_empty()
    disputes = server.api("GET", f"/api/games/{gid}/disputes", "gann")
    assert disputes[0]["resolution"]["agreed_by"] == ["gann", "gbob"]
    # the audit says how it was settled, in words
    bob.goto(f"/games/{gid}/audit")
    expect(bob.locator("#dispute-list")).to_contain_text(
        "Settled by both players' agreement (gann and gbob), with no arbiter: overturned — "
        "“my mistake: the wood costs 2”."
    )
    both_sizes(bob, "#audit-page[data-ready=true]", shots, "audit-agreed")
    ann.context.close()
    bob.context.close()
