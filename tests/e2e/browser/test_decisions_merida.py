"""Issue 19 in the browser: a Merida combat forces losses and a retreat; the defender, on the game
page, keeps the weakest unit and loses another, then takes the second retreat path -- through the
generic rendering of the action vocabulary (a button per template, a form for its choices).

The game is Merida's rules module on the test scenario of ``tests.fixtures.merida_drill``; the
Nationalist's orders up to the attack go through the API to keep the test small."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

SIDES = {"nationalist": "dfranco", "republican": "drojo"}


def _actions(server: Server, game_id: str, user: str) -> list[dict[str, Any]]:
    r = requests.get(f"{server.url}/api/games/{game_id}/actions", headers=server.user(user))
    return list(r.json()["actions"])


def _state(server: Server, game_id: str) -> dict[str, Any]:
    return dict(server.read(f"/api/games/{game_id}"))


def test_the_defender_chooses_loss_and_retreat_on_the_game_page(
    browser: Any, drill: Server, shots: Path
) -> None:
    for name in SIDES.values():
        drill.user(name)
    game = drill.api(
        "POST",
        "/api/games",
        "dfranco",
        json={"system": "merida-drill", "scenario": "decisions-drill", "sides": SIDES},
    )
    gid = game["id"]
    drill.accept(gid, *(name for name in SIDES.values() if name != "dfranco"))  # the invitation
    while _state(drill, gid)["phase"]["phase"] != "combat":
        side = _state(drill, gid)["active_sides"][0]
        drill.command(gid, SIDES[side], {"type": "end_phase"})
    [attack] = [t for t in _actions(drill, gid, "dfranco") if t["type"] == "attack"]
    drill.command(
        gid,
        "dfranco",
        {"type": "attack", "hex": "E5", "attackers": attack["choose"]["attackers"]["some_of"]},
    )
    assert _state(drill, gid)["active_sides"] == ["republican"]

    rojo = signed_in(browser, drill, "drojo")
    rojo.goto(f"/games/{gid}")
    expect(rojo.locator(".game-page[data-ready=true]")).to_have_count(1)
    rojo.get_by_role("button", name=re.compile("^Choose the defending units")).click()
    units = rojo.locator("select[name=units]")
    labels = units.locator("option").all_inner_texts()
    assert labels and labels[0].startswith("XI Bde")  # the weakest is listed first
    keep_weakest = next(label for label in labels if "XI Bde" not in label)
    units.select_option(label=keep_weakest)
    rojo.screenshot(path=str(shots / "decisions-merida-loss-1366.png"))
    rojo.locator("#confirm").click()
    expect(rojo.locator("#log")).to_contain_text("chosen by the Republican player")

    # the retreat is chosen on the map: each candidate path drawn to the hex it ends in (issue 29)
    decide = rojo.locator(".mark.mark-decide")
    expect(decide.first).to_be_visible()
    # opened afresh, the page says a retreat is due (it said "Nothing to order on the map now")
    # and shows its hexes in the board's frame (issue 51, finding 6)
    rojo.reload()
    expect(rojo.locator(".game-page[data-ready=true]")).to_have_count(1)
    hint = rojo.locator("#selection-body p").first
    expect(hint).to_contain_text(
        re.compile(r"^Choose the retreat of .*: choose one of the \d+ highlighted hexes")
    )
    frame = rojo.locator(".board-frame").bounding_box()
    boxes = [decide.nth(i).bounding_box() for i in range(decide.count())]
    assert frame and any(
        b and frame["x"] <= b["x"] + b["width"] / 2 <= frame["x"] + frame["width"]
        and frame["y"] <= b["y"] + b["height"] / 2 <= frame["y"] + frame["height"]
        for b in boxes
    )  # fmt: skip
    assert decide.count() >= 2 and rojo.locator(".mark-decide .mark-path").count() == decide.count()
    rojo.locator("button", has_text=re.compile("^Choose the retreat of")).click()  # the list's
    paths = rojo.locator("select[name=path]")
    places = paths.locator("option").all_inner_texts()
    assert len(places) >= 2
    rojo.get_by_role("button", name="Cancel").click()
    second = rojo.locator(".mark.mark-decide")
    target = next(
        i for i in range(second.count())
        if (second.nth(i).get_attribute("aria-label") or "").endswith(f": {places[1]}")
    )  # fmt: skip
    second.nth(target).click()  # the map picks it, as the list would
    expect(rojo.locator("select[name=path] option:checked")).to_have_text(places[1])
    expect(rojo.locator(".mark.mark-chosen .mark-path")).to_have_count(1)
    rojo.screenshot(path=str(shots / "decisions-merida-retreat-on-map.png"))
    rojo.locator("#confirm").click()
    moved = re.compile(rf"retreats? from Guarena \(E5\) to {re.escape(places[1])}")
    expect(rojo.locator("#log")).to_contain_text(moved)

    state = _state(drill, gid)
    assert state["active_sides"] == ["nationalist"]
    assert state["state"]["units"]["r-xi"]["hex"] in places[1]
    lost = [u for u in state["state"]["units"].values() if u["status"] == "eliminated"]
    assert lost and all(u["id"] != "r-xi" for u in lost)

    phone = signed_in(browser, drill, "dfranco", viewport=PHONE)
    phone.goto(f"/games/{gid}")
    expect(phone.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(phone.locator("#log")).to_contain_text("XI Bde")
    phone.screenshot(path=str(shots / "decisions-merida-390.png"), full_page=True)
