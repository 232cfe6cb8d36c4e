"""The home page's "Start a game" form offers a club's published scenarios beside the system's own
(issue 18: "games ... offer the club's scenarios beside the built-in ones"), each version labelled
with its club; a game started from one in Chromium pins that version -- checked through the game's
own API (its labels and its map).  Screenshots at both sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

SIDES = {"nationalist": "hann", "republican": "hrojo"}


def publish(server: Server, sid: str, terrain: str) -> None:
    change = {"kind": "terrain", "hex": "AB4", "terrain": terrain}
    server.api("POST", f"/api/club-scenarios/{sid}/edits", "hann", json={"changes": [change]})
    server.api("POST", f"/api/club-scenarios/{sid}/versions", "hann", json={})


def test_a_game_starts_from_a_club_scenario_version_on_the_home_page(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "hann", json={"name": "Home Club"})
    server.user("hrojo")
    server.admit(club["id"], "hann", "hrojo")
    made = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "hann",
        json={"system": "merida", "base": "merida-1938", "title": "Merida, our map"},
    )
    sid = made["id"]
    publish(server, sid, "mountain")  # version 1
    publish(server, sid, "clear")  # version 2: the game below plays version 1

    page = signed_in(browser, server, "hann", viewport={"width": 1366, "height": 900})
    page.goto("/")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    form = page.locator("#create-form")
    form.get_by_label("Rules system").select_option("merida")
    club_group = form.locator('optgroup[label="Club scenarios"] option')
    expect(club_group).to_have_text(
        [
            "Merida, our map · Home Club, version 2 (latest)",
            "Merida, our map · Home Club, version 1",
        ]
    )
    expect(form.locator('optgroup[label="Built-in scenarios"] option').first).to_be_attached()
    form.get_by_label("Scenario").select_option(label="Merida, our map · Home Club, version 1")
    form.locator('[name="side:nationalist"]').fill("hann")
    form.locator('[name="side:republican"]').fill("hrojo")
    form.locator("summary", has_text="Options").click()  # the version's own options, as controls
    form.get_by_label("Zoc to zoc").select_option(label="any")
    page.screenshot(path=str(shots / "home-club-scenario-desktop.png"), full_page=True)
    form.get_by_role("button", name="Start the game").click()
    page.wait_for_url("**/games/*")
    gid = page.url.rstrip("/").rsplit("/", 1)[1]

    game = server.api("GET", f"/api/games/{gid}", "hann")
    assert game["scenario"] == f"{sid}@1"
    assert game["labels"]["club_scenario"] == sid and game["labels"]["scenario_version"] == 1
    assert game["sides"] == SIDES
    assert game["options"]["zoc_to_zoc"] == "any"
    board = server.api("GET", f"/api/systems/merida/scenarios/{sid}@1/board", "hann")
    assert next(h["terrain"] for h in board["hexes"] if h["hex"] == "AB4") == "mountain"

    phone = signed_in(browser, server, "hann", viewport=PHONE)
    phone.goto("/")
    expect(phone.locator("body[data-ready=true]")).to_have_count(1)
    phone.locator("#create-form").get_by_label("Rules system").select_option("merida")
    phone.locator("#create-form").get_by_label("Scenario").select_option(f"{sid}@2")
    phone.locator("#create-form").scroll_into_view_if_needed()
    phone.screenshot(path=str(shots / "home-club-scenario-phone.png"), full_page=True)


def test_an_organiser_makes_a_ladder_on_a_club_scenario_version(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "lann", json={"name": "Ladder Club"})
    made = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "lann",
        json={"system": "merida", "base": "merida-1938", "title": "Merida, ladder map"},
    )
    change = {"kind": "terrain", "hex": "AB4", "terrain": "mountain"}
    server.api(
        "POST", f"/api/club-scenarios/{made['id']}/edits", "lann", json={"changes": [change]}
    )
    server.api("POST", f"/api/club-scenarios/{made['id']}/versions", "lann", json={})

    page = signed_in(browser, server, "lann", viewport={"width": 1366, "height": 900})
    page.goto(f"/clubs/{club['id']}")
    form = page.locator("#ladder-form")
    form.get_by_label("Name").fill("Merida ladder")
    form.get_by_label("Rules system").select_option("merida")
    form.get_by_label("Scenario").select_option(label="Merida, ladder map · Ladder Club, version 1")
    form.get_by_role("button", name="Create the ladder").click()
    page.wait_for_url("**/ladders/*")
    expect(page.locator("#ladder-meta")).to_contain_text(
        "scenario Merida, ladder map (Ladder Club, version 1)"
    )
    page.screenshot(path=str(shots / "ladder-club-scenario-desktop.png"))
    ladder = server.api(
        "GET", page.url.replace(server.url, "").replace("/ladders/", "/api/ladders/"), "lann"
    )
    assert ladder["scenario"] == f"{made['id']}@1"


def test_an_open_game_is_offered_on_a_club_scenario_version(
    browser: Any, server: Server, shots: Path
) -> None:
    club = server.api("POST", "/api/clubs", "sann", json={"name": "Seek Club"})
    made = server.api(
        "POST",
        f"/api/clubs/{club['id']}/scenarios",
        "sann",
        json={"system": "merida", "base": "merida-1938", "title": "Merida, open map"},
    )
    change = {"kind": "terrain", "hex": "AB4", "terrain": "mountain"}
    server.api(
        "POST", f"/api/club-scenarios/{made['id']}/edits", "sann", json={"changes": [change]}
    )
    server.api("POST", f"/api/club-scenarios/{made['id']}/versions", "sann", json={})

    page = signed_in(browser, server, "sann", viewport={"width": 1366, "height": 900})
    page.goto("/seeks")
    form = page.locator("#seek-form")
    form.get_by_label("Rules system").select_option("merida")
    form.get_by_label("Scenario").select_option(label="Merida, open map · Seek Club, version 1")
    form.get_by_label("Your side").select_option("republican")
    form.get_by_label("Only for the members of").select_option(label="Seek Club")
    form.get_by_role("button", name="Open the game").click()
    row = page.locator("#seeks li.seek")
    expect(row).to_contain_text("Merida, open map (Seek Club, version 1)")
    expect(row).to_contain_text("members of Seek Club only")
    page.screenshot(path=str(shots / "seeks-club-scenario-desktop.png"))
