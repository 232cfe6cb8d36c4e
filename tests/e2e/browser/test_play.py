"""Playing in the browser: sign in and out, start a game, move, attack with the combat preview, the
dice, time travel, the keyboard, and a phone-sized screen."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PASSWORD, PHONE, Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a game played from sign-in to the dice at two sizes"
)


def open_game(page: Any, server: Server, game_id: str) -> None:
    page.goto(f"{server.url}/games/{game_id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)


def counter_hex(page: Any, unit: str) -> str:
    return page.locator(f'.stack:has(.counter[data-unit="{unit}"])').get_attribute("data-hex")


def test_sign_in_and_out_through_the_form(browser: Any, server: Server, shots: Path) -> None:
    server.user("signin")
    page = browser.new_page(base_url=server.url)
    page.goto("/")
    page.get_by_label("Username").first.fill("signin")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("heading", name="My games")).to_be_visible()
    expect(page.locator("#username")).to_have_text("signin")
    page.screenshot(path=shots / "home-signed-in.png", full_page=True)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_visible()
    page.get_by_label("Username").first.fill("signin")
    page.get_by_label("Password", exact=True).fill("wrong password")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator("#signin-form .error")).not_to_be_empty()
    page.close()


def test_start_a_game_from_the_home_page(browser: Any, server: Server, shots: Path) -> None:
    server.user("hbob")
    page = signed_in(browser, server, "halice")
    page.goto("/")
    page.get_by_label("Rules system").select_option("skirmish")
    page.get_by_label("Scenario").select_option("meeting")
    expect(page.get_by_label("red")).to_have_value("halice")
    page.get_by_label("blue").fill("hbob")
    expect(page.locator("#create-consent")).to_contain_text("Every other player you name is asked")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    # naming hbob made an invitation: the game waits for hbob, who accepts
    expect(page.locator("#lifecycle-slot")).to_have_attribute("data-status", "invited")
    expect(page.locator("#lifecycle-slot")).to_contain_text("Waiting for hbob to accept")
    server.accept(page.url.rsplit("/", 1)[1], "hbob")
    page.reload()
    expect(page.locator("#title")).to_contain_text("Meeting at the Mill")
    expect(page.locator("#turn")).to_contain_text("Turn 1")
    expect(page.locator("#turn")).to_contain_text("Your turn")
    page.goto("/")
    game = page.locator(".game-list li").first
    expect(game).to_contain_text("Meeting at the Mill")
    expect(game).to_contain_text("Your turn (Red)")
    page.context.close()


def test_move_attack_and_the_dice(browser: Any, server: Server, shots: Path) -> None:
    game = server.create_game({"red": "malice", "blue": "mbob"})
    page = signed_in(browser, server, "malice")
    open_game(page, server, game["id"])
    # the board: every hex, the river and road hexsides, the named places, the counters
    expect(page.locator("#board .hex")).to_have_count(48)
    expect(page.locator("#board .feature-river")).to_have_count(4)
    expect(page.locator("#board .places")).to_contain_text("Mill")
    expect(page.locator("#board .counter")).to_have_count(6)
    page.screenshot(path=shots / "board-start.png", full_page=True)

    reachable = requests.get(
        f"{server.url}/api/games/{game['id']}/actions", headers=server.user("malice")
    ).json()["actions"]
    r2 = next(a for a in reachable if a["fixed"].get("unit") == "r2")
    page.locator('.stack[data-hex="D2"]').click()
    expect(page.locator(".mark-dest")).to_have_count(len(r2["choose"]["path"]["one_of"]))
    page.screenshot(path=shots / "board-selected.png", full_page=True)
    page.locator('.mark[data-hex="D6"]').click()
    expect(page.locator("#selection")).to_contain_text(
        "Move 2nd Foot to D6 (2 MP): D2 → D3 → Crossroads (D4) → Bridge (D5) → D6"
    )
    page.get_by_role("button", name="Confirm: Move 2nd Foot to D6").click()
    expect(page.locator('.stack[data-hex="D6"] .counter[data-unit="r2"]')).to_have_count(1)
    expect(page.locator("#log")).to_contain_text("2nd Foot moves")
    expect(page.locator("#log")).not_to_contain_text("r2 ")  # printed names, never ids

    page.get_by_role("button", name="End the movement phase").click()
    expect(page.locator("#turn")).to_contain_text("Combat phase")
    expect(page.locator(".mark-target")).to_have_count(2)  # C6 and D7, from the legal actions
    page.locator('.mark[data-hex="C6"]').click()
    expect(page.locator("#odds-column")).to_have_text("1-1")  # 4 against 4
    expect(page.locator("table.crt")).to_contain_text("Results on the 1-1 column")
    page.screenshot(path=shots / "board-attack-preview.png", full_page=True)
    page.get_by_role("button", name="Confirm: Attack C6").click()
    # the game's first die, counted from 1 and said in words (issue 51, finding 8: "Die #0 (d6, …")
    expect(page.locator("#log")).to_contain_text(
        re.compile(r"Die 1 of the game \(a d6 for combat\) rolled [1-6]")
    )
    expect(page.locator("#log")).to_contain_text(
        re.compile(r"2nd Foot attacks Blue Guard in C6 at 1-1: roll [1-6]")
    )
    events = server.read(f"/api/games/{game['id']}/events")["events"]
    roll = next(e for e in events if e["type"] == "DiceRolled")["payload"]["rolls"][0]
    expect(page.locator("#log .dice-details").first).to_contain_text(
        f"Die 1 of the game (index 0): {roll['value']} on a d6 (combat)"
    )
    page.get_by_role("button", name="Verify the dice").click()
    expect(page.locator("#dice-result")).to_contain_text("The 1 roll matches the committed seed")
    record = page.get_by_role("link", name="Download the game record")
    expect(record).to_have_attribute("href", f"/api/games/{game['id']}/record")
    with page.expect_download() as download:
        record.click()
    assert download.value.suggested_filename == f"game-{game['id']}.record"
    page.screenshot(path=shots / "board-after-attack.png", full_page=True)
    page.context.close()


def test_a_refused_or_stale_command_is_explained(browser: Any, server: Server) -> None:
    game = server.create_game({"red": "salice", "blue": "sbob"})
    page = signed_in(browser, server, "salice")
    page.route("**/stream*", lambda route: route.abort())  # no live update: the page goes stale
    open_game(page, server, game["id"])
    page.locator('.stack[data-hex="D2"]').click()
    page.locator('.mark[data-hex="D3"]').click()
    # meanwhile the same player moves another unit elsewhere (another tab): this page is stale
    server.command(game["id"], "salice", {"type": "move", "unit": "r1", "path": ["B2"]})
    page.get_by_role("button", name="Confirm: Move 2nd Foot to D3").click()
    expect(page.locator("#message")).to_contain_text("The game moved on")
    expect(page.locator('.stack[data-hex="B2"] .counter[data-unit="r1"]')).to_have_count(1)
    page.context.close()


def test_time_travel_shows_the_board_at_any_version(browser: Any, server: Server) -> None:
    game = server.create_game({"red": "talice", "blue": "tbob"})
    server.command(game["id"], "talice", {"type": "move", "unit": "r2", "path": ["D3", "D4"]})
    server.command(game["id"], "talice", {"type": "move", "unit": "r1", "path": ["B2"]})
    page = signed_in(browser, server, "talice")
    open_game(page, server, game["id"])
    assert counter_hex(page, "r2") == "D4"
    page.locator("#slider").fill("1")
    page.locator("#slider").dispatch_event("change")
    latest = server.read(f"/api/games/{game['id']}")["version"]
    expect(page.locator("#viewing")).to_contain_text(f"version 1 of {latest}")
    expect(page.locator('.stack[data-hex="D2"] .counter[data-unit="r2"]')).to_have_count(1)
    expect(page.locator(".mark")).to_have_count(0)  # no orders in the past
    page.locator("#log li", has_text="2nd Foot moves from D2 to Crossroads (D4)").get_by_role(
        "button", name="show"
    ).click()
    expect(page.locator('.stack[data-hex="D4"] .counter[data-unit="r2"]')).to_have_count(1)
    expect(page.locator('.stack[data-hex="C2"] .counter[data-unit="r1"]')).to_have_count(1)
    page.get_by_role("button", name="Back to now").click()
    expect(page.locator("#viewing")).to_be_hidden()
    expect(page.locator('.stack[data-hex="B2"] .counter[data-unit="r1"]')).to_have_count(1)
    page.context.close()


def test_orders_by_keyboard_alone(browser: Any, server: Server) -> None:
    game = server.create_game({"red": "kalice", "blue": "kbob"})
    page = signed_in(browser, server, "kalice")
    open_game(page, server, game["id"])
    stack = page.locator('.stack[data-hex="D2"]')
    expect(stack).to_have_attribute("aria-label", re.compile(r"^D2: [^(]+\(Red infantry"))
    stack.focus()
    page.keyboard.press("Enter")
    dest = page.locator('.mark[data-hex="D4"]')
    expect(dest).to_have_attribute("aria-label", "Move 2nd Foot to Crossroads (D4) (1 MP)")
    dest.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#confirm")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator('.stack[data-hex="D4"] .counter[data-unit="r2"]')).to_have_count(1)
    page.context.close()


def test_a_keyboard_move_from_the_orders_list_in_a_few_keys(browser: Any, server: Server) -> None:
    """Issue 51, finding 2: after selecting a unit by keyboard focus fell to the page (31 Tabs
    across the map and every stack to reach a destination), again after Confirm, and a focused hex
    looked like the selected one.  Now focus goes to the first destination, the arrow keys go
    between destinations, and after Confirm it is back in the orders: at most 10 keys."""
    game = server.create_game({"red": "qalice", "blue": "qbob"})
    page = signed_in(browser, server, "qalice")
    open_game(page, server, game["id"])
    page.locator('#selection ul.can-move button[data-unit="r2"]').focus()  # in the orders list
    keys = 0

    def press(key: str) -> None:
        nonlocal keys
        keys += 1
        page.keyboard.press(key)

    press("Enter")
    focused = page.locator(".mark:focus")
    expect(focused).to_have_count(1)  # the first destination, not the page
    first = focused.get_attribute("data-hex")
    press("ArrowRight")
    expect(page.locator(".mark:focus")).not_to_have_attribute("data-hex", first or "")
    press("ArrowLeft")
    expect(page.locator(".mark:focus")).to_have_attribute("data-hex", first or "")
    # the focused hex is drawn unlike the selected unit's
    stroke = "e => getComputedStyle(e.querySelector('polygon')).strokeDasharray"
    assert page.locator(".mark:focus").evaluate(stroke) != page.locator(".mark-selected").evaluate(
        stroke
    )
    press("ArrowRight")
    chosen = page.locator(".mark:focus").get_attribute("data-hex")
    press("Enter")
    expect(page.locator("#confirm")).to_be_focused()
    press("Enter")
    # there, on top of a stack or under another unit (the stack's label names every unit)
    expect(page.locator(f'.stack[data-hex="{chosen}"]')).to_have_attribute(
        "aria-label", re.compile("2nd Foot")
    )
    assert keys <= 10
    # and the keyboard is back in the orders, not at the top of the page
    expect(page.locator("#selection-body button:focus")).to_have_count(1)
    page.context.close()


def test_a_phone_sized_screen(browser: Any, server: Server, shots: Path) -> None:
    game = server.create_game({"red": "palice", "blue": "pbob"})
    page = signed_in(browser, server, "palice", viewport=PHONE)
    open_game(page, server, game["id"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#board").bounding_box()
    assert box and box["width"] >= PHONE["width"] - 60
    page.locator('.stack[data-hex="D2"]').click()
    expect(page.locator(".mark-dest").first).to_be_visible()
    page.screenshot(path=shots / "phone-board.png", full_page=True)
    page.goto("/")
    expect(page.locator("#games li")).to_have_count(1)
    expect(page.locator("select[name=system] option")).not_to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=shots / "phone-home.png", full_page=True)
    page.context.close()


def _previews_into(seen: list[tuple[str, int]]) -> Any:
    def note(response: Any) -> None:
        if response.url.endswith("/preview"):
            seen.append((response.url, response.status))

    return note


def test_a_merida_game_started_and_played_in_two_browsers(
    browser: Any, server: Server, shots: Path
) -> None:
    scenario = next(
        s for s in requests.get(f"{server.url}/api/scenarios").json() if s["system"] == "merida"
    )
    assert scenario["sides"] == ["nationalist", "republican"]
    server.user("rojo")
    franco = signed_in(browser, server, "franco")
    franco.goto("/")
    franco.get_by_label("Rules system").select_option("merida")
    franco.get_by_label("Scenario").select_option(scenario["id"])
    expect(franco.get_by_role("textbox", name="nationalist")).to_have_value("franco")
    franco.get_by_role("textbox", name="republican").fill("rojo")
    franco.get_by_role("button", name="Start the game").click()
    expect(franco).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    server.accept(franco.url.rsplit("/", 1)[1], "rojo")  # rojo accepts the invitation
    franco.reload()
    expect(franco.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(franco.locator("#turn")).to_contain_text("Deployment phase")
    expect(franco.locator("#turn")).to_contain_text("waiting for your opponent")

    rojo = signed_in(browser, server, "rojo")
    previews: list[tuple[str, int]] = []  # issue 51, finding 5: every deploy asked, and got 400
    for page in (rojo, franco):
        page.on("response", _previews_into(previews))
    open_game(rojo, server, franco.url.rsplit("/", 1)[1])
    expect(rojo.locator("#turn")).to_contain_text("Your turn")
    for unit, hex_ in (("r-37-div-4", "Y7"), ("r-68-div-4", "AC10")):  # the republican set-up
        rojo.locator(f'#selection button[data-unit="{unit}"]').click()
        rojo.locator(f'.mark[data-hex="{hex_}"]').click()
        rojo.get_by_role("button", name=re.compile(f"^Confirm: Deploy .* to {hex_}$")).click()
        expect(
            franco.locator(f'.stack[data-hex="{hex_}"] .counter[data-unit="{unit}"]')
        ).to_have_count(1)
    assert previews == []  # a deployment has nothing to preview: never asked
    rojo.get_by_role("button", name="End the deployment phase").click()
    expect(franco.locator("#turn")).to_contain_text("Your turn")
    expect(franco.locator("#turn")).to_contain_text("Movement phase")

    franco.locator('#selection button[data-unit="n-1-21-div"]').click()
    franco.locator('.mark[data-hex="Z3"]').click()
    expect(franco.locator("#selection")).to_contain_text("(AA3) → Z3")
    expect(franco.locator("#selection .move-costs")).to_contain_text("Movement points")  # answered
    assert previews and {status for _, status in previews} == {200}  # a move is previewed
    franco.get_by_role("button", name="Confirm: Move 1/21 Div (tactical) to Z3").click()
    expect(rojo.locator('.stack[data-hex="Z3"] .counter[data-unit="n-1-21-div"]')).to_have_count(1)
    expect(franco.locator("#message")).to_be_empty()
    movers = franco.locator("#selection ul.can-move > li")
    expect(movers.first).to_be_visible()  # the list scrolls in its card: the hint says how many
    expect(franco.locator("#selection")).to_contain_text(
        f"Select one of the {movers.count()} units that can move"
    )
    franco.screenshot(path=shots / "merida-board.png", full_page=True)
    rojo.set_viewport_size(PHONE)
    rojo.screenshot(path=shots / "phone-merida.png", full_page=True)
    franco.context.close()
    rojo.context.close()


def test_one_player_holding_both_sides_plays_the_side_to_act(browser: Any, server: Server) -> None:
    """A game whose sides are all one player's (face-to-face play entered by one member, or a
    solo trial): the page asks for the orders of the side to act -- the server wants the side
    named when a player holds several -- and an order goes out for that side."""
    game = server.create_game({"red": "hotseat", "blue": "hotseat"})
    page = signed_in(browser, server, "hotseat")
    open_game(page, server, game["id"])
    expect(page.locator("#turn")).to_contain_text("Your turn")
    end = page.get_by_role("button", name=re.compile("^End"))
    expect(end.first).to_be_enabled()
    end.first.click()
    expect(page.locator("#log")).to_contain_text("Order: end phase")
    assert server.read(f"/api/games/{game['id']}")["version"] > game["version"]
