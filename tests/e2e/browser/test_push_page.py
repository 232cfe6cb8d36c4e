"""The installable app and web push in Chromium: the manifest and service worker pass Chromium's
own installability check (CDP ``Page.getInstallabilityErrors``, in a profile that is not
incognito, as an installing user's is); the settings page's "Notifications on this device" switch
with the 'notifications' permission granted subscribes, and a game inviting the user then reaches
a stand-in push service, which decrypts it; switched off, the subscription is gone; offline, a page
is its last shell with a notice.

Headless Chromium cannot subscribe for real here: ``PushManager.subscribe`` needs Google's push
service (FCM) and, offline, hangs or fails ("Registration failed").  So the page's PushManager
answers with a subscription the test made as a browser would (a P-256 key pair and auth secret,
the endpoint on the stand-in push service); everything after it -- the page's calls, the server,
the worker, the encryption and the push service's decryption -- is real."""

from __future__ import annotations

import base64
import json
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser.conftest import ARGS, CHROMIUM, Server, signed_in
from tests.support.receivers import PushReceiver

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow("Chromium against a server of its own: the installable app and web push"),
]

#: the page's PushManager answering with the test's subscription (``__SUBSCRIPTION__``)
STUB = """
(() => {
  // held across loads as a browser holds it (sessionStorage stands in for the browser's store)
  const made = __SUBSCRIPTION__;
  const held = () => ({
    endpoint: made.endpoint,
    toJSON: () => made,
    unsubscribe: async () => { sessionStorage.removeItem("held"); return true; },
  });
  PushManager.prototype.getSubscription = async function () {
    return sessionStorage.getItem("held") ? held() : null;
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.__askedKey = btoa(String.fromCharCode(...key));
    sessionStorage.setItem("held", "1");
    return held();
  };
})();
"""


@pytest.fixture(scope="module")
def pushes() -> Iterator[PushReceiver]:
    with PushReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="module")
def pserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITER_WEBHOOK_ALLOW_PRIVATE", "true")  # the push service on loopback
        srv = Server(tmp_path_factory.mktemp("arbiter") / "var")
    yield srv
    srv.stop()


def test_the_manifest_and_service_worker_pass_chromiums_installability_check(
    browser: Any, pserver: Server
) -> None:
    with tempfile.TemporaryDirectory() as profile:
        context = browser.browser_type.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, base_url=pserver.url
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto("/")
            assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)") == (
                pserver.url + "/"
            )
            cdp = context.new_cdp_session(page)
            manifest = cdp.send("Page.getAppManifest")
            assert manifest["url"] == pserver.url + "/manifest.webmanifest"
            assert manifest["errors"] == []
            assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        finally:
            context.close()


def test_the_device_switch_subscribes_a_push_arrives_decrypted_and_it_unsubscribes(
    browser: Any, pserver: Server, pushes: PushReceiver
) -> None:
    from playwright.sync_api import expect

    pserver.user("alice")
    made = pushes.subscribe("/bob-laptop")
    page = signed_in(browser, pserver, "bob")
    page.context.grant_permissions(["notifications"], origin=pserver.url)
    page.context.add_init_script(STUB.replace("__SUBSCRIPTION__", json.dumps(made)))
    page.goto("/settings")
    switch = page.get_by_role("switch", name="Notifications on this device")
    expect(switch).to_be_enabled()
    expect(switch).not_to_be_checked()
    switch.check()
    expect(page.locator("#device-push-state")).to_contain_text("On")
    key = pserver.read("/api/push/key")["public_key"]
    asked = page.evaluate("window.__askedKey")
    assert base64.b64decode(asked) == base64.urlsafe_b64decode(key + "=")  # the server's key
    [row] = pserver.api("GET", "/api/me/push-subscriptions", "bob")["subscriptions"]
    assert row["endpoint"] == made["endpoint"]

    started = time.monotonic()
    game = pserver.api(
        "POST",
        "/api/games",
        "alice",
        json={
            "system": "skirmish",
            "scenario": "meeting",
            "sides": {"red": "alice", "blue": "bob"},
        },
    )
    assert pushes.arrived.wait(15), pushes.refused
    assert time.monotonic() - started < 15
    [push] = pushes.at("/bob-laptop")
    assert push["payload"]["body"] == "alice invites you to play “Meeting at the Mill” as Blue."
    assert push["payload"]["url"].endswith(f"/games/{game['id']}")

    page.reload()  # the switch shows what this browser holds
    expect(switch).to_be_checked()
    switch.uncheck()
    expect(page.locator("#device-push-state")).to_have_text("Off.")
    assert pserver.api("GET", "/api/me/push-subscriptions", "bob")["subscriptions"] == []
    page.context.close()


def test_offline_a_page_is_its_last_shell_with_a_notice(browser: Any, pserver: Server) -> None:
    from playwright.sync_api import expect

    page = signed_in(browser, pserver, "carol")
    page.goto("/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto("/clubs")  # under the worker now: kept as this page's shell
    expect(page.locator(".offline-note")).to_have_count(0)
    page.context.set_offline(True)
    try:
        page.reload()
        expect(page.locator(".offline-note")).to_contain_text("cannot be reached")
        expect(page.locator("h1")).to_be_visible()
        page.goto("/archive")  # never seen: the last shell kept, with the notice
        expect(page.locator(".offline-note")).to_be_visible()
    finally:
        page.context.set_offline(False)
    page.reload()
    expect(page.locator(".offline-note")).to_have_count(0)
    page.context.close()
