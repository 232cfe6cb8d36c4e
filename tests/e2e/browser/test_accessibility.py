"""Issue 29's accessibility check: axe-core (the axe-playwright-python package bundles it) finds no
serious or critical violation on the game, rules, audit, review, report, dispute and queue pages and
the home page, at 1366x900 and 390x844, and none of them logs a console error.  The game is Merida's rules on the drill scenario, a combat disputed
under a claimed reading (tests.fixtures.merida_drill)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in
from tests.e2e.browser.test_dispute_page import _disputed_combat

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: axe-core over every page of a game"
)

DESKTOP = {"width": 1366, "height": 900}


def _serious(page: Any) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']} -- {v['help']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def test_the_pages_of_a_game_have_no_serious_accessibility_violation(
    browser: Any, drill: Server, shots: Path
) -> None:
    gid, _, dispute = _disputed_combat(drill)
    drill.grant("wjudge", "arbiter")
    pages = {
        "wrojo": [
            "/",
            f"/games/{gid}",
            "/rules",
            f"/games/{gid}/audit",
            f"/games/{gid}/review",
            f"/api/games/{gid}/report.html",
        ],
        "wjudge": [f"/games/{gid}/disputes/{dispute}", "/disputes"],
    }
    problems: dict[str, list[str]] = {}
    for user, paths in pages.items():
        for viewport in (DESKTOP, PHONE):
            page = signed_in(browser, drill, user, viewport)
            # and no console error on any of them (issue 51: the report page had 3, a dispute 1)
            errors: list[str] = []
            page.on(
                "console", lambda m, seen=errors: seen.append(m.text) if m.type == "error" else None
            )
            page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
            for path in paths:
                errors.clear()
                page.goto(path)
                page.wait_for_load_state("networkidle")  # every page's data has come
                if path.startswith(f"/games/{gid}") and path.count("/") == 2:
                    expect(page.locator(".game-page[data-ready=true]")).to_have_count(1)
                found = _serious(page) + [f"console: {e}" for e in errors]
                if found:
                    problems[f"{path} at {viewport['width']}"] = found
            page.context.close()
    assert problems == {}
