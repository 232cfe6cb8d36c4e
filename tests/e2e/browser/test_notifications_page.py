"""Notifications in the browser: alice invites bob; bob sees the count and the invitation in the
header (live), gets the e-mail (aiosmtpd) and the signed webhook call (a local HTTP server), marks
it read, and sets his preferences and a webhook on the settings page -- on a desktop and a phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.browser.conftest import PASSWORD, PHONE, Server, signed_in
from tests.support.receivers import HookReceiver, SmtpReceiver

pytestmark = pytest.mark.browser
WIDE = {"width": 1366, "height": 900}
INVITE = "alice invites you to play “Meeting at the Mill” as Blue."


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def hooks() -> Iterator[HookReceiver]:
    with HookReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def nserver(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpReceiver) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITER_SMTP_URL", smtp.url)
        patch.setenv("ARBITER_WEBHOOK_ALLOW_PRIVATE", "true")
        srv = Server(tmp_path_factory.mktemp("arbiter") / "var")
    yield srv
    srv.stop()


def test_bob_is_told_of_the_invitation_in_the_app_by_mail_and_webhook(
    browser: Any, nserver: Server, smtp: SmtpReceiver, hooks: HookReceiver, shots: Path
) -> None:
    from playwright.sync_api import expect

    nserver.user("alice")
    nserver.user("bob")
    nserver.api(
        "PUT",
        "/api/me/email",
        "bob",
        json={"email": "bob@example.org", "current_password": PASSWORD},
    )
    hook = nserver.api(
        "POST", "/api/me/webhooks", "bob", json={"url": hooks.url("/bob"), "kinds": ["invitation"]}
    )
    hooks.secrets["/bob"] = hook["secret"]

    page = signed_in(browser, nserver, "bob", WIDE)
    page.goto("/")
    bell = page.locator("#notif-bell")
    expect(bell).to_be_visible()
    expect(page.locator("#notif-count")).to_have_text("")

    r = requests.post(
        nserver.url + "/api/games",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "bob"},
            "invite": True,
        },
        headers=nserver.user("alice"),
    )
    assert r.status_code == 201, r.text
    expect(page.locator("#notif-count")).to_have_text("1")  # live, without a reload
    bell.click()
    item = page.locator("#notif-list li.unread")
    expect(item).to_contain_text(INVITE)
    page.screenshot(path=str(shots / "notifications-panel-desktop.png"))

    assert [str(m["Subject"]) for m in smtp.to("bob@example.org")] == [f"Arbiter: {INVITE}"]
    assert hooks.bad_signatures == 0 and [b["content"] for b in hooks.at("/bob")] == [INVITE]

    page.locator("#notif-all-read").click()
    expect(page.locator("#notif-count")).to_have_text("")
    expect(page.locator("#notif-list li.read")).to_have_count(1)

    page.goto("/settings")
    expect(page.locator('#email-form [name="email"]')).to_have_value("bob@example.org")
    page.get_by_label("Draw offers: by e-mail").uncheck()
    page.locator("#prefs-form button[type=submit]").click()
    expect(page.locator("#toast")).to_contain_text("Preferences saved")
    prefs = nserver.api("GET", "/api/me/notification-preferences", "bob")
    assert prefs["preferences"]["draw"] == {"web": True, "email": False, "push": True}
    page.locator('#hook-form [name="url"]').fill("ftp://example.org/x")
    page.locator("#hook-form button[type=submit]").click()
    expect(page.locator("#hook-form .error")).to_contain_text("url")
    page.locator('#hook-form [name="url"]').fill(hooks.url("/bob-page"))
    page.locator("#hook-form button[type=submit]").click()
    expect(page.locator("#toast")).to_contain_text("Webhook added. Its secret (shown once):")
    expect(page.locator("#hook-form .error")).to_have_text("")
    expect(page.locator("#hooks li", has_text="/bob-page")).to_contain_text("every kind")
    page.locator("#hooks button", has_text="Deliveries").first.click()
    expect(page.locator("#hook-log-rows li")).to_contain_text(INVITE)
    expect(page.locator("#hook-log-rows li")).to_contain_text("sent")
    page.screenshot(path=str(shots / "settings-desktop.png"), full_page=True)

    phone = signed_in(browser, nserver, "bob", PHONE)
    phone.goto("/settings")
    # one row a kind; the last two: club invitations and requests to join, club events
    expect(phone.locator("#prefs-rows tr")).to_have_count(11)
    expect(phone.locator("#prefs-rows tr").nth(8)).to_contain_text("Club invitations and requests")
    expect(phone.locator("#prefs-rows tr").last).to_contain_text("Club events: new rounds")
    phone.screenshot(path=str(shots / "settings-phone.png"), full_page=True)
    phone.locator("#notif-bell").click()
    expect(phone.locator("#notif-list li")).to_contain_text(INVITE)
    phone.screenshot(path=str(shots / "notifications-panel-phone.png"))
    for text in page.locator("body").all_inner_texts() + phone.locator("body").all_inner_texts():
        assert "[object" not in text and "None" not in text
    # the whole panel is on the screen: with an unread count the bell wraps to the header's left,
    # and the panel hung off the phone's left edge from the bell's right
    again = {"system": "skirmish", "scenario": "meeting", "sides": {"red": "alice", "blue": "bob"}}
    r = requests.post(nserver.url + "/api/games", json=again, headers=nserver.user("alice"))
    assert r.status_code == 201, r.text
    phone.goto("/")
    expect(phone.locator("#notif-count")).to_have_text("1")
    phone.locator("#notif-bell").click()
    expect(phone.locator("#notif-list li.unread")).to_contain_text(INVITE)
    box = phone.locator("#notif-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
