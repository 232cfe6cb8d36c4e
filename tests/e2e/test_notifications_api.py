"""Notifications through the HTTP API: the projection, preferences, e-mail through a real SMTP
server (aiosmtpd), webhooks received by a real HTTP server with their signature checked, delivery
logs, unsubscribe links and bad input."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.bootstrap import build_worker, delivery_settings
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.receivers import HookReceiver, SmtpReceiver

PASSWORD = "correct horse battery"


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
def hooks() -> Iterator[HookReceiver]:
    with HookReceiver() as receiver:
        yield receiver


@pytest.fixture
def napp(tmp_path: Path, index_template: Path, smtp: SmtpReceiver) -> Iterator[Flask]:
    config = make_config(
        tmp_path,
        smtp_url=smtp.url,
        webhook_allow_private=True,
        delivery_backoff=0,
        public_url="http://arbiter.test",
    )
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    yield application
    application.extensions["arbiter"].close()


@pytest.fixture
def nclient(napp: Flask) -> FlaskClient:
    return napp.test_client()


@pytest.fixture
def napi(nclient: FlaskClient) -> ApiHelper:
    return ApiHelper(nclient)


@pytest.fixture
def worker(napp: Flask) -> Any:
    svc = napp.extensions["arbiter"]
    return build_worker(svc, process=svc.notifications.process)


def register(client: FlaskClient, name: str, email: str | None = None) -> dict[str, str]:
    body = {"username": name, "password": PASSWORD}
    if email:
        body["email"] = email
    r = client.post("/api/users", json=body)
    assert r.status_code == 201, r.get_json()
    r = client.post("/api/tokens", json={"username": name, "password": PASSWORD})
    return {"Authorization": f"Bearer {r.get_json()['token']}"}


def notices(client: FlaskClient, headers: dict[str, str], **query: Any) -> dict[str, Any]:
    r = client.get("/api/me/notifications", headers=headers, query_string=query)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_turn_reaches_the_app_the_mail_and_a_signed_webhook(
    napi: ApiHelper, nclient: FlaskClient, worker: Any, smtp: SmtpReceiver, hooks: HookReceiver
) -> None:
    alice = register(nclient, "alice", "alice@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    napi.tokens.update(alice=alice["Authorization"].split()[1], bob=bob["Authorization"].split()[1])
    r = nclient.post(
        "/api/me/webhooks",
        json={"url": hooks.url("/bob"), "secret": "s" * 20, "kinds": ["turn", "ended"]},
        headers=bob,
    )
    assert r.status_code == 201, r.get_json()
    hook = r.get_json()
    assert hook["secret"] == "s" * 20 and hook["kinds"] == ["turn", "ended"]
    hooks.secrets["/bob"] = "s" * 20

    game = napi.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    gid = game["id"]
    svc = nclient.application.extensions["arbiter"]
    if game["status"] == "invited":  # invitations (issue 17): bob accepts first
        svc.lifecycle.accept(gid, svc.users.by_name("bob"))
    # red (alice) ends her phases until it is blue's (bob's) turn
    for _ in range(10):
        if "blue" in napi.game(gid, "alice")["active_sides"]:
            break
        assert napi.command(gid, "alice", {"type": "end_phase"}).status_code == 201
    assert "blue" in napi.game(gid, "bob")["active_sides"]
    worker.step()

    listed = notices(nclient, bob)
    turns = [n for n in listed["notifications"] if n["kind"] == "turn"]
    assert len(turns) == 1, listed
    assert turns[0]["text"] == "Your turn in “Meeting at the Mill” (Blue)."
    assert "bob" not in turns[0]["text"] and gid not in turns[0]["text"]  # words, not ids
    assert turns[0]["url"] == f"/games/{gid}" and turns[0]["read"] is False
    assert listed["unread"] >= 1

    # e-mail: one message to bob, with the key, a link and a signed unsubscribe link
    mails = smtp.to("bob@example.org")
    turn_mails = [m for m in mails if "Your turn" in str(m["Subject"])]
    assert len(turn_mails) == 1
    mail = turn_mails[0]
    body = mail.get_content()  # type: ignore[attr-defined]
    assert f"http://arbiter.test/games/{gid}" in body
    assert mail["Message-ID"] == f"<{mail['X-Arbiter-Delivery']}@arbiter>"
    unsubscribe = next(line for line in body.splitlines() if "/unsubscribe?" in line)
    link = urlsplit(unsubscribe[unsubscribe.index("http") :])
    assert link.path == "/unsubscribe"  # a page that asks: the link itself changes nothing
    assert mail["List-Unsubscribe"] == f"<http://arbiter.test/api/unsubscribe?{link.query}>"

    # webhook: signed (the receiver checks it), Discord's content and Slack's text
    received = hooks.at("/bob")
    assert hooks.bad_signatures == 0
    assert [b["kind"] for b in received] == ["turn"]
    assert received[0]["content"] == received[0]["text"] == turns[0]["text"]
    deliveries = nclient.get(f"/api/me/webhooks/{hook['id']}/deliveries", headers=bob).get_json()
    assert [(d["status"], len(d["attempts"])) for d in deliveries["deliveries"]] == [("sent", 1)]
    assert deliveries["deliveries"][0]["id"] in hooks.arrivals

    # a second step sends nothing again
    worker.step()
    assert len([m for m in smtp.to("bob@example.org") if "Your turn" in str(m["Subject"])]) == 1
    assert all(count == 1 for count in hooks.arrivals.values())

    # the unsubscribe link works without signing in: following it (a GET, as mail scanners do)
    # changes nothing; the page's button (a POST) stops turn e-mails
    def turn_prefs() -> dict[str, bool]:
        got = nclient.get("/api/me/notification-preferences", headers=bob).get_json()
        return got["preferences"]["turn"]  # type: ignore[no-any-return]

    page = nclient.get(f"{link.path}?{link.query}")
    assert page.status_code == 200 and "Stop e-mails" in page.get_data(as_text=True)
    r = nclient.get(f"/api/unsubscribe?{link.query}")  # an older e-mail's link: to the page
    assert r.status_code == 303 and r.headers["Location"] == f"/unsubscribe?{link.query}"
    assert turn_prefs() == {"web": True, "email": True, "push": True}
    r = nclient.post(f"/api/unsubscribe?{link.query}")
    assert r.status_code == 200 and "your turn" in r.get_json()["message"]
    assert turn_prefs() == {"web": True, "email": False, "push": True}
    forged = {k: v[0] for k, v in dict(parse_qs(link.query), token=["0" * 32]).items()}
    for method in (nclient.get, nclient.post):
        r = method("/api/unsubscribe", query_string=forged)
        assert r.status_code == 403 and "token" in r.get_json()["details"]

    # mark read
    r = nclient.post("/api/me/notifications/read", json={"ids": [turns[0]["id"]]}, headers=bob)
    assert r.status_code == 200
    assert next(n for n in notices(nclient, bob)["notifications"] if n["id"] == turns[0]["id"])[
        "read"
    ]
    r = nclient.post("/api/me/notifications/read", json={"all": True}, headers=bob)
    assert r.get_json()["unread"] == 0 and notices(nclient, bob)["unread"] == 0
    # alice cannot mark bob's
    r = nclient.post("/api/me/notifications/read", json={"ids": [turns[0]["id"]]}, headers=alice)
    assert r.status_code == 404 and "ids" in r.get_json()["details"]


def test_a_replay_of_the_log_derives_the_same_notifications(
    napi: ApiHelper, nclient: FlaskClient, worker: Any, tmp_path: Path
) -> None:
    napi.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    gid = napi.create_game("skirmish", "meeting", {"red": "bob", "blue": "alice"})["id"]
    svc = nclient.application.extensions["arbiter"]
    game = napi.game(gid, "bob")
    if game["status"] == "invited":
        svc.lifecycle.accept(gid, svc.users.by_name("alice"))
    worker.step()
    first = {
        name: notices(nclient, {"Authorization": f"Bearer {napi.tokens[name]}"})["notifications"]
        for name in ("alice", "bob")
    }
    assert first["alice"] or first["bob"]
    # a fresh notification store, replayed from the start of the log
    from dataclasses import replace

    from service.bootstrap import notification_worker

    env_dir = tmp_path / "replay"
    env_dir.mkdir()
    shutil.copy(svc.config.sqlite_file, env_dir / "arbiter.sqlite")
    replay_config = replace(svc.config, sqlite_path=env_dir / "arbiter.sqlite")
    replayed = notification_worker(replay_config, svc.store, names=svc.users.username)
    replayed.process.catch_up()
    from service.domain.notifications import KINDS

    book = replayed.process.views["notices"].view  # what the replay's notices view holds
    for name in ("alice", "bob"):
        uid = str(svc.users.by_name(name).id)
        again = [(n["id"], n["kind"], n["text"]) for n in book.page(uid, KINDS, limit=1000)[::-1]]
        assert again == [(n["id"], n["kind"], n["text"]) for n in reversed(first[name])]
    replayed.process.close()


def test_bad_input_names_the_field_and_writes_nothing(nclient: FlaskClient) -> None:
    r = nclient.post(
        "/api/users", json={"username": "carol", "password": PASSWORD, "email": "not-an-address"}
    )
    assert r.status_code == 400 and "email" in r.get_json()["details"]
    assert (
        nclient.post("/api/tokens", json={"username": "carol", "password": PASSWORD}).status_code
        == 401
    )
    dave = register(nclient, "dave")
    for url, field in (
        ("ftp://example.org/hook", "url"),
        ("javascript:alert(1)", "url"),
        ("http://127.0.0.1:9/hook", None),  # allowed here: ARBITER_WEBHOOK_ALLOW_PRIVATE
    ):
        r = nclient.post("/api/me/webhooks", json={"url": url}, headers=dave)
        if field:
            assert r.status_code == 400 and field in r.get_json()["details"], r.get_json()
        else:
            assert r.status_code == 201
    r = nclient.post(
        "/api/me/webhooks", json={"url": "http://example.org/h", "kinds": ["nope"]}, headers=dave
    )
    assert r.status_code == 400 and "kinds.0" in r.get_json()["details"]
    r = nclient.post(
        "/api/me/webhooks", json={"url": "http://example.org/h", "secret": "short"}, headers=dave
    )
    assert r.status_code == 400 and "secret" in r.get_json()["details"]
    assert len(nclient.get("/api/me/webhooks", headers=dave).get_json()["webhooks"]) == 1
    r = nclient.put(
        "/api/me/notification-preferences",
        json={"preferences": {"turn": {"sms": True}}},
        headers=dave,
    )
    assert r.status_code == 400 and "preferences.turn.sms" in r.get_json()["details"]
    r = nclient.put(
        "/api/me/notification-preferences",
        json={"preferences": {"teatime": {"web": False}}},
        headers=dave,
    )
    assert r.status_code == 400 and "preferences.teatime" in r.get_json()["details"]
    r = nclient.put(
        "/api/me/email", json={"email": "dave@", "current_password": PASSWORD}, headers=dave
    )
    assert r.status_code == 400 and "email" in r.get_json()["details"]
    r = nclient.put(
        "/api/me/email",
        json={"email": "dave@example.org", "current_password": PASSWORD},
        headers=dave,
    )
    assert r.status_code == 200 and r.get_json()["email"] == "dave@example.org"
    r = nclient.post("/api/me/notifications/read", json={}, headers=dave)
    assert r.status_code == 400 and "ids" in r.get_json()["details"]
    assert nclient.get("/api/me/notifications").status_code == 401


def test_private_targets_are_refused_by_default(tmp_path: Path, index_template: Path) -> None:
    config = make_config(tmp_path)
    shutil.copytree(index_template, config.index_dir)
    application = create_app(config)
    try:
        client = application.test_client()
        erin = register(client, "erin")
        for url in (
            "http://127.0.0.1:8080/x",
            "http://10.1.2.3/x",
            "http://localhost/x",
            "http://[::1]/x",
            "http://169.254.169.254/latest/meta-data",
        ):
            r = client.post("/api/me/webhooks", json={"url": url}, headers=erin)
            # a policy's refusal of a well-formed URL: 422 (issue 46)
            assert r.status_code == 422 and "url" in r.get_json()["details"], url
        assert client.get("/api/me/webhooks", headers=erin).get_json()["webhooks"] == []
    finally:
        application.extensions["arbiter"].close()


def test_a_failing_webhook_is_retried_then_given_up_with_a_log(
    napi: ApiHelper, nclient: FlaskClient, worker: Any
) -> None:
    with HookReceiver(status=500) as failing:
        bob = register(nclient, "bob")
        napi.tokens["bob"] = bob["Authorization"].split()[1]
        r = nclient.post(
            "/api/me/webhooks", json={"url": failing.url("/x"), "secret": "k" * 16}, headers=bob
        )
        hook = r.get_json()
        failing.secrets["/x"] = "k" * 16
        game = napi.create_game(
            "skirmish", "meeting", {"red": "bob", "blue": "alice"}, creator="alice"
        )
        svc = nclient.application.extensions["arbiter"]
        if game["status"] == "invited":
            svc.lifecycle.accept(game["id"], svc.users.by_name("bob"))
        for _ in range(svc.config.delivery_attempts + 2):
            worker.step()
        rows = nclient.get(f"/api/me/webhooks/{hook['id']}/deliveries", headers=bob).get_json()
        assert rows["deliveries"], rows
        first = rows["deliveries"][-1]
        assert first["status"] == "failed"
        assert len(first["attempts"]) == svc.config.delivery_attempts
        assert all(a["error"] == "HTTP 500" for a in first["attempts"])
        assert failing.arrivals[first["id"]] == svc.config.delivery_attempts


def test_invitation_draw_and_resignation_are_told_to_the_right_players(
    nclient: FlaskClient, worker: Any, smtp: SmtpReceiver, hooks: HookReceiver
) -> None:
    svc = nclient.application.extensions["arbiter"]
    if not hasattr(svc, "lifecycle"):
        pytest.skip("the game lifecycle (invitations, draws, resignation) is not built yet")
    alice_h = register(nclient, "alice", "alice@example.org")
    bob_h = register(nclient, "bob", "bob@example.org")
    r = nclient.post(
        "/api/me/webhooks",
        json={"url": hooks.url("/bob"), "secret": "b" * 16, "kinds": ["invitation"]},
        headers=bob_h,
    )
    assert r.status_code == 201
    hooks.secrets["/bob"] = "b" * 16
    alice, bob = svc.users.by_name("alice"), svc.users.by_name("bob")
    game = svc.lifecycle.create(
        creator=alice,
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "bob"},
        invite=True,
    )
    gid = str(game.id)
    worker.step()

    def texts(headers: dict[str, str]) -> list[tuple[str, str]]:
        return [(n["kind"], n["text"]) for n in notices(nclient, headers)["notifications"]]

    invited = texts(bob_h)
    assert invited == [("invitation", "alice invites you to play “Meeting at the Mill” as Blue.")]
    assert texts(alice_h) == []  # the creator is not told, nor told it is her turn yet
    assert [m["Subject"] for m in smtp.to("bob@example.org")] == [
        "Arbiter: alice invites you to play “Meeting at the Mill” as Blue."
    ]
    assert [b["content"] for b in hooks.at("/bob")] == [invited[0][1]]

    svc.lifecycle.accept(gid, bob)
    worker.step()
    assert texts(alice_h)[:2] == [
        ("turn", "Your turn in “Meeting at the Mill” (Red)."),
        ("invitation", "bob accepted the invitation to “Meeting at the Mill” (Blue)."),
    ]
    svc.lifecycle.draw(gid, alice, "offer")
    worker.step()
    assert texts(bob_h)[0] == (
        "draw",
        "alice offers a draw in “Meeting at the Mill”: accept or decline it.",
    )
    svc.lifecycle.draw(gid, bob, "decline")
    worker.step()
    assert texts(alice_h)[0] == ("draw", "bob declined the draw offered in “Meeting at the Mill”.")
    svc.lifecycle.resign(gid, bob)
    worker.step()
    told = texts(alice_h)
    assert ("ended", "bob resigned “Meeting at the Mill”.") in told
    ended = [t for k, t in told if k == "ended" and t.startswith("“Meeting at the Mill” ended")]
    assert len(ended) == 1 and "Red won (alice)" in ended[0], told
    assert any(t.startswith("“Meeting at the Mill” ended") for _, t in texts(bob_h))
    # nothing shown is an id or a Python repr
    for _, text in texts(alice_h) + texts(bob_h):
        assert gid not in text and str(alice.id) not in text and "{" not in text


def test_a_club_webhook_hears_its_games_and_pages_hear_live(
    nclient: FlaskClient, worker: Any, hooks: HookReceiver
) -> None:
    svc = nclient.application.extensions["arbiter"]
    if not hasattr(svc, "lifecycle"):
        pytest.skip("games that belong to a club are not built yet")
    alice_h = register(nclient, "alice")
    bob_h = register(nclient, "bob")
    alice, bob = svc.users.by_name("alice"), svc.users.by_name("bob")
    club = svc.clubs.create("Mill Wargamers", alice)
    svc.clubs.add_member(str(club.id), alice, "bob", ["player"])
    r = nclient.post(
        f"/api/clubs/{club.id}/webhooks", json={"url": hooks.url("/club")}, headers=bob_h
    )
    assert r.status_code == 403 and "club" in r.get_json()["details"]
    r = nclient.post(
        f"/api/clubs/{club.id}/webhooks",
        json={"url": hooks.url("/club"), "secret": "c" * 16, "kinds": ["invitation", "ended"]},
        headers=alice_h,
    )
    assert r.status_code == 201, r.get_json()
    hook = r.get_json()
    hooks.secrets["/club"] = "c" * 16
    subscription = svc.broker.subscribe(f"user:{bob.id}")
    try:
        game = svc.lifecycle.create(
            creator=alice,
            system="skirmish",
            scenario="meeting",
            sides={"red": "alice", "blue": "bob"},
            club=str(club.id),
            invite=True,
        )
        worker.step()
        note = subscription.get(timeout=2)
    finally:
        subscription.close()
    assert note is not None and note["position"] > 0 and set(note) == {"notice", "position"}
    assert [b["content"] for b in hooks.at("/club")] == [
        "alice invited bob to play “Meeting at the Mill”."
    ]
    svc.lifecycle.decline(str(game.id), bob)
    worker.step()
    assert hooks.at("/club")[-1]["content"] == (
        "bob declined the invitation to “Meeting at the Mill”."
    )
    rows = nclient.get(
        f"/api/clubs/{club.id}/webhooks/{hook['id']}/deliveries", headers=alice_h
    ).get_json()["deliveries"]
    assert [r["status"] for r in rows] == ["sent", "sent"]
    assert (
        nclient.get(
            f"/api/clubs/{club.id}/webhooks/{hook['id']}/deliveries", headers=bob_h
        ).status_code
        == 403
    )
    r = nclient.delete(f"/api/clubs/{club.id}/webhooks/{hook['id']}", headers=alice_h)
    assert r.status_code == 204
    assert nclient.get(f"/api/clubs/{club.id}/webhooks", headers=alice_h).get_json() == {
        "webhooks": []
    }


def test_a_worker_dead_between_sending_and_recording_is_taken_over_with_the_same_key(
    napi: ApiHelper, nclient: FlaskClient, hooks: HookReceiver
) -> None:
    from datetime import UTC, datetime, timedelta

    from service.adapters.addresses import resolve
    from service.adapters.webhooks import WebhookPoster
    from service.application.worker import Dispatcher

    svc = nclient.application.extensions["arbiter"]
    bob = register(nclient, "bob")
    napi.tokens["bob"] = bob["Authorization"].split()[1]
    r = nclient.post(  # "turn" only: bob's invitation (accepted by the helper) is not posted
        "/api/me/webhooks",
        json={"url": hooks.url("/b"), "secret": "d" * 16, "kinds": ["turn"]},
        headers=bob,
    )
    hook = r.get_json()
    hooks.secrets["/b"] = "d" * 16
    napi.create_game("skirmish", "meeting", {"red": "bob", "blue": "alice"}, creator="alice")

    class Dies(WebhookPoster):
        def post(self, url: str, secret: str, body: bytes, key: str, **kw: Any) -> tuple[bool, str]:
            super().post(url, secret, body, key, **kw)  # delivered ...
            raise KeyboardInterrupt  # ... and the worker dies before recording it

    worker = build_worker(svc, process=svc.notifications.process)
    worker.process.catch_up()
    first = Dispatcher(
        worker.process,
        svc.store,
        delivery_settings(svc.config),
        mailer=None,
        poster=Dies(),
        resolve=resolve,
        worker="first",
    )
    with pytest.raises(KeyboardInterrupt):
        first.run_once()
    [key] = list(hooks.arrivals)
    assert hooks.arrivals[key] == 1

    later = datetime.now(UTC) + timedelta(seconds=svc.config.delivery_lease + 1)
    second = Dispatcher(
        worker.process,
        svc.store,
        delivery_settings(svc.config),
        mailer=None,
        poster=WebhookPoster(),
        resolve=resolve,
        worker="second",
        clock=lambda: later,
    )
    assert second.run_once() == 1  # the lapsed claim is taken over
    assert hooks.arrivals[key] == 2  # the same key again: the receiver drops the copy
    assert second.run_once() == 0
    rows = nclient.get(f"/api/me/webhooks/{hook['id']}/deliveries", headers=bob).get_json()
    [row] = rows["deliveries"]
    assert row["id"] == key and row["status"] == "sent"
    assert [a["ok"] for a in row["attempts"]] == [True]  # recorded sent once


def test_a_clock_running_low_is_told_once_to_its_player(
    nclient: FlaskClient, worker: Any, smtp: SmtpReceiver, tmp_path: Path
) -> None:
    from dataclasses import replace
    from datetime import UTC, datetime, timedelta

    from service.bootstrap import notification_worker

    svc = nclient.application.extensions["arbiter"]
    alice_h = register(nclient, "alice", "alice@example.org")
    bob_h = register(nclient, "bob", "bob@example.org")
    alice, bob = svc.users.by_name("alice"), svc.users.by_name("bob")
    game = svc.lifecycle.create(
        creator=alice,
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "bob"},
        clock={"kind": "per-move", "days": 1},  # low below a fifth of a day: 4.8 hours
        invite=True,
    )
    gid = str(game.id)
    svc.lifecycle.accept(gid, bob)  # red (alice) has the move: her clock runs
    start = datetime.now(UTC)
    later = {"at": start + timedelta(hours=10)}
    worker.clocks = lambda _now: svc.lifecycle.check_clocks(later["at"])

    def clock_notices(headers: dict[str, str]) -> list[str]:
        return [
            n["text"] for n in notices(nclient, headers)["notifications"] if n["kind"] == "clock"
        ]

    worker.step()  # 14 hours left: nothing to tell
    assert clock_notices(alice_h) == []
    later["at"] = start + timedelta(hours=20)  # 4 hours left
    worker.step()
    low = "Your clock in “Meeting at the Mill” is running low: less than 4.8 hours left."
    assert clock_notices(alice_h) == [low]
    assert clock_notices(bob_h) == []  # only the player whose clock it is
    later["at"] = start + timedelta(hours=21)
    worker.step()
    worker.step()
    assert clock_notices(alice_h) == [low]  # once per move
    assert [m["Subject"] for m in smtp.to("alice@example.org") if "clock" in str(m["Subject"])] == [
        f"Arbiter: {low}"
    ]
    shown = nclient.get(f"/api/games/{gid}", headers=alice_h).get_json()
    assert shown["clock"]["sides"]["red"]["low_recorded"] is True
    assert shown["clock"]["sides"]["blue"]["low_recorded"] is False
    # a replay of the log into an empty notification store tells the same
    env_dir = tmp_path / "replay"
    env_dir.mkdir()
    shutil.copy(svc.config.sqlite_file, env_dir / "arbiter.sqlite")
    replayed = notification_worker(
        replace(svc.config, sqlite_path=env_dir / "arbiter.sqlite"),
        svc.store,
        names=svc.users.username,
    )
    replayed.process.catch_up()
    book = replayed.process.views["notices"].view  # what the replay's notices view holds
    assert [n["text"] for n in book.page(str(alice.id), ["clock"], limit=100)] == [low]
    assert [n["text"] for n in book.page(str(bob.id), ["clock"], limit=100)] == []
    replayed.process.close()
