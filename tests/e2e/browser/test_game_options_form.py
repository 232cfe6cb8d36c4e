"""A game's optional rules chosen on the home form: the scenario's own options drawn as controls
(with their rule numbers and words), changed with the system, and sent with the new game; on a
phone they fit the screen."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in


def backbone_options(page: Any, path: str, form_id: str) -> Any:
    """The form at ``path`` set to Backbone's scenario 1 with its options open."""
    page.goto(path)
    form = page.locator(form_id)
    form.get_by_label("Rules system").select_option("backbone")
    form.get_by_label("Scenario").select_option("scenario-1")
    form.locator("summary", has_text="Options").click()
    return form


def test_optional_rules_are_chosen_on_the_home_form(
    browser: Any, server: Server, shots: Path
) -> None:
    page = signed_in(browser, server, "oana")
    form = backbone_options(page, "/", "#create-form")
    intelligence = form.get_by_role("checkbox", name=re.compile("^Limited intelligence"))
    expect(intelligence).not_to_be_checked()
    expect(form.locator('[data-option="limited_intelligence"]')).to_contain_text("19.2")
    expect(form.get_by_label(re.compile("^Baraka dice"))).to_have_value("0")  # the default
    intelligence.check()
    form.get_by_label(re.compile("^Decisions")).select_option(label="automatic")
    page.screenshot(path=shots / "home-options-desktop.png", full_page=True)

    form.get_by_label("Rules system").select_option("bizkaya")  # another scenario's own options
    # the scenario's one and the two readings the rules module declares for every scenario
    expect(form.locator("[data-option]")).to_have_count(3)
    expect(form.locator('[data-option="zoc_retreat_loss"]')).to_contain_text("one step per stack")
    expect(form.locator('[data-option="euphoria_doubling"]')).to_contain_text("6 Euphoria")
    expect(form.locator('[data-option="hold_check"]')).to_contain_text("13 Holding")
    form.get_by_label("Rules system").select_option("backbone")  # drawn again, at its defaults
    expect(intelligence).not_to_be_checked()
    form.get_by_role("checkbox", name=re.compile("^Limited intelligence")).check()
    form.get_by_role("textbox", name="spanish").fill("oana")  # both sides: it starts at once
    form.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    game = server.api("GET", "/api/games/" + page.url.rsplit("/", 1)[1], "oana")
    assert game["options"]["limited_intelligence"] is True
    expect(page.locator("#game-options")).to_have_text(  # the rules in force, on the game page
        "Options: limited intelligence: yes (the scenario's own otherwise)"
    )
    assert game["options"]["decisions"] == "players"  # the form was drawn again for Backbone

    page.set_viewport_size(PHONE)
    page.goto("/")
    form.get_by_label("Rules system").select_option("barcelona")
    form.locator("summary", has_text="Options").click()
    expect(form.get_by_label(re.compile("^Turns"))).to_have_value("8")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=shots / "home-options-phone.png", full_page=True)
    page.context.close()


def test_an_open_game_carries_its_options_and_says_them(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "oseek")
    form = backbone_options(page, "/seeks", "#seek-form")
    form.get_by_role("checkbox", name=re.compile("^Limited intelligence")).check()
    form.get_by_role("button", name="Open the game").click()
    row = page.locator("#seeks li.seek", has_text="oseek plays")
    expect(row.locator(".seek-options")).to_have_text("options: limited intelligence: yes")
    joiner = signed_in(browser, server, "ojoin")
    joiner.goto("/seeks")
    joiner.locator("#seeks li.seek", has_text="oseek plays").get_by_role(
        "button", name="Join"
    ).click()
    expect(joiner).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    game = server.api("GET", "/api/games/" + joiner.url.rsplit("/", 1)[1], "ojoin")
    assert game["options"]["limited_intelligence"] is True
    page.context.close()
    joiner.context.close()
