"""Passwords in Chromium against a real ``arbiter serve`` with a real SMTP server: "Forgot your
password?" on the sign-in card, the link from the e-mail sets a new password (once), the player
signs in with it; the settings page changes a password and keeps the browser signed in while the
other browser is signed out.  Screenshots at 1366x900 and 390x844."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browser.conftest import PASSWORD, PHONE, Server, signed_in
from tests.support.receivers import SmtpReceiver

pytestmark = pytest.mark.slow(
    "Chromium against a server of its own: password reset by mail and password change"
)

WIDE = {"width": 1366, "height": 900}
NEW = "a brand new passphrase"


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpReceiver) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("arbiter") / "var",
        extra_env={"ARBITER_SMTP_URL": smtp.url, "ARBITER_PUBLIC_URL": "{url}"},
    )
    yield srv
    srv.stop()


def change_password(form: Any, current: str, new: str) -> None:
    """Fill the settings page's password card and submit it."""
    form.get_by_label("Current password").fill(current)
    form.get_by_label("New password (8 characters or more)").fill(new)
    form.get_by_label("New password again").fill(new)
    form.get_by_role("button", name="Change the password").click()


def the_link(smtp: SmtpReceiver, address: str, server: Server, count: int = 1) -> str:
    deadline = time.monotonic() + 15
    while len(smtp.to(address)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    mails = smtp.to(address)
    assert len(mails) == count, f"{len(mails)} mails to {address}"
    body = mails[-1].get_body(preferencelist=("plain",))
    assert body is not None
    found = re.search(re.escape(server.url) + r"/reset-password#token=\S+", body.get_content())
    assert found, body.get_content()
    return found.group(0)


def test_forgot_password_by_mail_then_sign_in(
    browser: Any, server: Server, smtp: SmtpReceiver, shots: Path
) -> None:
    server.user("rita")
    token = server.tokens["rita"]
    r = requests.put(
        server.url + "/api/me/email",
        json={"email": "rita@example.org", "current_password": PASSWORD},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.ok, r.text
    context = browser.new_context(viewport=WIDE, base_url=server.url)
    page = context.new_page()
    page.goto("/")
    page.screenshot(path=shots / "reset-0-sign-in-1366.png")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page).to_have_url(re.compile(r"/reset-password$"))
    page.screenshot(path=shots / "reset-1-ask-1366.png")
    page.get_by_label("User name or e-mail address").fill("rita")
    page.get_by_role("button", name="E-mail me a link").click()
    expect(page.locator("#reset-asked-text")).to_contain_text("If that account exists")
    page.screenshot(path=shots / "reset-2-asked-1366.png")

    link = the_link(smtp, "rita@example.org", server)
    page.goto(link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    assert "token" not in page.url  # taken out of the address bar
    page.screenshot(path=shots / "reset-3-set-1366.png")
    page.get_by_label("New password (8 characters or more)").fill(NEW)
    page.get_by_label("New password again").fill(NEW + "x")
    page.get_by_role("button", name="Set the password").click()
    expect(page.locator("#reset-set .error")).to_contain_text("differ")
    page.get_by_label("New password again").fill(NEW)
    page.get_by_role("button", name="Set the password").click()
    expect(page.get_by_role("heading", name="Your password is set")).to_be_visible()
    page.screenshot(path=shots / "reset-4-done-1366.png")
    assert (
        requests.get(
            server.url + "/api/me", headers={"Authorization": f"Bearer {token}"}
        ).status_code
        == 401
    )  # signed out everywhere

    page.locator("#reset-done").get_by_role("link", name="Sign in").click()
    page.locator("#signin-form").get_by_label("Username").fill("rita")
    page.locator("#signin-form").get_by_label("Password").fill(NEW)
    page.locator("#signin-form").get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My games")).to_be_visible()

    second = context.new_page()  # the same link again is refused
    second.goto(link)
    second.get_by_label("New password (8 characters or more)").fill("yet another passphrase")
    second.get_by_label("New password again").fill("yet another passphrase")
    second.get_by_role("button", name="Set the password").click()
    expect(second.locator("#reset-set .error")).to_contain_text("already used")
    expect(second.get_by_role("link", name="Ask for a new link")).to_be_visible()
    second.screenshot(path=shots / "reset-5-used-1366.png")
    for name, p in (("set", second), ("ask", page)):
        if name == "ask":
            p.goto("/reset-password")
            expect(p.locator("#reset-ask")).to_be_visible()
        p.set_viewport_size(PHONE)
        p.screenshot(path=shots / f"reset-{name}-390.png", full_page=True)
        assert p.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()


def test_the_settings_page_changes_the_password(browser: Any, server: Server, shots: Path) -> None:
    other = signed_in(browser, server, "sam")  # another browser of sam's
    page = signed_in(browser, server, "sam", viewport=WIDE)
    page.goto("/settings")
    form = page.locator("#password-form")
    expect(form).to_be_visible()
    form.get_by_label("Current password").fill(PASSWORD)
    form.get_by_label("New password (8 characters or more)").fill(NEW)
    form.get_by_label("New password again").fill(NEW + "x")
    form.get_by_role("button", name="Change the password").click()
    expect(form.locator(".error")).to_have_text(
        "The two new passwords differ: type the same one twice."
    )
    change_password(form, "not my password", NEW)
    expect(form.locator(".error")).to_contain_text("not your current password")
    expect(form.locator(".error")).not_to_contain_text("current_password")
    change_password(form, PASSWORD, "12345678")
    expect(form.locator(".error")).to_contain_text("commonest passwords")
    form.screenshot(path=shots / "settings-password-error-1366.png")
    change_password(form, PASSWORD, NEW)
    expect(page.locator("#toast")).to_contain_text("Password changed")
    expect(page.locator("#toast")).to_contain_text("2 other sessions or tokens signed out")
    page.screenshot(path=shots / "settings-password-1366.png", full_page=True)
    page.reload()  # still signed in here, and writes still pass the CSRF check
    expect(page.locator("#settings")).to_be_visible()
    page.locator("#email-form").get_by_label("Address").fill("sam@example.org")
    page.locator("#email-form").get_by_label("Current password").fill(NEW)
    page.locator("#email-form").get_by_role("button", name="Save the address").click()
    expect(page.locator("#toast")).to_contain_text("Address saved")
    other.goto("/settings")
    expect(other.locator("#settings-signin")).to_be_visible()  # the other browser is out
    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.locator("#password-form")).to_be_visible()
    page.screenshot(path=shots / "settings-password-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    r = requests.post(server.url + "/api/tokens", json={"username": "sam", "password": NEW})
    assert r.status_code == 201


#: the API's internal field names: a page shows people words
RAW_NAMES = ("current_password", "new_password", "token:", "token", "invalid request", "email:")


def no_raw_names(text: str) -> None:
    for name in RAW_NAMES:
        assert name not in text, f"{name!r} shown: {text!r}"


def test_the_reset_page_shows_words_not_field_names(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=WIDE, base_url=server.url)
    page = context.new_page()
    page.goto("/reset-password#token=" + "x" * 500)  # longer than a link's token may be
    page.get_by_label("New password (8 characters or more)").fill(NEW)
    page.get_by_label("New password again").fill(NEW)
    page.get_by_role("button", name="Set the password").click()
    error = page.locator("#reset-set .error")
    expect(error).to_contain_text("The link")
    no_raw_names(error.inner_text())
    page.goto("/reset-password#token=" + "x" * 40)  # a forged one: the server's reason, in words
    page.get_by_label("New password (8 characters or more)").fill(NEW)
    page.get_by_label("New password again").fill(NEW)
    page.get_by_role("button", name="Set the password").click()
    expect(error).to_contain_text("not a reset link of this site")
    no_raw_names(error.inner_text())
    context.close()


def test_the_settings_page_shows_a_429_once_in_words(browser: Any, server: Server) -> None:
    page = signed_in(browser, server, "tess", viewport=WIDE)
    page.goto("/settings")
    form = page.locator("#password-form")
    expect(form).to_be_visible()
    for _ in range(6):  # the 6th wrong password within 15 minutes is held: 429
        change_password(form, "still not it", NEW)
        expect(form.locator(".error")).not_to_be_empty()
        expect(form.get_by_role("button", name="Change the password")).to_be_enabled()
    expect(form.locator(".error")).to_contain_text("Too many wrong passwords")
    text = form.locator(".error").inner_text()
    assert text.lower().count("too many wrong passwords") == 1, text
    no_raw_names(text)


def test_the_email_card_takes_the_password_and_shows_words(
    browser: Any, server: Server, smtp: SmtpReceiver
) -> None:
    page = signed_in(browser, server, "uma", viewport=WIDE)
    page.goto("/settings")
    card = page.locator("#email-form")
    expect(card).to_be_visible()
    card.get_by_label("Address").fill("uma@example.org")
    card.get_by_label("Current password").fill("not my password")
    card.get_by_role("button", name="Save the address").click()
    expect(card.locator(".error")).to_contain_text("Current password: not your current password")
    no_raw_names(card.locator(".error").inner_text())
    card.get_by_label("Current password").fill(PASSWORD)
    card.get_by_role("button", name="Save the address").click()
    expect(page.locator("#toast")).to_contain_text("Address saved")
    expect(card.get_by_label("Current password")).to_have_value("")
    card.get_by_label("Address").fill("uma@elsewhere.example")
    card.get_by_label("Current password").fill(PASSWORD)
    card.get_by_role("button", name="Save the address").click()
    expect(page.locator("#toast")).to_contain_text("Address saved")
    deadline = time.monotonic() + 15
    while not smtp.to("uma@example.org") and time.monotonic() < deadline:
        time.sleep(0.05)
    (notice,) = smtp.to("uma@example.org")  # the old address is told
    assert notice["Subject"] == "Arbiter: your e-mail address was changed"
    shots = Path("/tmp/accounts2-shots")
    shots.mkdir(parents=True, exist_ok=True)
    card.get_by_label("Current password").fill("wrong again")
    card.get_by_role("button", name="Save the address").click()
    expect(card.locator(".error")).to_contain_text("Current password")
    page.screenshot(path=shots / "settings-1366.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.reload()
    expect(card).to_be_visible()
    page.screenshot(path=shots / "settings-390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_settings_page_shows_no_form_before_its_script_holds_it(
    browser: Any, server: Server
) -> None:
    """CI met it: a form shown while the page still loaded was clicked before its script listened,
    and the browser submitted it itself, the typed passwords in a GET's address.  Held preferences
    keep the page hidden; once shown, a submit goes through the script and the address stays."""
    page = signed_in(browser, server, "uma", viewport=WIDE)
    held: list[Any] = []
    page.route("**/api/me/notification-preferences", lambda route: held.append(route))
    page.goto("/settings")
    deadline = time.monotonic() + 15
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the page never asked for its preferences"
    expect(page.locator("#settings")).to_be_hidden()
    held[0].continue_()
    form = page.locator("#password-form")
    expect(form).to_be_visible()
    change_password(form, "typed at once", NEW)
    expect(form.locator(".error")).to_contain_text("not your current password")
    assert "typed" not in page.url and page.url.endswith("/settings"), page.url
