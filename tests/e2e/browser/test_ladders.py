"""Clubs, ladders and campaigns in the browser: a challenge issued and accepted (the game opens),
the standings moving live on another player's ladder page when that game ends, the rating-history
chart, a face-to-face result confirmed, club roles managed by an admin, and a campaign's page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a challenge played and the standings moving live"
)

PLAYERS = ("lbob", "lcat")


@pytest.fixture(scope="module")
def club(server: Server) -> dict[str, Any]:
    club = server.api("POST", "/api/clubs", "lann", json={"name": "Mill Club"})
    for name in PLAYERS:
        server.user(name)
        server.admit(club["id"], "lann", name)
    ladder = server.api(
        "POST",
        f"/api/clubs/{club['id']}/ladders",
        "lann",
        json={"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"},
    )
    for name in ("lann", *PLAYERS):
        server.api("POST", f"/api/ladders/{ladder['id']}/players", name)
    return {"club": club, "ladder": ladder}


def ranked(server: Server, ladder_id: str) -> list[str]:
    rows = requests.get(f"{server.url}/api/ladders/{ladder_id}/standings").json()["standings"]
    return [r["username"] for r in rows]


def open_ladder(page: Any, server: Server, ladder_id: str) -> None:
    page.goto(f"{server.url}/ladders/{ladder_id}")
    expect(page.locator("#ladder-page[data-ready=true]")).to_have_count(1)


def test_challenge_accepted_and_the_standings_move_live(
    browser: Any, server: Server, club: dict[str, Any], shots: Path
) -> None:
    lid = club["ladder"]["id"]
    order = ranked(server, lid)
    low, above = order[-1], order[-2]
    challenger = signed_in(browser, server, low)
    open_ladder(challenger, server, lid)
    form = challenger.locator("#challenge-form")
    form.get_by_label("Opponent").select_option(above)
    form.get_by_label("Your side").select_option("red")
    expect(form.get_by_label("Game options as JSON")).to_have_count(0)  # the scenario's own instead
    form.get_by_text("Options (optional rules, length, forces)").click()
    form.get_by_label("Turns").fill("1")
    form.get_by_role("button", name="Issue the challenge").click()
    item = challenger.locator(".challenge", has_text=f"{low} challenges {above}")
    expect(item.locator(".status")).to_have_text("open")
    expect(item.locator(".challenge-options")).to_have_text("options: turns: 1")  # what is accepted

    watcher = signed_in(browser, server, order[0])  # watches the ladder while the game is played
    open_ladder(watcher, server, lid)
    expect(watcher.locator("#ladder-page[data-live=open]")).to_have_count(1)
    expect(watcher.locator(f'#standings tr[data-player="{low}"] td').first).to_have_text("3")

    opponent = signed_in(browser, server, above)
    open_ladder(opponent, server, lid)
    opponent.locator(".challenge", has_text=f"{low} challenges {above}").get_by_role(
        "button", name="Accept and start the game"
    ).click()
    expect(opponent).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    expect(opponent.locator(".game-page[data-ready=true]")).to_have_count(1)
    game_id = opponent.url.rsplit("/", 1)[1]

    # one turn: red (the challenger) takes the Crossroads, then every phase ends: red wins
    server.command(game_id, low, {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    for user in (low, low, above, above):
        server.command(game_id, user, {"type": "end_phase"})
    row = watcher.locator(f'#standings tr[data-player="{low}"]')
    expect(row.locator(".record")).to_have_text("1–0–0", timeout=20_000)
    expect(row.locator("td").first).to_have_text("1")
    expect(row).to_have_class(re.compile("changed"))
    expect(watcher.locator(f'#standings tr[data-player="{above}"] .record')).to_have_text("0–0–1")
    expect(watcher.locator("#recent")).to_contain_text(f"{low} won")
    expect(watcher.locator("#standings-note")).to_contain_text("Updated just now")

    watcher.get_by_role("button", name=f"Rating history of {low}").click()
    chart = watcher.locator("#chart svg.rating-chart")
    expect(chart).to_have_attribute("data-points", "1")
    expect(chart).to_have_attribute(
        "aria-label", re.compile(rf"^{low}: rating 1\d\d\d .*provisional")
    )
    watcher.screenshot(path=shots / "ladder-live.png", full_page=True)
    watcher.set_viewport_size(PHONE)
    watcher.screenshot(path=shots / "phone-ladder.png", full_page=True)
    assert watcher.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for page in (challenger, watcher, opponent):
        page.context.close()


def test_a_face_to_face_result_confirmed_by_the_opponent(
    browser: Any, server: Server, club: dict[str, Any]
) -> None:
    lid = club["ladder"]["id"]
    bob = signed_in(browser, server, "lbob")
    open_ladder(bob, server, lid)
    form = bob.locator("#report-form")
    form.get_by_label("Your side").select_option("blue")
    form.get_by_label("Opponent").select_option("lcat")
    form.get_by_label("Result").select_option("blue")
    form.get_by_label("Victory level").fill("decisive")
    form.get_by_role("button", name="Report the result").click()
    report = bob.locator(".report", has_text="lbob (blue) vs lcat (red)").first
    expect(report.locator(".status")).to_have_text("waiting for confirmation")
    games_before = int(bob.locator('#standings tr[data-player="lbob"] .games').inner_text())
    cat = signed_in(browser, server, "lcat")
    open_ladder(cat, server, lid)
    cat.locator(".report", has_text="lbob (blue) vs lcat (red)").first.get_by_role(
        "button", name="Confirm the result"
    ).click()
    expect(cat.locator(".report .status").first).to_have_text("confirmed")
    expect(bob.locator('#standings tr[data-player="lbob"] .games')).to_have_text(
        str(games_before + 1), timeout=20_000
    )  # live, through the ladder stream
    bob.context.close()
    cat.context.close()


def test_an_admin_manages_roles_and_a_campaign_page(
    browser: Any, server: Server, club: dict[str, Any], shots: Path
) -> None:
    cid = club["club"]["id"]
    server.user("ldan")
    ann = signed_in(browser, server, "lann")
    ann.goto(f"{server.url}/clubs/{cid}")
    expect(ann.locator("#club-page[data-ready=true]")).to_have_count(1)
    form = ann.locator("#member-form")
    form.get_by_label("Username").fill("ldan")
    form.get_by_role("button", name="Invite").click()  # nobody joins without consent
    expect(ann.locator("#toast")).to_have_text(
        "ldan is invited: they are told, and accept or decline"
    )
    expect(ann.locator('#invitations li[data-invitation="ldan"]')).to_have_count(1)
    expect(ann.locator('#members tr[data-member="ldan"]')).to_have_count(0)
    dan = signed_in(browser, server, "ldan")  # ldan sees the invitation on the page, accepts
    dan.goto(f"{server.url}/clubs/{cid}")
    dan.get_by_role("button", name="Accept the invitation").click()
    expect(dan.locator("#toast")).to_have_text("You joined Mill Club")
    dan.context.close()
    ann.reload()
    expect(ann.locator("#club-page[data-ready=true]")).to_have_count(1)
    expect(ann.locator('#members tr[data-member="ldan"]')).to_have_count(1)
    ann.get_by_label("ldan is arbiter").check()
    expect(ann.locator("#toast")).to_have_text("ldan: arbiter granted")
    expect(ann.get_by_label("ldan is arbiter")).to_be_checked()
    roles = requests.get(f"{server.url}/api/clubs/{cid}").json()["members"]
    assert set({m["username"]: m["roles"] for m in roles}["ldan"]) == {"player", "arbiter"}
    expect(ann.locator("#ladders")).to_contain_text("Mill ladder")
    expect(ann.locator("#ladders")).to_contain_text("Skirmish (test fixture)")  # not its code
    ann.locator(".step-help summary").click()  # what a campaign step is written with
    expect(ann.locator("#step-codes")).to_contain_text("system skirmish, scenario meeting")
    ann.screenshot(path=shots / "club.png", full_page=True)

    cform = ann.locator("#campaign-form")
    cform.get_by_label("Name", exact=True).fill("Autumn campaign")
    cform.get_by_label("Sides").fill("red, blue")
    cform.get_by_label(re.compile("^Steps")).fill(
        "Meeting at the Mill | skirmish | meeting\nThe crossing (at the club)"
    )
    cform.get_by_label(re.compile("^Scoring")).fill("victory=3, decisive=5, draw=1")
    cform.get_by_role("button", name="Create the campaign").click()
    expect(ann).to_have_url(re.compile(r"/campaigns/"))
    expect(ann.locator("#campaign-page[data-ready=true]")).to_have_count(1)
    step = ann.locator('.step[data-step="1"]')
    expect(step).to_contain_text("played off-line")
    expect(ann.locator('.step[data-step="0"] .meta')).to_contain_text(
        "Skirmish (test fixture) · Meeting at the Mill"
    )
    expect(ann.locator("#player-points")).to_contain_text("No step scored yet.")
    expect(ann.locator("#scoring")).to_contain_text("also a win at a level not named here")
    campaign_url = ann.url
    first = ann.locator('.step[data-step="0"]')
    first.get_by_label("red").fill("lbob")
    first.get_by_label("blue").fill("lcat")
    first.get_by_text("Options (optional rules, length, forces)").click()
    first.get_by_label("Turns").fill("1")  # the scenario's own options, as controls
    first.get_by_role("button", name="Start the game").click()
    expect(ann).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    started = server.api("GET", "/api/games/" + ann.url.rsplit("/", 1)[1], "lann")
    assert started["options"]["turns"] == 1
    ann.goto(campaign_url)
    expect(first).to_contain_text("started")
    expect(first.get_by_role("link", name="Open the game")).to_have_count(1)
    expect(ann.locator("#scoring")).to_contain_text("decisive (winner)")
    ann.screenshot(path=shots / "campaign.png", full_page=True)
    ann.set_viewport_size(PHONE)
    ann.goto(f"{server.url}/clubs/{cid}")
    expect(ann.locator("#club-page[data-ready=true]")).to_have_count(1)
    assert ann.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    members = ann.locator("#members").locator("xpath=..")  # the table fits: "remove" is in view
    assert members.evaluate("e => e.scrollWidth <= e.clientWidth"), "the members table scrolls"
    ann.screenshot(path=shots / "phone-club.png", full_page=True)
    ann.context.close()
