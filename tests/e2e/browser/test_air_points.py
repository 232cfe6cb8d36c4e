"""Two air points of one type (Merida's turn 1-3 nationalist air: "Fiat 2", rule 8's air table) are
two boxes on the game page, each ticked on its own, and both go in one order (issue 29, item 4: the
two "Fiat" boxes shared one value, so ticking one ticked both and the order sent one Fiat)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser.conftest import Server, signed_in
from tests.e2e.browser.test_game_page import DESKTOP, Merida

pytestmark = pytest.mark.browser


def offered(server: Server, kind: str) -> tuple[Merida, dict[str, Any]]:
    """A new Merida game played through the API up to the first order of ``kind`` the
    Nationalists are offered on turn 1 (19 Div and its leader moved next to the Republicans in
    R15, so that a hex can be attacked), and that order."""
    merida = Merida(server)
    merida.deploy()
    t = next(
        t
        for t in merida.actions("franco")["actions"]
        if t["label"] == "Move 19 Div and Solans (L) (tactical)"
    )
    merida.send("franco", t, path=next(p for p in t["choose"]["path"]["one_of"] if p[-1] == "R15"))
    for _ in range(8):
        found = [a for a in merida.actions("franco")["actions"] if a["type"] == kind]
        if found:
            return merida, found[0]
        merida.finish_phase()
    raise AssertionError(f"no {kind} offered")


def test_two_air_points_of_one_type_are_two_boxes(
    browser: Any, server: Server, shots: Path
) -> None:
    from playwright.sync_api import expect

    merida, air = offered(server, "allocate_air")
    assert air["choose"]["air"]["some_of"] == ["Fiat", "Fiat"]  # the table's "Fiat 2"
    before = merida.game()["version"]

    page = signed_in(browser, server, "franco", DESKTOP)
    page.goto(f"/games/{merida.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    page.get_by_role("button", name=air["label"]).click()
    boxes = page.locator('fieldset[data-field="air"] input[type=checkbox]')
    expect(boxes).to_have_count(2)
    for i in (0, 1):
        boxes.nth(i).uncheck()
    boxes.nth(1).check()
    expect(boxes.nth(0)).not_to_be_checked()
    boxes.nth(0).check()
    boxes.nth(0).uncheck()  # one of the two taken back: the other stays committed
    expect(boxes.nth(1)).to_be_checked()
    page.screenshot(path=shots / "air-points-two-boxes.png")
    page.locator("form.compose button[type=submit]").click()
    expect(page.locator("#result")).to_contain_text("Fiat", timeout=15000)

    def sent() -> list[Any]:
        return [
            e["payload"]["command"]["air"]
            for e in server.read(f"/api/games/{merida.id}/events?after={before}")["events"]
            if e["kind"] == "Game.CommandAccepted"
        ]

    assert sent() == [["Fiat"]]  # before: the unticked box took its twin's point with it
    # the other Fiat is still there to commit, as one box, and then none is offered
    again = next(a for a in merida.actions("franco")["actions"] if a["type"] == "allocate_air")
    assert again["choose"]["air"]["some_of"] == ["Fiat"]
    page.get_by_role("button", name=again["label"]).click()  # one point: no form to fill
    for _ in range(50):
        if len(sent()) == 2:
            break
        page.wait_for_timeout(100)
    assert sent() == [["Fiat"], ["Fiat"]]
    assert not any(a["type"] == "allocate_air" for a in merida.actions("franco")["actions"])
    page.context.close()


def test_the_board_opens_on_the_target_on_a_phone(browser: Any, server: Server) -> None:
    """Issue 29, item 6: on a reload in the combat phase the board opened around the units (or at
    a fixed spot) while the orders said "Choose a highlighted target hex" of a hex off-screen."""
    from playwright.sync_api import expect

    from tests.e2e.browser.test_game_page import PHONE, assert_in_view

    merida, target = offered(server, "attack")
    page = signed_in(browser, server, "franco", PHONE)
    page.goto(f"/games/{merida.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    assert_in_view(page, f'.mark-target[data-hex="{target["fixed"]["hex"]}"]')
    page.context.close()
