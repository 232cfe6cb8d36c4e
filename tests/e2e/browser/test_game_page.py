"""The game page a club plays on (issue 16), in Debian's Chromium at 1366×900 and 390×844: a Merida
movement with the board zoomed, panned and centred on the unit; an attack with its result shown in
place; a time-travel view opened by URL; the phone's bottom sheet; and no internal id, ``[object``
or Python repr in the visible text of the game, log, audit and dispute pages.

Screenshots go to the session's folder and, with ``ARBITER_DOC_SHOTS=<dir>``, the ones docs/web.md
shows are written there too (``make`` does not run this; see docs/web.md)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow(
        "Chromium against a server of its own: Merida played on the game page at two sizes"
    ),
]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
# an internal unit id as the rules modules make them ("n-1-21-div", "r-37-div-1")
UNIT_ID = re.compile(r"\b[nr]-[a-z0-9]+(?:-[a-z0-9]+)+\b")
REPRS = ("[object", "{'", "['")


def doc_shot(page: Any, shots: Path, name: str, **kwargs: Any) -> None:
    page.screenshot(path=shots / name, **kwargs)
    folder = os.environ.get("ARBITER_DOC_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=Path(folder) / name, **kwargs)


def assert_words_only(page: Any, where: str) -> None:
    """No internal unit id, ``[object`` or Python repr in the page's visible text."""
    text = page.locator("body").inner_text()
    ids = UNIT_ID.findall(text)
    assert not ids, f"{where} shows internal ids: {ids[:5]}"
    for bad in REPRS:
        assert bad not in text, f"{where} shows {bad!r}"


def assert_in_view(page: Any, selector: str) -> None:
    """The centre of ``selector``'s first element lies inside the board's visible frame."""
    frame = page.locator(".board-frame").bounding_box()
    mark = page.locator(selector).first.bounding_box()
    x, y = mark["x"] + mark["width"] / 2, mark["y"] + mark["height"] / 2
    assert frame["x"] <= x <= frame["x"] + frame["width"], (selector, mark, frame)
    assert frame["y"] <= y <= frame["y"] + frame["height"], (selector, mark, frame)


# -- a Merida game driven through the API up to the moment the browser takes over -------------------
class Merida:
    def __init__(self, server: Server) -> None:
        self.server = server
        scenario = next(
            s["id"]
            for s in requests.get(f"{server.url}/api/scenarios").json()
            if s["system"] == "merida"
        )
        server.user("franco")
        server.user("rojo")
        r = requests.post(
            f"{server.url}/api/games",
            json={
                "system": "merida",
                "scenario": scenario,
                "sides": {"nationalist": "franco", "republican": "rojo"},
            },
            headers=server.user("franco"),
        )
        assert r.status_code == 201, r.text
        self.id = r.json()["id"]
        server.accept(self.id, "rojo")  # the named opponent accepts the invitation
        board = requests.get(f"{server.url}/api/systems/merida/scenarios/{scenario}/board").json()
        self.at = {h["hex"]: (h["x"], h["y"]) for h in board["hexes"]}

    def game(self) -> dict[str, Any]:
        return self.server.read(f"/api/games/{self.id}")

    def actions(self, user: str) -> dict[str, Any]:
        r = requests.get(
            f"{self.server.url}/api/games/{self.id}/actions", headers=self.server.user(user)
        )
        assert r.ok, r.text
        return r.json()

    def send(self, user: str, template: dict[str, Any], **picks: Any) -> None:
        command = {"type": template["type"], **template["fixed"]}
        for name, choice in template["choose"].items():
            command[name] = picks.get(
                name,
                choice["one_of"][0] if "one_of" in choice else choice["some_of"][: choice["min"]],
            )
        self.server.command(self.id, user, command)

    def adjacent(self, a: str, b: str) -> bool:
        return abs(math.dist(self.at[a], self.at[b]) - math.sqrt(3)) < 0.05

    def deploy(self) -> None:
        """The Republican set-up (the two placements the scenario leaves), then its end."""
        for unit, hex_ in (("r-37-div-4", "Y7"), ("r-68-div-4", "AC10")):
            t = next(t for t in self.actions("rojo")["actions"] if t["fixed"].get("unit") == unit)
            self.send("rojo", t, **{next(iter(t["choose"])): hex_})
        end = next(t for t in self.actions("rojo")["actions"] if t["type"] == "end_phase")
        self.send("rojo", end)

    def user_of(self, side: str) -> str:
        return "franco" if side == "nationalist" else "rojo"

    def finish_phase(self) -> None:
        """End the acting side's phase, first moving whatever the rules say must move (rule 10) and
        placing and removing what the Reinforcement table brings and takes (rule 12)."""
        side = self.game()["active_sides"][0]
        user = self.user_of(side)
        for _ in range(30):
            acts = self.actions(user)
            end = [t for t in acts["actions"] if t["type"].startswith("end")]
            if end:
                return self.send(user, end[0])
            removal = [t for t in acts["actions"] if t["type"] in ("remove", "place_reinforcement")]
            if removal:  # the Reinforcement table's placements and removals due (rule 12)
                self.send(user, removal[0])
                continue
            must = [b for b in acts["blocked"] if "must move" in b["reason"]]
            assert must, acts["blocked"]
            unit = must[0]["reason"].split(" is out of command")[0]
            t = next(t for t in acts["actions"] if t["label"].startswith(f"Move {unit} ("))
            self.send(user, t)
        raise AssertionError("the phase did not end")


@pytest.fixture(scope="module")
def merida(server: Server) -> Merida:
    game = Merida(server)
    game.deploy()
    return game


def test_a_merida_movement_on_a_zoomable_board(
    browser: Any, server: Server, merida: Merida, shots: Path
) -> None:
    from playwright.sync_api import expect

    page = signed_in(browser, server, "franco", DESKTOP)
    page.goto(f"/games/{merida.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#turn")).to_contain_text("Movement phase")
    board = page.locator("#board")
    # the board fills its frame (no 2,700 px scroll box) and starts at a legible zoom
    box = board.bounding_box()
    assert box and box["height"] <= DESKTOP["height"] and box["width"] > 800
    assert float(board.get_attribute("data-zoom") or 0) >= 0.5
    # rule 2: Nationalist counters blue, Republican green
    assert page.locator('.counter[data-unit="n-1-21-div"]').get_attribute("class").count("side-1")
    assert page.locator('.counter[data-unit="r-37-div-4"]').get_attribute("class").count("side-2")
    # zoom by button and keyboard; 0 fits the whole map
    before = float(board.get_attribute("data-zoom") or 0)
    page.locator("#zoom-in").click()
    assert float(board.get_attribute("data-zoom") or 0) > before
    board.focus()
    page.keyboard.press("0")
    fitted = float(board.get_attribute("data-zoom") or 0)
    assert fitted < before
    assert "zoom-far" in (board.get_attribute("class") or "")  # less detail, not tiny text
    # a drag pans (the view box moves) and selects nothing
    view = board.get_attribute("viewBox")
    page.keyboard.press("+")
    page.keyboard.press("+")
    view = board.get_attribute("viewBox")
    page.mouse.move(box["x"] + 300, box["y"] + 300)
    page.mouse.down()
    page.mouse.move(box["x"] + 200, box["y"] + 200, steps=5)
    page.mouse.up()
    assert board.get_attribute("viewBox") != view
    expect(page.locator("#selection h3")).to_have_count(0)
    # selecting a unit in the side list centres it at a legible size
    page.locator('#selection button[data-unit="n-1-21-div"]').click()
    expect(page.locator("#selection")).to_contain_text("Selected: 1/21 Div")
    assert float(board.get_attribute("data-zoom") or 0) >= 0.9
    counter = page.locator('.counter[data-unit="n-1-21-div"]').bounding_box()
    frame = page.locator(".board-frame").bounding_box()
    assert counter and frame
    assert frame["x"] < counter["x"] < frame["x"] + frame["width"]
    assert frame["y"] < counter["y"] < frame["y"] + frame["height"]
    # the orders panel stays in view
    orders = page.locator("#selection").bounding_box()
    assert orders and 0 <= orders["y"] < DESKTOP["height"]
    # a hex that is no destination says why
    page.locator('.hex[data-hex="AA3"] polygon').dispatch_event("click")
    expect(page.locator("#hex-why")).to_contain_text("not a legal destination for 1/21 Div")
    # a destination in the guerrilla's ZOC at Medellin (X3): before Confirm the page says the move
    # must stop there (rule 7) and oblige an attack (rule 8), from the server's preview
    page.locator('.mark[data-hex="Y3"]').click()
    warned = page.locator("#selection .consequences-list")
    expect(warned).to_contain_text("must stop there (rule 7)")
    expect(warned).to_contain_text("(rule 8)")
    page.locator("#selection").screenshot(path=shots / "move-preview-zoc.png")
    # the move itself
    page.locator('.mark[data-hex="Z3"]').click()
    expect(page.locator("#selection")).to_contain_text("→ Z3")
    # before Confirm: the server's preview of the move, its cost hex by hex (TEC) and anything it
    # would trigger (rules 6, 7, 8, 10), as the API gives it
    t = next(
        t for t in merida.actions("franco")["actions"] if t["label"].startswith("Move 1/21 Div (")
    )
    units = (
        t["fixed"].get("units") or t["choose"]["units"]["some_of"][: t["choose"]["units"]["min"]]
    )
    shown = requests.post(
        f"{server.url}/api/games/{merida.id}/preview",
        json={"command": {"type": "move", "units": units, "path": ["AA3", "Z3"]}},
        headers=server.user("franco"),
    ).json()
    costs = page.locator("#selection .move-costs")
    expect(costs).to_contain_text(shown["costs"][0]["text"])
    # the chart by its name, not its abbreviation (issue 51, finding 8)
    expect(costs).to_contain_text("(the Terrain Effects Chart)")
    expect(costs).not_to_contain_text("(TEC)")
    for item in shown["consequences"]:
        expect(page.locator("#selection .consequences-list")).to_contain_text(item["text"])
    page.locator("#selection").screenshot(path=shots / "move-preview.png")
    # a live update (another order of this side, from another window) keeps the order being entered
    other = next(
        t for t in merida.actions("franco")["actions"] if t["label"] == "Move 102 Div (tactical)"
    )
    merida.send("franco", other)
    version = merida.game()["version"]
    expect(page.locator("#slider")).to_have_attribute("max", str(version))
    expect(page.locator("#selection")).to_contain_text("→ Z3")
    doc_shot(page, shots, "game-desktop.png")
    page.get_by_role("button", name="Confirm: Move 1/21 Div (tactical) to Z3").click()
    expect(page.locator('.stack[data-hex="Z3"] .counter[data-unit="n-1-21-div"]')).to_have_count(1)
    expect(page.locator("#message")).to_be_empty()
    # End phase is disabled with the server's reason and rule while the rules refuse it
    blocked = page.locator('.blocked[data-type="end_phase"]')
    expect(blocked.locator("button")).to_be_disabled()
    expect(blocked).to_contain_text("(rule 10)")
    # the tables and the rules drawer
    page.locator('details.aid[data-table="crt_results"] summary').click()
    expect(page.locator('details.aid[data-table="crt_results"]')).to_contain_text("Exchange")
    # the sequence of play (rule 4) as a player aid, the current phase (C, movement) marked
    page.locator('details.aid[data-table="sequence"] summary').click()
    sequence = page.locator('details.aid[data-table="sequence"] table.sequence')
    expect(sequence.locator("tbody tr")).to_have_count(8)
    current = sequence.locator('tr[aria-current="step"]')
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-phases", "movement")
    expect(current).to_contain_text("Movement (now)")
    page.locator('details.aid[data-table="sequence"]').screenshot(path=shots / "sequence.png")
    page.locator("#rules-q").fill("retreat")
    expect(page.locator("#rules-results .rules-group").first).to_be_visible()
    assert_words_only(page, "the game page")
    page.context.close()


def test_a_zoom_made_while_the_orders_load_is_kept(
    browser: Any, server: Server, merida: Merida
) -> None:
    """The page frames the board twice: at once, and again round what the orders say to act on
    once they have loaded.  A person who zooms in between keeps their view: the second framing
    once took it back (the minimap, shown for the zoom, then hid under a whole-map view)."""
    from playwright.sync_api import expect

    page = signed_in(browser, server, "franco", DESKTOP)
    held: list[Any] = []
    holding = [True]
    page.route(
        "**/api/games/*/actions*",
        lambda route: held.append(route) if holding[0] else route.continue_(),
    )
    page.goto(f"/games/{merida.id}")
    board = page.locator("#board")
    expect(page.locator('.counter[data-unit="n-1-21-div"]')).to_have_count(1)
    page.wait_for_function("() => document.querySelector('#board').dataset.zoom")
    before = float(board.get_attribute("data-zoom") or 0)
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()
    zoomed = float(board.get_attribute("data-zoom") or 0)
    view = board.get_attribute("viewBox")
    assert zoomed > before
    assert held, "the orders were not asked for"
    assert page.locator(".game-page[data-ready=true]").count() == 0  # still loading
    holding[0] = False
    for route in held:
        route.continue_()
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    assert board.get_attribute("viewBox") == view
    assert float(board.get_attribute("data-zoom") or 0) == zoomed
    page.context.close()


def test_an_attack_with_its_result_in_place(
    browser: Any, server: Server, merida: Merida, shots: Path
) -> None:
    from playwright.sync_api import expect

    # 19 Div with its leader Solans (in command) next to the Republicans in S16, then on to combat
    t = next(
        t
        for t in merida.actions("franco")["actions"]
        if t["label"] == "Move 19 Div and Solans (L) (tactical)"
    )
    path = next(p for p in t["choose"]["path"]["one_of"] if p[-1] == "R15")
    merida.send("franco", t, path=path)
    for _ in range(6):
        acts = merida.actions("franco")
        if any(a["type"] == "attack" for a in acts["actions"]):
            break
        merida.finish_phase()
    target = next(a for a in merida.actions("franco")["actions"] if a["type"] == "attack")
    hex_ = target["fixed"]["hex"]
    # the defender watches the same game in another browser (issue 29, item 3)
    defender = signed_in(browser, server, "rojo", DESKTOP)
    defender.goto(f"/games/{merida.id}")
    expect(defender.locator(".game-page[data-ready=true]")).to_have_count(1)
    before = merida.game()["version"]
    page = signed_in(browser, server, "franco", DESKTOP)
    page.goto(f"/games/{merida.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#turn")).to_contain_text("Combat phase")
    # the board opens on the highlighted target (issue 29, item 6), not at a fixed spot
    assert_in_view(page, f'.mark-target[data-hex="{hex_}"]')
    page.locator(f'.mark-target[data-hex="{hex_}"]').first.dispatch_event("click")
    expect(page.locator("#odds-column")).not_to_have_text("")
    # each result of the column in words beside its code (issue 51, finding 8: A2, AR, EX, DR only)
    codes = page.locator("#selection .column-codes")
    expect(codes.locator("dt").first).not_to_have_text("")
    meanings = codes.locator("dd").all_inner_texts()
    assert meanings and all(len(m.split()) > 1 for m in meanings), meanings
    # the preview's column of the CRT fits its panel (issue 29, item 9: it stuck out by 23 px)
    panel = page.locator("#selection").bounding_box()
    crt = page.locator("#selection table.crt").bounding_box()
    inner = page.locator("#selection").evaluate(
        "el => el.getBoundingClientRect().right - parseFloat(getComputedStyle(el).paddingRight)"
    )
    assert panel and crt and crt["x"] + crt["width"] <= inner + 0.5, (crt, panel, inner)
    page.locator("#selection").screenshot(path=shots / "attack-preview.png")
    page.locator("#confirm").click()
    result = page.locator("#result")
    expect(result).to_contain_text("attack")
    expect(result.locator(".result-roll")).to_contain_text("die")
    expect(result.locator(".result-roll")).to_contain_text("modified roll")
    # what happened to the units is the events' own words, every one of the order's (issue 29,
    # item 2: the panel's guess said "holds" of a unit the log said was lost)
    told = [
        e["text"]
        for e in merida.server.read(f"/api/games/{merida.id}/events?after={before}")["events"]
        if e["kind"] == "Game.Recorded"
    ]
    assert told
    for text in told:
        expect(result).to_contain_text(text)
    expect(result.locator(".fates")).to_have_count(0)
    expect(result).not_to_contain_text("holds")
    # the defender is told too, in the same words, with the die and the table's cell
    theirs = defender.locator("#result")
    expect(theirs).to_contain_text("attacked", timeout=15000)
    expect(theirs.locator(".result-roll")).to_contain_text("die")
    for text in told:
        expect(theirs).to_contain_text(text)
    expect(theirs.locator("td.hit")).to_have_count(1)
    defender.context.close()
    # the CRT's column and row marked, and the key to the result code
    expect(result.locator("td.hit")).to_have_count(1)
    expect(result.locator(".result-meaning")).not_to_be_empty()
    expect(result.locator(".codes dt")).not_to_have_count(0)
    doc_shot(page, shots, "game-result.png")
    assert_words_only(page, "the game page after a combat")
    page.context.close()


def test_time_travel_by_url(browser: Any, server: Server, merida: Merida, shots: Path) -> None:
    from playwright.sync_api import expect

    page = signed_in(browser, server, "franco", DESKTOP)
    page.goto(f"/games/{merida.id}?v=5")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    expect(page.locator("#turn")).to_contain_text("Viewing version 5 of")
    expect(page.locator("#turn")).not_to_contain_text("Your turn")
    expect(page.locator("#general-actions")).to_contain_text("Orders are off")
    expect(page.locator(".log .event.current")).to_have_attribute("data-seq", "5")
    # the slider puts the version in the address; back to now takes it out
    page.locator(".log .event[data-seq='3'] button", has_text="show").click()
    expect(page).to_have_url(re.compile(r"\?v=3$"))
    page.get_by_role("button", name="Back to now").click()
    expect(page).not_to_have_url(re.compile(r"v="))
    assert_words_only(page, "the game page (log)")
    page.context.close()


def test_the_phone_bottom_sheet(browser: Any, server: Server, shots: Path) -> None:
    from playwright.sync_api import expect

    game = Merida(server)
    game.deploy()
    page = signed_in(browser, server, "franco", PHONE)
    page.goto(f"/games/{game.id}")
    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
    sheet = page.locator("#orders-sheet")
    assert sheet.evaluate("el => getComputedStyle(el).position") == "fixed"
    box = sheet.bounding_box()
    assert (
        box and box["y"] + box["height"] <= PHONE["height"] + 1 and box["y"] > PHONE["height"] / 2
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator('#selection button[data-unit="n-1-21-div"]').click()
    # the map comes back into view above the sheet with the unit in it
    counter = page.locator('.counter[data-unit="n-1-21-div"]').bounding_box()
    assert counter and 0 <= counter["y"] < box["y"]
    page.locator('.mark[data-hex="Y3"]').click()
    # the move's preview in the sheet: its cost and the ZOC it stops in (rule 7), before Confirm
    expect(page.locator("#selection .move-costs")).to_contain_text("MP")
    expect(page.locator("#selection .consequences-list")).to_contain_text("(rule 7)")
    page.screenshot(path=shots / "move-preview-phone.png")
    page.locator('.mark[data-hex="Z3"]').click()
    page.get_by_role("button", name="Confirm: Move 1/21 Div (tactical) to Z3").click()
    expect(page.locator('.stack[data-hex="Z3"] .counter[data-unit="n-1-21-div"]')).to_have_count(1)
    doc_shot(page, shots, "game-phone.png")
    # the sequence of play (rule 4) in the aids, the movement phase marked, fitting the phone
    page.locator('details.aid[data-table="sequence"] summary').click()
    now = page.locator('details.aid[data-table="sequence"] tr[aria-current="step"]')
    expect(now).to_have_attribute("data-phases", "movement")
    now.scroll_into_view_if_needed()
    page.screenshot(path=shots / "sequence-phone.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the handle lets the sheet down to its peek height and pulls it up again
    handle = page.locator("#sheet-handle")
    opened = handle.get_attribute("aria-expanded") == "true"
    handle.click()
    expect(handle).to_have_attribute("aria-expanded", str(not opened).lower())
    handle.click()
    expect(handle).to_have_attribute("aria-expanded", str(opened).lower())
    expect(page.locator("#sheet-body")).to_be_visible()
    assert_words_only(page, "the game page on a phone")
    page.context.close()


def test_audit_and_dispute_pages_read_as_words(
    browser: Any, server: Server, merida: Merida, shots: Path
) -> None:
    from playwright.sync_api import expect

    version = merida.game()["version"]
    r = requests.post(
        f"{server.url}/api/games/{merida.id}/disputes",
        json={"seq": version - 1, "claim": "The odds are wrong", "citations": []},
        headers=server.user("rojo"),
    )
    assert r.status_code == 201, r.text
    for viewport, name in ((DESKTOP, "audit-desktop.png"), (PHONE, "audit-phone.png")):
        page = signed_in(browser, server, "rojo", viewport)
        page.goto(f"/games/{merida.id}/audit")
        expect(page.locator("#audit-page[data-ready=true]")).to_have_count(1)
        page.locator("#diff-form button").click()
        expect(page.locator("#diff-result")).to_be_visible()
        assert_words_only(page, f"the audit page at {viewport['width']} px")
        # sides as words: the filter, the table and the disputes say "Republican", not its id
        expect(page.locator("#side-filter option[value=republican]")).to_have_text(
            "Republican (rojo)"
        )
        expect(
            page.locator(".audit-actions td", has_text=re.compile("^republican$"))
        ).to_have_count(0)
        expect(page.locator("#dispute-list")).to_contain_text("rojo (Republican) disputed")
        # no word broken in the middle in the table of who did what
        cells = page.locator(".audit-actions td").all_inner_texts()
        assert not any(re.search(r"\brepu\s+blica", c) for c in cells)
        page.locator("#diff-form").scroll_into_view_if_needed()
        page.screenshot(path=shots / name, full_page=False)
        page.goto(f"/games/{merida.id}")
        expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
        assert_words_only(page, "the game page with its disputes")
        page.context.close()
    # the arbiter's queue shows the dispute in words too
    server.grant("judge", "arbiter")
    page = signed_in(browser, server, "judge", DESKTOP)
    page.goto("/disputes")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    expect(page.locator("main")).to_contain_text("The odds are wrong")
    assert_words_only(page, "the dispute queue")
    page.context.close()


def test_my_games_names_the_game_once_and_its_sides_as_words(
    browser: Any, server: Server, merida: Merida
) -> None:
    """Issue 29, item 9: a Merida row said "Closing the Merida Pocket - Extremadura, 1938" twice
    (the scenario's title, then the system's, which it begins with) and its sides in lower case."""
    from playwright.sync_api import expect

    page = signed_in(browser, server, "franco", DESKTOP)
    page.goto("/")
    row = page.locator(f'.game-list li:has(a[href="/games/{merida.id}"])')
    expect(row).to_contain_text("Nationalist: franco, Republican: rojo")
    assert row.inner_text().count("Closing the Merida Pocket") == 1, row.inner_text()
    page.context.close()
