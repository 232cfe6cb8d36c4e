"""Web push through the HTTP API and the worker, end to end: a stand-in push service on 127.0.0.1
(``tests.support.receivers.PushReceiver``) checks each push's VAPID signature and decrypts it with
the subscribed browser's own keys; subscriptions' input, cap, list and removal; a 410 drops the
subscription."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.bootstrap import build_worker
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.receivers import PushReceiver

PUBLIC = "http://arbiter.test"


@pytest.fixture
def pushes() -> Iterator[PushReceiver]:
    with PushReceiver() as receiver:
        yield receiver


def _app(tmp_path: Path, index_template: Path, **overrides: Any) -> Flask:
    config = make_config(
        tmp_path,
        webhook_allow_private=True,  # the stand-in push service is on loopback, over http
        delivery_backoff=0,
        public_url=PUBLIC,
        **overrides,
    )
    shutil.copytree(index_template, config.index_dir)
    return create_app(config)


@pytest.fixture
def papp(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    application = _app(tmp_path, index_template, push_per_user=3)
    yield application
    application.extensions["arbiter"].close()


@pytest.fixture
def pclient(papp: Flask) -> FlaskClient:
    return papp.test_client()


@pytest.fixture
def papi(pclient: FlaskClient) -> ApiHelper:
    return ApiHelper(pclient)


def subscribe(client: FlaskClient, headers: dict[str, str], body: dict[str, Any]) -> str:
    r = client.post("/api/me/push-subscriptions", json=body, headers=headers)
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["id"])


def listed(client: FlaskClient, headers: dict[str, str], **query: Any) -> list[dict[str, Any]]:
    r = client.get("/api/me/push-subscriptions", headers=headers, query_string=query)
    assert r.status_code == 200, r.get_json()
    return list(r.get_json()["subscriptions"])


def invite(client: FlaskClient, papi: ApiHelper, creator: str, invited: str) -> str:
    body = {"system": "skirmish", "scenario": "meeting", "sides": {"red": creator, "blue": invited}}
    r = client.post("/api/games", json=body, headers=papi.user(creator))
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["id"])


def test_an_invitation_arrives_encrypted_signed_and_decrypts_within_15_s(
    papi: ApiHelper, pclient: FlaskClient, papp: Flask, pushes: PushReceiver
) -> None:
    papi.user("alice")
    bob = papi.user("bob")
    key = pclient.get("/api/push/key").get_json()["public_key"]
    subscribe(pclient, bob, pushes.subscribe("/bob-phone"))
    svc = papp.extensions["arbiter"]
    worker = build_worker(svc, process=svc.notifications.process)
    worker.start(interval=0.2, delay=0)
    try:
        started = time.monotonic()
        gid = invite(pclient, papi, "alice", "bob")
        assert pushes.arrived.wait(15), pushes.refused
        took = pushes.at("/bob-phone")[0]["at"] - started
    finally:
        worker.stop()
    print(f"\ngame created -> push decrypted by the stand-in push service: {took:.2f} s")
    assert took < 15
    assert pushes.refused == []
    [push] = pushes.at("/bob-phone")
    assert push["payload"] == {
        "title": "Arbiter: An invitation",
        "body": "alice invites you to play “Meeting at the Mill” as Blue.",
        "url": f"{PUBLIC}/games/{gid}",
    }
    assert push["vapid_key"] == key  # signed with the key browsers subscribe with
    assert int(push["headers"]["TTL"]) == 86400
    # recorded once as sent: another step sends nothing again
    worker.step()
    assert len(pushes.at("/bob-phone")) == 1
    rows = svc.notifications.process.views["notices"].view.pending_deliveries(100)
    assert not [r for r in rows if r.get("channel") == "push"]


def test_a_410_from_the_push_service_drops_the_subscription(
    papi: ApiHelper, pclient: FlaskClient, papp: Flask, pushes: PushReceiver
) -> None:
    bob = papi.user("bob")
    gone = subscribe(pclient, bob, pushes.subscribe("/gone"))
    kept = subscribe(pclient, bob, pushes.subscribe("/kept"))
    pushes.statuses["/gone"] = 410
    invite(pclient, papi, "alice", "bob")
    papi.work()
    assert len(pushes.at("/gone")) == 1 and len(pushes.at("/kept")) == 1
    assert [s["id"] for s in listed(pclient, bob)] == [kept]
    svc = papp.extensions["arbiter"]
    found: Any = svc.store.repository.get(UUID(gone))
    assert found.removed
    events = list(svc.store.events.get(found.id))
    assert type(events[-1]).__name__ == "Removed" and events[-1].reason == "gone"
    assert events[-1].by is None  # the worker, not a person
    # the next notice goes to the device still on only, and the gone one is not tried again
    invite(pclient, papi, "carol", "bob")
    papi.work()
    papi.work()
    assert len(pushes.at("/gone")) == 1 and len(pushes.at("/kept")) == 2


def test_subscriptions_are_listed_without_keys_paged_and_removed(
    papi: ApiHelper, pclient: FlaskClient
) -> None:
    pushes = PushReceiver()  # not started: nothing is pushed here
    bob, carol = papi.user("bob"), papi.user("carol")
    first = pushes.subscribe("/one")
    ids = [subscribe(pclient, bob, first), subscribe(pclient, bob, pushes.subscribe("/two"))]
    assert subscribe(pclient, bob, first) == ids[0]  # the same browser again: the same one
    rows = listed(pclient, bob)
    assert [r["id"] for r in rows] == ids
    assert rows[0]["endpoint"] == pushes.origin + "/one"
    assert set(rows[0]) == {"id", "endpoint", "expirationTime", "since"}  # no keys
    r = pclient.get("/api/me/push-subscriptions", headers=bob, query_string={"limit": 1})
    assert [s["id"] for s in r.get_json()["subscriptions"]] == ids[:1]
    cursor = r.headers["X-Next-Cursor"]
    assert [s["id"] for s in listed(pclient, bob, limit=1, after=cursor)] == ids[1:]
    assert listed(pclient, carol) == []
    # carol cannot remove bob's; bob can, once
    r = pclient.delete(f"/api/me/push-subscriptions/{ids[0]}", headers=carol)
    assert r.status_code == 404 and "id" in r.get_json()["details"]
    assert pclient.delete(f"/api/me/push-subscriptions/{ids[0]}", headers=bob).status_code == 204
    assert pclient.delete(f"/api/me/push-subscriptions/{ids[0]}", headers=bob).status_code == 404
    assert [r["id"] for r in listed(pclient, bob)] == ids[1:]
    # subscribing again turns it on again
    assert subscribe(pclient, bob, first) == ids[0]
    assert [r["id"] for r in listed(pclient, bob)] == [ids[1], ids[0]]
    assert pclient.get("/api/me/push-subscriptions").status_code == 401


def test_the_cap_per_user_is_409_and_writes_nothing(papi: ApiHelper, pclient: FlaskClient) -> None:
    pushes = PushReceiver()
    bob = papi.user("bob")
    held = [subscribe(pclient, bob, pushes.subscribe(f"/d{i}")) for i in range(3)]
    svc = pclient.application.extensions["arbiter"]
    before = svc.store.recorder.max_notification_id()
    r = pclient.post("/api/me/push-subscriptions", json=pushes.subscribe("/d3"), headers=bob)
    assert r.status_code == 409, r.get_json()
    assert r.get_json()["error"] == "limit_reached"
    assert "at most 3" in r.get_json()["details"]["endpoint"][0]
    assert written_since(svc, before) == []
    assert [s["id"] for s in listed(pclient, bob)] == held


def written_since(svc: Any, before: int) -> list[str]:
    """The topics of the events recorded after position ``before``, but the token's use (the
    first write with a token records it)."""
    found = svc.store.recorder.select_notifications(before + 1, 1000)
    return [n.topic for n in found if not n.topic.endswith("ApiToken.Used")]


def _bad_bodies(good: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    keys = good["keys"]
    off_curve = "BA" + "A" * 85  # 65 bytes starting 0x04, not a point on P-256
    return [
        ({**good, "endpoint": "ftp://127.0.0.1/x"}, "endpoint"),
        ({**good, "endpoint": "https://"}, "endpoint"),
        ({**good, "endpoint": "http://\\x01h@[c]/"}, "endpoint"),  # urlsplit raises: was a 500
        ({**good, "endpoint": "https://x/" + "a" * 2000}, "endpoint"),
        ({**good, "keys": {**keys, "p256dh": keys["p256dh"][:-4]}}, "keys"),
        ({**good, "keys": {**keys, "p256dh": off_curve}}, "keys.p256dh"),
        ({**good, "keys": {**keys, "p256dh": "+" * 87}}, "keys"),
        ({**good, "keys": {**keys, "auth": "AAAA"}}, "keys"),
        ({**good, "keys": {**keys, "auth": "A" * 23}}, "keys.auth"),
        ({**good, "keys": {"p256dh": keys["p256dh"]}}, "keys"),
        ({"endpoint": good["endpoint"]}, "keys"),
        ({**good, "expirationTime": "soon"}, "expirationTime"),
        ({**good, "expirationTime": -1}, "expirationTime"),
        ({**good, "extra": 1}, "extra"),
    ]


def test_bad_subscriptions_are_refused_naming_the_field_and_nothing_is_written(
    papi: ApiHelper, pclient: FlaskClient
) -> None:
    pushes = PushReceiver()
    bob = papi.user("bob")
    svc = pclient.application.extensions["arbiter"]
    before = svc.store.recorder.max_notification_id()
    for body, field in _bad_bodies(pushes.subscribe("/x")):
        r = pclient.post("/api/me/push-subscriptions", json=body, headers=bob)
        assert r.status_code == 400, (body, r.get_json())
        assert any(k.startswith(field) for k in r.get_json()["details"]), (field, r.get_json())
    assert written_since(svc, before) == []
    assert listed(pclient, bob) == []


def test_without_allow_private_the_endpoint_must_be_https_and_public(
    api: ApiHelper, client: FlaskClient
) -> None:
    pushes = PushReceiver()
    bob = api.user("bob")
    good = pushes.subscribe("/x")
    for endpoint, reason in (
        (good["endpoint"], "https"),  # http
        ("https://127.0.0.1:8443/push", "loopback or private"),
        ("https://10.1.2.3/push", "loopback or private"),
        ("https://[::ffff:127.0.0.1]/push", "loopback or private"),
    ):
        r = client.post(
            "/api/me/push-subscriptions", json={**good, "endpoint": endpoint}, headers=bob
        )
        assert r.status_code == 422, r.get_json()  # the document's URL, this site's policy
        assert reason in " ".join(r.get_json()["details"]["endpoint"]), r.get_json()
    assert listed(client, bob) == []


def test_push_is_a_preference_per_kind(
    papi: ApiHelper, pclient: FlaskClient, pushes: PushReceiver
) -> None:
    bob = papi.user("bob")
    prefs = pclient.get("/api/me/notification-preferences", headers=bob).get_json()
    assert prefs["preferences"]["invitation"] == {"web": True, "email": True, "push": True}
    r = pclient.put(
        "/api/me/notification-preferences",
        json={"preferences": {"invitation": {"push": False}}},
        headers=bob,
    )
    assert r.status_code == 200 and r.get_json()["preferences"]["invitation"]["push"] is False
    subscribe(pclient, bob, pushes.subscribe("/bob"))
    invite(pclient, papi, "alice", "bob")
    papi.work()
    assert pushes.at("/bob") == []  # invitations are not pushed to bob now
    notices = pclient.get("/api/me/notifications", headers=bob).get_json()["notifications"]
    assert [n["kind"] for n in notices] == ["invitation"]  # still in the app
    r = pclient.put(
        "/api/me/notification-preferences",
        json={"preferences": {"invitation": {"sms": True}}},
        headers=bob,
    )
    assert r.status_code == 400 and "preferences.invitation.sms" in r.get_json()["details"]


def test_the_key_is_kept_in_the_keys_folder_and_the_setting_wins(
    tmp_path: Path, index_template: Path
) -> None:
    from service.config import Config, ConfigError, new_vapid_key

    first = _app(tmp_path / "a", index_template)
    try:
        key = first.test_client().get("/api/push/key").get_json()["public_key"]
        keys_dir = first.extensions["arbiter"].config.keys
    finally:
        first.extensions["arbiter"].close()
    assert len(key) == 87  # 65 bytes, base64url unpadded
    stored = (keys_dir / "vapid_private_key").read_text()
    assert (keys_dir / "vapid_private_key").stat().st_mode & 0o777 == 0o600
    # a second host sharing the keys folder's contents: the same key
    other = _app(tmp_path / "b", index_template, keys_dir=keys_dir)
    try:
        assert other.test_client().get("/api/push/key").get_json()["public_key"] == key
    finally:
        other.extensions["arbiter"].close()
    # ARBITER_VAPID_PRIVATE_KEY: every host with it signs with it, whatever the keys folder holds
    chosen = new_vapid_key()
    assert chosen != stored
    third = _app(tmp_path / "c", index_template, keys_dir=keys_dir, vapid_private_key=chosen)
    try:
        assert third.test_client().get("/api/push/key").get_json()["public_key"] != key
    finally:
        third.extensions["arbiter"].close()
    with pytest.raises(ConfigError, match="ARBITER_VAPID_PRIVATE_KEY"):
        Config.from_env({"ARBITER_VAPID_PRIVATE_KEY": "not-a-key", "ARBITER_SECRET_KEY": "x"})


def test_the_manifest_the_service_worker_and_the_icons_are_served_under_the_policy(
    client: FlaskClient,
) -> None:
    import io
    import json

    from PIL import Image

    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    manifest = json.loads(r.get_data(as_text=True))
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["name"] and manifest["short_name"] and manifest["theme_color"]
    sizes = set()
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.mimetype == "image/png", icon
        image = Image.open(io.BytesIO(got.data))
        assert image.format == "PNG" and f"{image.width}x{image.height}" == icon["sizes"]
        sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and sw.mimetype == "text/javascript"
    assert sw.headers["Service-Worker-Allowed"] == "/"
    assert "showNotification" in sw.get_data(as_text=True)
    policy = sw.headers["Content-Security-Policy"]
    assert "worker-src 'self'" in policy and "manifest-src 'self'" in policy
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    for path in ("/", "/settings", "/clubs"):
        page = client.get(path).get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, path
