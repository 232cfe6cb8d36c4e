"""A miniatures game (Back to Barcelona) on the table renderer: the table to scale with its terrain,
units with their figures and facing; muster, deployment by clicking the table, written orders hidden
from the other side, a move composed point by point and measured against the rolled distance, and
a shot with the server's preview -- in two browser contexts."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

SIDES = {"nationalist": "tfranco", "republican": "trojo"}
ORDER = "seize the masia by nightfall"


def open_game(page: Any, server: Server, game_id: str) -> None:
    page.goto(f"{server.url}/games/{game_id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)


def click_table(page: Any, x: float, y: float) -> None:
    """Click the table at (x, y) inches, wherever the SVG is drawn on the screen."""
    page.locator("#board").scroll_into_view_if_needed()
    cx, cy = page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById("board");
            const pt = svg.createSVGPoint();
            pt.x = x * 20; pt.y = y * 20;
            const p = pt.matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )
    page.mouse.click(cx, cy)


def actions(server: Server, game_id: str, user: str) -> list[dict[str, Any]]:
    r = requests.get(f"{server.url}/api/games/{game_id}/actions", headers=server.user(user))
    return r.json()["actions"]


def counters(server: Server, game_id: str) -> dict[str, dict[str, Any]]:
    game = requests.get(f"{server.url}/api/games/{game_id}").json()
    return {c["id"]: c for c in game["counters"]}


def deploy_the_rest(server: Server, game_id: str, user: str) -> None:
    """The remaining units at the server's suggested spots (through the API, to keep it short)."""
    for action in actions(server, game_id, user):
        if action["type"] == "deploy":
            server.command(
                game_id, user, {"type": "deploy", "unit": action["unit"], **action["suggest"]}
            )


def test_a_barcelona_skirmish_on_the_table_in_two_browsers(
    browser: Any, server: Server, shots: Path
) -> None:
    server.user(SIDES["republican"])
    franco = signed_in(browser, server, SIDES["nationalist"])
    franco.goto("/")
    franco.get_by_label("Rules system").select_option("barcelona")
    franco.get_by_label("Scenario").select_option("skirmish")
    franco.get_by_role("textbox", name="republican").fill(SIDES["republican"])
    franco.get_by_role("button", name="Start the game").click()
    expect(franco).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    expect(franco.locator(".game-page[data-ready=true]")).to_have_count(1)
    gid = franco.url.rsplit("/", 1)[1]
    rojo = signed_in(browser, server, SIDES["republican"])
    open_game(rojo, server, gid)

    # the table to scale: 48 x 36 inches, its five areas labelled, both deployment zones, a scale
    expect(franco.locator("#board .table-cloth")).to_have_attribute("width", str(48 * 20))
    expect(franco.locator("#board .area")).to_have_count(5)
    expect(franco.locator("#board .area-label")).to_contain_text(
        ["Ebro road", "Olive grove", "Masia"]
    )
    expect(franco.locator("#board .zone")).to_have_count(2)
    expect(franco.locator("#board .scale")).to_contain_text('12"')
    expect(franco.locator("#legend")).to_contain_text("Olive grove: cover, bad going")

    # the muster: each side chooses its troop type in the generic form and the server rolls
    for page, troops in ((franco, "Falangists"), (rojo, "Militia")):
        page.get_by_role("button", name="Generate column…").click()
        page.get_by_label("Troop type").select_option(troops)
        page.get_by_role("button", name="Confirm: generate column").click()
    expect(rojo.locator("#log")).to_contain_text("republican column of Militia")
    expect(rojo.locator("#turn")).to_contain_text("Deployment phase")

    # deployment, the defender first: the first unit placed by clicking the table in its zone
    first = next(a for a in actions(server, gid, SIDES["republican"]) if a["type"] == "deploy")
    uid = first["unit"]
    rojo.locator(f'#selection button[data-unit="{uid}"]').click()
    expect(rojo.locator("#board .ghost")).to_have_count(1)  # the suggested spot
    click_table(rojo, 30.5, 32)  # a click lands within a tenth of an inch
    confirm = rojo.get_by_role(
        "button", name=re.compile(r'Confirm: deploy at 30\.[4-6]", 3[12]\.?[0-9]?"')
    )
    expect(confirm).to_be_visible()
    confirm.click()
    unit = rojo.locator(f'#board .unit[data-unit="{uid}"]')
    expect(unit).to_have_count(1)
    placed = counters(server, gid)[uid]
    assert abs(placed["x"] - 30.5) <= 0.11 and abs(placed["y"] - 32) <= 0.11
    expect(unit.locator(".position")).to_have_attribute("cx", f"{round(placed['x'] * 20, 1):g}")
    assert unit.locator(".figure").count() == counters(server, gid)[uid]["values"]["figures"]
    expect(franco.locator(f'#board .unit[data-unit="{uid}"]')).to_have_count(1)  # live
    deploy_the_rest(server, gid, SIDES["republican"])
    rojo.get_by_role("button", name="End deployment").click()
    expect(franco.locator("#turn")).to_contain_text("Your turn")
    deploy_the_rest(server, gid, SIDES["nationalist"])
    franco.get_by_role("button", name="End deployment").click()
    expect(franco.locator("#turn")).to_contain_text("Orders phase")

    # written orders: the Nationalist's stay hidden from the Republican until revealed
    mover = sorted(u for u, c in counters(server, gid).items() if c["side"] == "nationalist")[0]
    franco.locator(f'.order-line[data-unit="{mover}"] input[name="text:{mover}"]').fill(ORDER)
    franco.get_by_role("button", name="Write the orders").click()
    expect(franco.locator("#log")).to_contain_text(f"{mover} “{ORDER}”")
    expect(rojo.locator("#log")).to_contain_text(
        "nationalist wrote orders for 1 unit (hidden until they are revealed)"
    )
    assert ORDER not in rojo.content()
    rojo.screenshot(path=shots / "table-orders-hidden.png", full_page=True)
    rojo.get_by_role("button", name="Write the orders").click()
    expect(franco.locator("#turn")).to_contain_text("Movement phase")
    assert ORDER not in rojo.content()  # still hidden: revealed at the end of the turn

    # a move on the table: roll, then click a point and see it measured against the roll
    franco.locator(f'#selection button[data-unit="{mover}"]').click()
    franco.get_by_role("button", name="Confirm: roll move").click()
    expect(franco.locator("#measure")).to_contain_text('Measured 0" of')
    move = next(a for a in actions(server, gid, SIDES["nationalist"]) if a["type"] == "move")
    start = counters(server, gid)[mover]
    step = min(2.0, move["max_length"] / 2)
    end = (start["x"], round(start["y"] + step, 1))
    click_table(franco, *end)
    length = math.hypot(end[0] - start["x"], end[1] - start["y"])
    expect(franco.locator("#measure")).to_contain_text(
        f'Measured {round(length, 2):g}" of {move["max_length"]}" allowed'
    )
    expect(franco.locator("#board .planned-path")).to_have_count(1)
    franco.screenshot(path=shots / "table-move.png", full_page=True)
    franco.get_by_role("button", name=re.compile(r"Confirm move")).click()
    expect(rojo.locator("#log")).to_contain_text(f"{mover} moves ")
    moved = requests.get(f"{server.url}/api/games/{gid}/events?limit=500").json()["events"]
    measured = next(e for e in moved if e["type"] == "UnitMoved")["payload"]["data"]["length"]
    assert measured == pytest.approx(length, abs=0.01)
    expect(rojo.locator("#log")).to_contain_text(f'{mover} moves {measured:g}" of')
    expect(rojo.locator(f'#board .unit[data-unit="{mover}"] .position')).to_have_attribute(
        "cy", f"{round(end[1] * 20, 1):g}"
    )
    expect(franco.locator("#message")).to_be_empty()
    franco.screenshot(path=shots / "table-after-move.png", full_page=True)
    rojo.set_viewport_size(PHONE)
    rojo.screenshot(path=shots / "phone-table.png", full_page=True)
    assert rojo.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    franco.context.close()
    rojo.context.close()


def test_a_shot_composed_by_clicking_the_target_with_the_preview(
    browser: Any, server: Server, shots: Path
) -> None:
    """Bought forces (the `points` option) so that an HMG stands within range: the HMG bought
    through the form the `buy` template's catalogue builds, the rest set up through the API, then
    the shot in the browser."""
    nat, rep = "sfranco", "srojo"
    for user in (nat, rep):
        server.user(user)
    r = requests.post(
        f"{server.url}/api/games",
        json={
            "system": "barcelona",
            "scenario": "skirmish",
            "sides": {"nationalist": nat, "republican": rep},
            "options": {"forces": "points"},
        },
        headers=server.user(nat),
    )
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    page = signed_in(browser, server, nat)
    open_game(page, server, gid)
    page.get_by_role("button", name="Buy…").click()
    page.get_by_label("Kind").select_option("team")
    expect(page.get_by_label("Weapon")).to_contain_text("HMG (8 points a crew figure)")
    page.get_by_label("Weapon").select_option("HMG")
    page.get_by_label("Troop type").select_option("Falangists")
    expect(page.get_by_label("Crew (placeholder size)")).to_have_value("3")
    page.screenshot(path=shots / "table-buy.png", full_page=True)
    page.get_by_role("button", name="Confirm: buy").click()
    expect(page.locator("#message")).to_be_empty()
    expect(page.locator("#log")).to_contain_text(re.compile(r"nationalist buys .+ for \d+ points"))
    state = requests.get(f"{server.url}/api/games/{gid}", headers=server.user(nat)).json()
    [bought] = [u for u in state["state"]["units"].values() if u["side"] == "nationalist"]
    assert (bought["kind"], bought["weapons"], bought["troop_type"]) == (
        "team",
        ["HMG"],
        "Falangists",
    )
    foot = {"kind": "foot", "troop_type": "Militia", "figures": 10}
    server.command(gid, rep, {"type": "buy", "unit": foot})
    for user in (nat, rep):
        server.command(gid, user, {"type": "end_muster"})
    for user in (rep, nat):  # the defender deploys first
        deploy_the_rest(server, gid, user)
        server.command(gid, user, {"type": "end_deployment"})
    for user in (nat, rep):
        server.command(gid, user, {"type": "write_orders", "orders": {}})
    for user in (nat, rep):
        if any(a["type"] == "end_movement" for a in actions(server, gid, user)):
            server.command(gid, user, {"type": "end_movement"})
    shot = next(a for a in actions(server, gid, nat) if a["type"] == "shoot")
    target = shot["targets"][0]

    open_game(page, server, gid)
    expect(page.locator("#turn")).to_contain_text("Shooting phase")
    expect(page.locator("#turn")).to_contain_text("step hmg")
    page.locator(f'#selection button[data-unit="{shot["unit"]}"]').click()
    expect(page.locator(f'#board .unit-target[data-unit="{target["target"]}"]')).to_have_count(1)
    page.locator(f'#board .unit[data-unit="{target["target"]}"] .figure').first.click()
    expect(page.locator("#shot-needed")).to_have_text(f" — hits on {target['needed']}+")
    expect(page.locator(".preview")).to_contain_text(f'{target["distance"]:g}" of 40" range')
    expect(page.locator(".preview .modifiers")).to_contain_text(
        "target over half range: -1 (SHOOTING)"
    )
    page.locator("input[name=dice]").fill("3")
    page.locator("input[name=dice]").dispatch_event("change")
    page.screenshot(path=shots / "table-shot-preview.png", full_page=True)
    page.get_by_role("button", name=re.compile("Confirm: fire at")).click()
    expect(page.locator("#log")).to_contain_text(f"{shot['unit']} fires HMG")
    events = requests.get(f"{server.url}/api/games/{gid}/events?limit=500").json()["events"]
    resolved = next(e for e in events if e["type"] == "ShotResolved")["payload"]["data"]
    assert resolved["targets"][0]["target"] == target["target"]
    assert len(resolved["targets"][0]["dice"]) == 3
    expect(page.locator("#message")).to_be_empty()
    page.context.close()
