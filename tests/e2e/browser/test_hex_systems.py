"""Bizkaya and Operation Backbone played in the browser with the generic orders: each started from
the home form and a few orders given through the page (forms for the choices a template leaves,
stack moves, impulses and the opponent's reserve impulse; Backbone's moves and attacks clicked on
its map)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: Bizkaya and Backbone played through the generic orders"
)


def start(
    page: Any, server: Server, system: str, scenario: str, opponent_side: str, opponent: str
) -> str:
    """The game the signed-in page starts from the home form; the opponent accepts the
    invitation and the page is reloaded, the game under way."""
    page.goto("/")
    page.get_by_label("Rules system").select_option(system)
    page.get_by_label("Scenario").select_option(scenario)
    page.get_by_role("textbox", name=opponent_side).fill(opponent)
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    gid = str(page.url.rsplit("/", 1)[1])
    server.accept(gid, opponent)
    page.reload()
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    return gid


def actions(server: Server, game_id: str, user: str) -> list[dict[str, Any]]:
    r = requests.get(f"{server.url}/api/games/{game_id}/actions", headers=server.user(user))
    return r.json()["actions"]


def test_bizkaya_in_the_browser(browser: Any, server: Server, shots: Path) -> None:
    server.user("bllano")
    mola = signed_in(browser, server, "bmola")
    gid = start(mola, server, "bizkaya", "bizkaya-1937", "republican", "bllano")
    llano = signed_in(browser, server, "bllano")
    llano.goto(f"/games/{gid}")
    expect(llano.locator(".game-page[data-ready=true]")).to_have_count(1)
    # four-digit hexes, stacks with their counts, counters that keep to their square
    expect(mola.locator('#board .hex[data-hex="1404"] .hex-label')).to_have_text("1404")
    expect(mola.locator("#board .stack-count").first).to_be_visible()
    expect(mola.locator("#turn")).to_contain_text("Turn 1 (I April 1937) · Weather phase")
    mola.get_by_role("button", name=re.compile("^Roll for the weather")).click()
    expect(mola.locator("#turn")).to_contain_text("Admin phase")

    # each leader placed on a stack: one template per leader, the unit chosen in its form.  The
    # first order's answer is held back until the game stream has shown its result and the second
    # form is open: that late answer closes the order it answers, not the one begun meanwhile.
    held: list[Any] = []
    mola.route("**/api/games/*/commands", lambda route: held.append((route, route.fetch())))
    mola.get_by_role("button", name=re.compile("^Place Garcia Valino")).click()
    mola.locator("select[name=unit]").select_option("n-2-i-navarra")
    mola.locator("#confirm").click()
    expect(mola.locator("#log")).to_contain_text("Garcia Valino")
    mola.get_by_role("button", name=re.compile("^Place Alonso Vega")).click()
    expect(mola.locator("select[name=unit]")).to_have_count(1)
    assert len(held) == 1
    route, answer = held[0]
    with mola.expect_response(re.compile(r"/actions\?")):  # the refresh that follows the answer
        route.fulfill(response=answer)
    mola.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # its drawing done
    expect(mola.locator("#toast")).to_contain_text("done")
    mola.unroute("**/api/games/*/commands")
    expect(mola.locator("select[name=unit]")).to_have_count(1)
    mola.locator("select[name=unit]").select_option("n-2-i-navarra")
    mola.locator("#confirm").click()
    expect(mola.locator("#log")).to_contain_text("Alonso Vega")
    expect(mola.locator("#message")).to_be_empty()
    mola.get_by_role("button", name="End the administrative segment").click()
    expect(mola.locator("#turn")).to_contain_text("Supply phase")
    # one choice, not 30 buttons
    expect(mola.get_by_role("button", name=re.compile("^Begin a trench"))).to_have_count(1)
    mola.get_by_role("button", name="End the supply phase").click()
    expect(mola.locator("#turn")).to_contain_text("Operations phase · impulse 1")

    # a stack moves together: the first stack the server lets move two hexes or more
    move = next(
        a
        for a in actions(server, gid, "bmola")
        if a["type"] == "move" and any(len(p) > 2 for p in a["choose"]["path"]["one_of"])
    )
    paths = move["choose"]["path"]["one_of"]
    here = paths[0][0]
    i, path = next((i, p) for i, p in enumerate(paths) if len(p) > 2)
    there, label = path[-1], move["choose"]["path"]["labels"][i]
    mola.locator(f'.stack[data-hex="{here}"]').click()
    if mola.locator(".mark-dest").count() == 0:
        mola.locator(f'#selection button[data-unit="{move["fixed"]["units"][0]}"]').click()
    expect(mola.locator(".mark-dest")).to_have_count(len({p[-1] for p in paths}))
    mola.locator(f'.mark[data-hex="{there}"]').click()
    expect(mola.locator("#selection")).to_contain_text(f"{move['label']} to {label}")
    mola.get_by_role("button", name=f"Confirm: {move['label']} to {label}").click()
    expect(llano.locator(f'.stack[data-hex="{there}"]')).to_have_count(1)
    expect(llano.locator("#log")).to_contain_text(re.compile(rf"move from .* to .*{there}"))
    game = server.read(f"/api/games/{gid}")
    assert {c["hex"] for c in game["counters"] if c["id"] in move["fixed"]["units"]} == {there}
    expect(mola.locator("#message")).to_be_empty()
    mola.screenshot(path=shots / "bizkaya-moved.png", full_page=True)

    # the impulse ends: the Republican's reserve impulse, then the Nationalist's next impulse
    mola.get_by_role("button", name="End the impulse").click()
    expect(llano.locator("#turn")).to_contain_text("Reserve phase · impulse 1")
    expect(llano.locator("#turn")).to_contain_text("Your turn")
    llano.screenshot(path=shots / "bizkaya-reserve-impulse.png", full_page=True)
    llano.get_by_role("button", name="End the impulse").click()
    expect(mola.locator("#turn")).to_contain_text("Operations phase · impulse 2")
    expect(mola.locator("#turn")).to_contain_text("Your turn")
    mola.set_viewport_size(PHONE)
    mola.screenshot(path=shots / "phone-bizkaya.png", full_page=True)
    mola.context.close()
    llano.context.close()


def adjacency(server: Server, system: str, scenario: str) -> Any:
    """Whether two hexes are neighbours, read from the board's centres (one hex apart: sqrt 3)."""
    board = requests.get(f"{server.url}/api/systems/{system}/scenarios/{scenario}/board").json()
    centre = {h["hex"]: (h["x"], h["y"]) for h in board["hexes"]}
    return lambda a, b: a != b and math.dist(centre[a], centre[b]) < 1.8


def test_backbone_in_the_browser(browser: Any, server: Server, shots: Path) -> None:
    """Backbone on its (placeholder) map with the printed row,column labels: deployment, the
    landing typed into the form, a unit moved by clicking a highlighted hex along the server's
    path, and in the combat phase an attack offered on a target hex, previewed and declared."""
    server.user("bvarela")
    monty = signed_in(browser, server, "bmonty")
    gid = start(monty, server, "backbone", "scenario-1", "spanish", "bvarela")
    varela = signed_in(browser, server, "bvarela")
    varela.goto(f"/games/{gid}")
    expect(varela.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(varela.locator('#board .hex[data-hex="4,7"] .hex-label')).to_have_text("4,7")
    expect(varela.locator("#no-map")).to_be_hidden()
    expect(varela.locator('#board .stack[data-hex="8,2"]')).to_have_count(1)  # 58th RI, Larache
    expect(varela.locator("#legend")).to_contain_text("A placeholder map a club may replace")

    varela.get_by_role(
        "button", name="Deploy as set up", exact=True
    ).click()  # the scenario's set-up as printed
    expect(monty.locator("#turn")).to_contain_text("Allied deployment phase")
    monty.get_by_role("button", name="Deploy as set up", exact=True).click()
    monty.get_by_role("button", name="Begin the turn").click()
    expect(varela.locator("#turn")).to_contain_text("Events phase")
    varela.get_by_role("button", name="Play no event").click()
    expect(monty.locator("#turn")).to_contain_text("Strait phase")
    monty.get_by_role("button", name=re.compile("^Roll for the Strait")).click()
    monty.get_by_label("Air point").select_option(label="No air point")
    monty.locator("#confirm").click()
    expect(monty.locator("#turn")).to_contain_text("Amphibious phase")

    # the landing: the units not yet on the map selected in the list, the beach clicked
    land = next(a for a in actions(server, gid, "bmonty") if a["type"] == "land")
    monty.locator(f'#selection button[data-unit="{land["fixed"]["units"][0]}"]').click()
    expect(monty.locator(".mark-dest")).to_have_count(len(land["choose"]["hex"]["one_of"]))
    monty.locator('.mark[data-hex="4,22"]').click()
    monty.get_by_role("button", name=f"Confirm: {land['label']} to 4,22").click()
    expect(monty.locator("#message")).to_be_empty()
    expect(varela.locator('#board .stack[data-hex="4,22"]')).to_have_count(1)
    expect(monty.locator("#turn")).to_contain_text("Allied movement phase")
    monty.screenshot(path=shots / "backbone-landed.png", full_page=True)

    # a unit moved by clicking: to a hex next to a Spanish unit, along the server's path
    adjacent = adjacency(server, "backbone", "scenario-1")
    counters = server.read(f"/api/games/{gid}")["counters"]
    enemy = {c["hex"] for c in counters if c["side"] == "spanish"}
    taken = {c["hex"] for c in counters}

    def paths(move: dict[str, Any]) -> dict[str, list[str]]:
        return {p[-1]: p for p in move["choose"]["path"]["one_of"]}

    def next_to_enemy(move: dict[str, Any]) -> list[str]:
        return [
            h
            for h, p in paths(move).items()
            if h not in taken and len(p) > 2 and any(adjacent(h, e) for e in enemy)
        ]

    moves = [a for a in actions(server, gid, "bmonty") if a["type"] == "move"]
    move = next(m for m in moves if next_to_enemy(m))
    there = next_to_enemy(move)[0]
    path = paths(move)[there]
    unit = move["fixed"]["unit"]
    # chosen in the list of units that can act: the board opens closer than the whole map (its
    # counters legible), so the unit's hex may be out of view until it is selected
    monty.locator(f'#selection button[data-unit="{unit}"]').click()
    expect(monty.locator(".mark-dest")).to_have_count(len(paths(move)))
    monty.locator(f'.mark[data-hex="{there}"]').click()
    expect(monty.locator("#selection")).to_contain_text(f"{' → '.join(path[1:])}.")
    monty.get_by_role("button", name=f"Confirm: {move['label']} to {there}").click()
    expect(varela.locator(f'#board .stack[data-hex="{there}"]')).to_have_count(1)
    expect(monty.locator("#message")).to_be_empty()
    game = server.read(f"/api/games/{gid}")
    assert next(c["hex"] for c in game["counters"] if c["id"] == unit) == there
    taken.add(there)
    for other in moves:  # the others through the API, each to its own hex next to the enemy
        if other["fixed"]["unit"] != unit and next_to_enemy(other):
            hex_ = next_to_enemy(other)[0]
            command = {"type": "move", **other["fixed"], "path": paths(other)[hex_]}
            server.command(gid, "bmonty", command)
            taken.add(hex_)
            # the page follows the game stream before the next order is given on it
            expect(monty.locator(f'#board .stack[data-hex="{hex_}"]')).to_have_count(1)
    version = server.read(f"/api/games/{gid}")["version"]
    expect(monty.locator("#slider")).to_have_attribute("max", str(version))
    monty.get_by_role("button", name="End the movement phase").click()
    expect(monty.locator("#turn")).to_contain_text("Allied combat phase")

    # each attack the server lists marks its target hex; clicking one opens the attack
    attacks = [a for a in actions(server, gid, "bmonty") if a["type"] == "attack"]
    assert attacks, "no attack listed after moving next to the Spanish units"
    targets = {a["fixed"]["target"] for a in attacks}
    expect(monty.locator(".mark-target")).to_have_count(len(targets))
    attack = attacks[0]
    target = attack["fixed"]["target"]
    monty.locator(f'#selection button[data-target="{target}"]').click()  # listed beside the map
    if len([a for a in attacks if a["fixed"]["target"] == target]) > 1:
        monty.get_by_label(attack["label"]).check()
    for uid in attack["fixed"]["units"]:
        name = next(c["name"] for c in game["counters"] if c["id"] == uid)
        expect(monty.locator("#selection .with-units")).to_contain_text(name)
    expect(monty.locator("#odds-column")).not_to_have_text("none (not allowed)")
    monty.screenshot(path=shots / "backbone-attack.png", full_page=True)
    monty.get_by_role("button", name=f"Confirm: {attack['label']}").click()
    expect(monty.locator("#message")).to_be_empty()
    expect(varela.locator("#turn")).to_contain_text("Your turn")
    expect(varela.get_by_role("button", name=re.compile("^Defend"))).to_be_visible()
    events = requests.get(
        f"{server.url}/api/games/{gid}/events",
        params={"limit": 1000},
        headers=server.user("bmonty"),
    ).json()["events"]
    declared = [e for e in events if e["type"] == "CombatDeclared"]
    assert declared[-1]["payload"]["data"]["combat"]["target"] == target
    varela.set_viewport_size(PHONE)
    varela.screenshot(path=shots / "phone-backbone.png", full_page=True)
    assert varela.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    monty.context.close()
    varela.context.close()
