"""The open-games page pages through GET /api/seeks (50 a page) with the game lists' one helper
(web/static/js/paged.js): "More open games" appends the next page, one request at a time, and goes
after the last; every open game is listed once, newest first.  Before, the page had its own copy
that appended the same page twice on a double click."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's own server: ``opener`` offers 55 open games at once (the cap is 10 by default)."""
    srv = Server(
        tmp_path_factory.mktemp("arbiter") / "var", extra_env={"ARBITER_SEEKS_PER_USER": "100"}
    )
    yield srv
    srv.stop()


OPEN = 55  # a page of 50, then 5


@pytest.fixture(scope="module")
def seeks(server: Server) -> list[str]:
    session = requests.Session()
    session.headers.update(server.user("opener"))
    ids = []
    for _ in range(OPEN):
        r = session.post(
            server.url + "/api/seeks",
            json={"system": "skirmish", "scenario": "meeting", "side": "blue", "public": True},
        )
        assert r.status_code == 201, r.text
        ids.append(str(r.json()["id"]))
    return ids[::-1]  # newest first


def test_more_open_games_pages_through_every_open_game_once(
    browser: Any, server: Server, seeks: list[str]
) -> None:
    page = signed_in(browser, server, "joiner")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/seeks?" in r.url else None)
    page.goto("/seeks")
    rows = page.locator("#seeks > li")
    expect(rows).to_have_count(50)
    more = page.get_by_role("button", name="More open games")
    expect(more).to_be_visible()
    more.dblclick()  # a double click asks once
    expect(rows).to_have_count(OPEN)
    expect(more).to_be_hidden()
    assert len([u for u in asked if "after=" in u]) == 1, asked
    joins = page.locator("#seeks > li button", has_text="Join")
    expect(joins).to_have_count(OPEN)
    text = page.locator("#seeks").inner_text()
    assert "[object" not in text and "undefined" not in text
    assert text.count("opener plays Blue") == OPEN
    page.context.close()
