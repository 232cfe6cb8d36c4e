"""What a page asks the server for, as a visitor and as a member: a visitor's pages ask for no
signed-in user and get no error answer; a member's page asks who is signed in once, and for the
rules systems once at most, however many of its scripts want to know."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browser.conftest import Server, signed_in

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: every page's requests as a visitor and as a member"
)

PAGES = ["/", "/clubs", "/seeks", "/archive", "/disputes", "/rules", "/users/ana"]


def _answers(page: Any, server: Server, path: str) -> list[tuple[int, str]]:
    """The status and path of every answer while ``path`` loads and its scripts settle."""
    seen: list[tuple[int, str]] = []

    def answered(response: Any) -> None:
        seen.append((response.status, response.url.removeprefix(server.url)))

    page.on("response", answered)
    page.goto(server.url + path)
    page.wait_for_load_state("load")
    page.wait_for_timeout(1500)  # the page's scripts ask after load (a live stream never idles)
    page.remove_listener("response", answered)
    return seen


def test_a_visitors_pages_ask_for_no_user_and_get_no_error(browser: Any, server: Server) -> None:
    server.user("ana")
    for path in PAGES:
        context = browser.new_context()
        answers = _answers(context.new_page(), server, path)
        context.close()
        assert [a for a in answers if a[1].startswith("/api/me")] == [], path
        assert [a for a in answers if a[0] >= 400] == [], path


def test_a_members_page_asks_who_is_signed_in_once(browser: Any, server: Server) -> None:
    game = server.create_game({"blue": "ana", "red": "bob"})
    page = signed_in(browser, server, "ana")
    for path in [*PAGES, "/settings", f"/games/{game['id']}", f"/games/{game['id']}/audit"]:
        answers = _answers(page, server, path)
        assert [a for a in answers if a[1] == "/api/me"] == [(200, "/api/me")], path
        assert [a for a in answers if a[0] >= 400] == [], path
        systems = [a for a in answers if a[1] == "/api/systems"]  # the list, asked once at most
        assert len(systems) <= 1, (path, systems)
    page.context.close()
