"""The game lists page through GET /api/games (50 a page) instead of showing only the first 50:
"More games" on the home page, "More finished games" and "More games in play" on the archive,
each shown while the API names a next page (X-Next-Cursor), appending that page, and gone after
the last; every game is listed once.  Screenshots of both pages at 1366x900 and 390x844."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PHONE, Server, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's own server: ``pager`` holds 57 hot-seat games in progress at once (the cap is 20 by default)."""
    srv = Server(
        tmp_path_factory.mktemp("arbiter") / "var", extra_env={"ARBITER_HOTSEAT_PER_USER": "200"}
    )
    yield srv
    srv.stop()


DESKTOP = {"width": 1366, "height": 900}
REPRS = ("[object", "{'", "['", "None", "undefined")
ENDED = 55  # finished games: a page of 50, then 5
ACTIVE = 57  # public games in play: 50, then 7 (the home page: 112 games, 50 + 50 + 12)


@pytest.fixture(scope="module")
def games(server: Server) -> dict[str, list[str]]:
    """``pager`` plays both sides of every game (so each starts at once): ENDED games resigned,
    ACTIVE public games in play; a few seconds of API calls."""
    session = requests.Session()
    session.headers.update(server.user("pager"))

    def create(public: bool) -> str:
        r = session.post(
            server.url + "/api/games",
            json={
                "system": "skirmish",
                "scenario": "meeting",
                "sides": {"red": "pager", "blue": "pager"},
                "public": public,
            },
        )
        assert r.status_code == 201, r.text
        return str(r.json()["id"])

    ended = [create(public=False) for _ in range(ENDED)]
    for gid in ended:
        r = session.post(f"{server.url}/api/games/{gid}/resign", json={"side": "red"})
        assert r.ok, r.text
    active = [create(public=True) for _ in range(ACTIVE)]
    return {"ended": ended, "active": active}


def listed(page: Any, selector: str) -> list[str]:
    """The game ids the list links to, in order (each row's first link)."""
    hrefs = page.locator(f"{selector} > li > a:first-child").evaluate_all(
        "links => links.map((a) => a.getAttribute('href'))"
    )
    return [re.sub(r"^/games/", "", h) for h in hrefs]


def page_through(page: Any, selector: str, more: Any, pages: list[int]) -> list[str]:
    """Click ``more`` until it goes: the list grows by each of ``pages`` in turn; its ids."""
    total = pages[0]
    expect(page.locator(f"{selector} > li")).to_have_count(total)
    for size in pages[1:]:
        expect(more).to_be_visible()
        more.click()
        total += size
        expect(page.locator(f"{selector} > li")).to_have_count(total)
    expect(more).to_be_hidden()
    return listed(page, selector)


def words_only(page: Any, *lists: str) -> None:
    """The lists' text is words: no raw value, no game id."""
    text = "\n".join(page.locator(selector).inner_text() for selector in lists)
    for bad in REPRS:
        assert bad not in text, (bad, text)
    assert not re.search(r"\b[0-9a-f]{8}-[0-9a-f]{4}-", text), text


def test_more_games_on_the_home_page(
    browser: Any, server: Server, games: dict[str, list[str]], shots: Path
) -> None:
    page = signed_in(browser, server, "pager", DESKTOP)
    requested: list[str] = []
    page.on(
        "request",
        lambda r: (
            requested.append(r.url) if "/api/games?" in r.url and "mine=true" in r.url else None
        ),
    )
    page.goto("/")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    more = page.get_by_role("button", name="More games")
    expect(more).to_be_visible()
    more.scroll_into_view_if_needed()
    page.screenshot(path=shots / "pages-home-1366.png")
    ids = page_through(page, "#games", more, [50, 50, 12])
    everything = games["ended"] + games["active"]
    assert len(ids) == len(set(ids)) == len(everything)  # each game once
    assert set(ids) == set(everything)
    assert ids == list(reversed(games["active"])) + list(reversed(games["ended"]))  # newest first
    assert len(requested) == 3 and all("limit=50" in u for u in requested), requested
    assert "after=" not in requested[0] and all("after=" in u for u in requested[1:])
    words_only(page, "#games")
    page.context.close()


def test_more_games_is_a_keyboard_button(
    browser: Any, server: Server, games: dict[str, list[str]]
) -> None:
    """Enter on the focused button loads the next page; after the last page, keyboard focus
    goes on to the first game that page brought (not back to the top of the page)."""
    page = signed_in(browser, server, "pager", DESKTOP)
    page.goto("/")
    more = page.get_by_role("button", name="More games")
    expect(more).to_be_visible()
    more.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#games > li")).to_have_count(100)
    expect(more).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#games > li")).to_have_count(112)
    expect(more).to_be_hidden()
    focused = page.locator("#games > li:nth-child(101) > a:first-child")
    expect(focused).to_be_focused()
    page.context.close()


def test_more_games_on_the_archive(
    browser: Any, server: Server, games: dict[str, list[str]], shots: Path
) -> None:
    page = signed_in(browser, server, "pager", DESKTOP)
    page.goto("/archive")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    more_ended = page.get_by_role("button", name="More finished games")
    more_watch = page.get_by_role("button", name="More games in play")
    expect(more_ended).to_be_visible()
    expect(more_watch).to_be_visible()
    more_ended.scroll_into_view_if_needed()
    page.screenshot(path=shots / "pages-archive-1366.png")
    # the lists page apart: paging one leaves the other where it was
    ended = page_through(page, "#ended", more_ended, [50, ENDED - 50])
    expect(page.locator("#watch > li")).to_have_count(50)
    expect(more_watch).to_be_visible()
    watch = page_through(page, "#watch", more_watch, [50, ACTIVE - 50])
    assert ended == list(reversed(games["ended"]))  # each once, newest first
    assert watch == list(reversed(games["active"]))
    replays = page.locator("#ended > li a.replay")
    expect(replays).to_have_count(ENDED)
    words_only(page, "#ended", "#watch")
    page.locator("#watch > li").last.scroll_into_view_if_needed()
    page.screenshot(path=shots / "pages-archive-end-1366.png")
    page.context.close()


def test_the_lists_on_a_phone(
    browser: Any, server: Server, games: dict[str, list[str]], shots: Path
) -> None:
    page = signed_in(browser, server, "pager", PHONE)
    for path, name, shot in (
        ("/", "More games", "pages-home-390.png"),
        ("/archive", "More finished games", "pages-archive-390.png"),
    ):
        page.goto(path)
        expect(page.locator("body[data-ready=true]")).to_have_count(1)
        more = page.get_by_role("button", name=name)
        expect(more).to_be_visible()
        more.scroll_into_view_if_needed()
        page.screenshot(path=shots / shot)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.context.close()


def test_a_visitor_pages_through_the_public_games(
    browser: Any, server: Server, games: dict[str, list[str]]
) -> None:
    """Signed out, the archive lists the public games in play, a page at a time, and no finished
    game (those were private)."""
    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    page = context.new_page()
    page.goto("/archive")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    expect(page.locator("#ended")).to_have_text("No finished game yet.")
    expect(page.get_by_role("button", name="More finished games")).to_be_hidden()
    more = page.get_by_role("button", name="More games in play")
    assert page_through(page, "#watch", more, [50, ACTIVE - 50]) == list(reversed(games["active"]))
    context.close()


def test_a_double_click_loads_the_next_page_once(
    browser: Any, server: Server, games: dict[str, list[str]]
) -> None:
    """A second click while the next page is on its way asks for nothing more: no game twice."""
    page = signed_in(browser, server, "pager", DESKTOP)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "status=ended" in r.url else None)
    page.goto("/archive")
    more = page.get_by_role("button", name="More finished games")
    expect(more).to_be_visible()
    page.route(
        "**/api/games?*after=*", lambda route: (page.wait_for_timeout(300), route.continue_())
    )
    more.dblclick()
    expect(page.locator("#ended > li")).to_have_count(ENDED)
    expect(more).to_be_hidden()
    ids = listed(page, "#ended")
    assert len(ids) == len(set(ids)) == ENDED
    assert len(asked) == 2, asked
    page.context.close()
