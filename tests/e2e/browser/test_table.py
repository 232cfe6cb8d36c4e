"""A miniatures game (Back to Barcelona) on the table renderer: the table to scale with its terrain,
units with their figures and facing; muster, deployment by clicking the table, written orders hidden
from the other side, a move composed point by point and measured against the rolled distance, and
a shot with the server's preview -- in two browser contexts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, on_a_phone, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: a Barcelona skirmish on the table in two browsers"
)

SIDES = {"nationalist": "tfranco", "republican": "trojo"}
ORDER = "advance on the enemy"


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
    game = server.read(f"/api/games/{game_id}")
    return {c["id"]: c for c in game["counters"]}


def deploy_the_rest(server: Server, game_id: str, user: str) -> None:
    """The remaining units at the first spot each template offers (through the API, to keep it
    short)."""
    for action in actions(server, game_id, user):
        if action["type"] == "deploy":
            x = action["choose"]["x"]["one_of"][0]
            server.command(game_id, user, {"type": "deploy", **action["fixed"], "x": x})


#: the pairs of unit labels on the table whose boxes intersect (names of both)
OVERLAPPING_LABELS = """() => {
  const boxes = [...document.querySelectorAll('#board .unit-label')].map((t) => [t.textContent, t.getBBox()]);
  const clash = [];
  boxes.forEach(([n, a], i) => boxes.slice(i + 1).forEach(([m, b]) => {
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) clash.push([n, m, [a.x, a.y, a.width, a.height].map(Math.round), [b.x, b.y, b.width, b.height].map(Math.round)]);
  }));
  return clash;
}"""

#: the unit labels that reach past the board's edges (cut off)
LABELS_CUT_OFF = """() => {
  const view = document.getElementById('board').viewBox.baseVal;
  return [...document.querySelectorAll('#board .unit-label')].map((t) => [t.textContent, t.getBBox()])
    .filter(([, b]) => b.x < view.x - 0.5 || b.x + b.width > view.x + view.width + 0.5).map(([n]) => n);
}"""


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
    gid = franco.url.rsplit("/", 1)[1]
    server.accept(gid, SIDES["republican"])  # the named opponent accepts the invitation
    franco.reload()
    expect(franco.locator(".game-page[data-ready=true]")).to_have_count(1)
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
    # no hex-map tools on a table: no zoom buttons that do nothing, no empty minimap
    expect(franco.locator(".board-tools")).to_be_hidden()
    expect(franco.locator("#minimap")).to_be_hidden()

    # the muster: each side chooses its troop type in the generic form and the server rolls
    for page, troops in ((franco, "Falangists"), (rojo, "Militia")):
        page.get_by_role("button", name="Generate a column…").click()
        page.get_by_label("Troop type").select_option(troops)
        page.get_by_role("button", name="Confirm: Generate a column").click()
        # both pages follow the column before the next order is given
        expect(rojo.locator("#log")).to_contain_text(f"generates a column of {troops}")
    expect(rojo.locator("#log")).to_contain_text("Republican generates a column of Militia")
    expect(rojo.locator("#turn")).to_contain_text("Deployment phase")

    # deployment, the defender first: the first unit placed where the player chooses in its form
    first = next(a for a in actions(server, gid, SIDES["republican"]) if a["type"] == "deploy")
    uid = first["fixed"]["unit"]
    rojo.locator(f'#selection button[data-unit="{uid}"]').click()
    rojo.locator("select[name=x]").select_option(label='30" from the left edge')
    rojo.get_by_role("button", name=f"Confirm: {first['label']}").click()
    unit = rojo.locator(f'#board .unit[data-unit="{uid}"]')
    expect(unit).to_have_count(1)
    placed = counters(server, gid)[uid]
    assert (placed["x"], placed["y"]) == (30, first["fixed"]["y"])
    expect(unit.locator(".position")).to_have_attribute("cx", f"{round(placed['x'] * 20, 1):g}")
    assert unit.locator(".figure").count() == counters(server, gid)[uid]["values"]["figures"]
    expect(franco.locator(f'#board .unit[data-unit="{uid}"]')).to_have_count(1)  # live
    deploy_the_rest(server, gid, SIDES["republican"])
    rojo.get_by_role("button", name="End the deployment").click()
    expect(franco.locator("#turn")).to_contain_text("Your turn")
    deploy_the_rest(server, gid, SIDES["nationalist"])
    franco.get_by_role("button", name="End the deployment").click()
    expect(franco.locator("#turn")).to_contain_text("Orders phase")
    # units deployed an inch or two apart: their names never print over each other
    assert franco.evaluate(OVERLAPPING_LABELS) == [], "unit labels overlap on the table"
    assert franco.evaluate(LABELS_CUT_OFF) == [], "unit labels cut off at the table's edge"

    # written orders: the Nationalist's stay hidden from the Republican until revealed
    franco.get_by_role("button", name="Write this turn's orders…").click()
    franco.locator("select[name=orders]").select_option(label="Every unit advances")
    franco.get_by_role("button", name="Confirm: Write this turn's orders").click()
    expect(franco.locator("#log")).to_contain_text(ORDER)
    expect(rojo.locator("#log")).to_contain_text(
        re.compile(r"Nationalist wrote orders for \d+ units \(hidden until they are revealed\)")
    )
    assert ORDER not in rojo.content()
    # the order itself, in the other side's log, says that its details are hidden
    expect(rojo.locator("#log")).to_contain_text(
        re.compile(r"Order: write orders \(details hidden\)")
    )
    rojo.screenshot(path=shots / "table-orders-hidden.png", full_page=True)
    # and the audit page says so too, without the order's words
    audit = rojo.context.new_page()
    audit.goto(f"{server.url}/games/{gid}/audit")
    expect(audit.locator("#audit-page[data-ready=true]")).to_have_count(1)
    expect(
        audit.locator(".audit-actions tbody tr", has_text="Order: write orders").first
    ).to_contain_text("(details hidden)")
    assert ORDER not in audit.content()
    audit.screenshot(path=shots / "audit-orders-hidden.png", full_page=True)
    on_a_phone(audit, "#audit-page[data-ready=true]", shots / "phone-audit-orders-hidden.png")
    audit.close()
    rojo.get_by_role("button", name="Write this turn's orders…").click()
    rojo.locator("select[name=orders]").select_option(label="Every unit advances")
    rojo.get_by_role("button", name="Confirm: Write this turn's orders").click()
    expect(franco.locator("#turn")).to_contain_text("Movement phase")
    # written orders in the writer's log name each unit, never by its id
    militia = next(c["name"] for c in counters(server, gid).values() if c["side"] == "republican")
    expect(rojo.locator("#log")).to_contain_text(f"{militia}: move true")
    expect(rojo.locator("#log")).not_to_contain_text(re.compile(r"\brep\d+ move"))

    # a move on the table: roll, then choose one of the positions the roll allows
    mover = sorted(u for u, c in counters(server, gid).items() if c["side"] == "nationalist")[0]
    franco.locator(f'#selection button[data-unit="{mover}"]').click()
    franco.get_by_role("button", name=re.compile("^Confirm: Roll to move")).click()
    expect(franco.locator("select[name=path]")).to_be_visible()  # the unit stays selected
    # the roll in the log names what it was for in words: the unit by its name, not its id
    name = counters(server, gid)[mover]["name"]
    expect(franco.locator("#log")).to_contain_text(f"movement {name}) rolled")
    expect(franco.locator("#log")).not_to_contain_text(f"movement {mover})")
    move = next(a for a in actions(server, gid, SIDES["nationalist"]) if a["type"] == "move")
    i, path = next((i, p) for i, p in enumerate(move["choose"]["path"]["one_of"]) if p)
    label = move["choose"]["path"]["labels"][i]
    franco.locator("select[name=path]").select_option(label=label)
    franco.screenshot(path=shots / "table-move.png", full_page=True)
    franco.get_by_role("button", name=f"Confirm: {move['label']}").click()
    expect(rojo.locator("#log")).to_contain_text(" moves ")
    # the order in its player's log: the path's points on the table in inches, as "(x, y)"
    expect(franco.locator("#log")).to_contain_text(
        "path " + " → ".join(f"({x:g}, {y:g})" for x, y in (map(float, p) for p in path))
    )
    end = path[-1]
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
    server.accept(gid, rep)  # the named opponent accepts the invitation
    page = signed_in(browser, server, nat)
    open_game(page, server, gid)
    page.get_by_role("button", name=re.compile("^Buy a unit")).click()
    unit_select = page.locator("select[name=unit]")
    expect(unit_select).to_contain_text("HMG team (Assaltos crew) (24 points)")
    unit_select.select_option(label="HMG team (Assaltos crew) (24 points)")
    page.screenshot(path=shots / "table-buy.png", full_page=True)
    page.get_by_role("button", name=re.compile("^Confirm: Buy a unit")).click()
    expect(page.locator("#message")).to_be_empty()
    expect(page.locator("#log")).to_contain_text(re.compile(r"Nationalist buys .+ for \d+ points"))
    state = requests.get(f"{server.url}/api/games/{gid}", headers=server.user(nat)).json()
    [bought] = [u for u in state["state"]["units"].values() if u["side"] == "nationalist"]
    assert (bought["kind"], bought["weapons"], bought["troop_type"]) == (
        "team",
        ["HMG"],
        "Assaltos",
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
    targets = shot["choose"]["targets"]
    [target] = targets["one_of"][0]
    line = targets["labels"][0]

    open_game(page, server, gid)
    expect(page.locator("#turn")).to_contain_text("Shooting phase")
    expect(page.locator("#turn")).to_contain_text("step hmg")
    page.locator(f'#selection button[data-unit="{shot["fixed"]["unit"]}"]').click()
    if len(targets["one_of"]) > 1:
        page.locator("select[name=targets]").select_option(label=line)
    preview = requests.post(
        f"{server.url}/api/games/{gid}/preview",
        json={"command": {"type": "shoot", **shot["fixed"], "targets": [target]}},
        headers=server.user(nat),
    ).json()["targets"][0]
    expect(page.locator("#shot-needed")).to_have_text(f" — hits on {preview['needed']}+")
    expect(page.locator(".preview")).to_contain_text(f'{preview["distance"]:g}" of 40" range')
    expect(page.locator(".preview .modifiers")).to_contain_text(
        "target over half range: -1 (SHOOTING)"
    )
    page.screenshot(path=shots / "table-shot-preview.png", full_page=True)
    page.get_by_role("button", name=f"Confirm: {shot['label']}").click()
    expect(page.locator("#log")).to_contain_text("fires its HMG")
    events = server.read(f"/api/games/{gid}/events?limit=500")["events"]
    resolved = next(e for e in events if e["type"] == "ShotResolved")["payload"]["data"]
    assert resolved["targets"][0]["target"] == target["unit"]
    assert len(resolved["targets"][0]["dice"]) == target["dice"]
    expect(page.locator("#message")).to_be_empty()
    page.context.close()
