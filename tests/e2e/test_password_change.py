"""A signed-in user changes their password, giving the current one (issue 34, finding 6: there was
no way to change it).  Every other token and web session is signed out; the one that made the
change goes on with a new token; the new password goes through the policy; wrong current
passwords count towards the sign-in throttle; bad input writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.support.api import PASSWORD, ApiHelper

NEW = "a new and better password"


def token(client: FlaskClient, name: str, password: str = PASSWORD, label: str = "api") -> str:
    r = client.post("/api/tokens", json={"username": name, "password": password, "label": label})
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def change(client: FlaskClient, headers: dict[str, str], current: str, new: str, **kw: Any) -> Any:
    return client.post(
        "/api/me/password",
        json={"current_password": current, "new_password": new},
        headers=headers,
        **kw,
    )


def test_a_bearer_change_signs_out_every_other_token_and_session(
    app: Flask, client: FlaskClient, api: ApiHelper
) -> None:
    api.user("alice")
    laptop, phone = token(client, "alice", label="laptop"), token(client, "alice", label="phone")
    browser = app.test_client()
    assert (
        browser.post("/api/session", json={"username": "alice", "password": PASSWORD}).status_code
        == 201
    )
    assert browser.get("/api/me").status_code == 200

    r = change(client, bearer(laptop), PASSWORD, NEW)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["user"]["username"] == "alice" and body["signed_out"] == 3  # phone, web, helper's
    renewed = body["token"]
    assert renewed and renewed != laptop
    for old in (laptop, phone, api.tokens["alice"]):
        r = client.get("/api/me", headers=bearer(old))
        assert r.status_code == 401 and "password was changed" in r.get_json()["message"]
    assert browser.get("/api/me").status_code == 401  # the web session too
    assert client.get("/api/me", headers=bearer(renewed)).get_json()["username"] == "alice"
    listed = client.get("/api/me/tokens", headers=bearer(renewed)).get_json()["tokens"]
    assert [(t["label"], t["current"]) for t in listed] == [("laptop", True)]

    old_sign_in = client.post("/api/tokens", json={"username": "alice", "password": PASSWORD})
    assert old_sign_in.status_code == 401
    assert token(client, "alice", NEW)


def test_a_session_change_keeps_the_browser_signed_in(app: Flask, api: ApiHelper) -> None:
    api.user("bob")
    browser, other = app.test_client(), app.test_client()
    csrf = browser.post("/api/session", json={"username": "bob", "password": PASSWORD}).get_json()[
        "csrf"
    ]
    other.post("/api/session", json={"username": "bob", "password": PASSWORD})
    before = browser.get_cookie("session").value  # type: ignore[union-attr]

    assert change(browser, {}, PASSWORD, NEW).status_code == 403  # a cookie write needs CSRF
    r = change(browser, {"X-CSRF-Token": csrf}, PASSWORD, NEW)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["token"] is None  # the cookie carries it, never the body
    assert browser.get_cookie("session").value != before  # type: ignore[union-attr]
    assert browser.get("/api/me").get_json()["username"] == "bob"
    r = browser.put(
        "/api/me/email",
        json={"email": "bob@example.org", "current_password": NEW},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200  # the same CSRF token goes on
    assert other.get("/api/me").status_code == 401
    thief = app.test_client()
    thief.set_cookie("session", before)  # the cookie from before the change
    assert thief.get("/api/me").status_code == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"current_password": "not it", "new_password": NEW}, "current_password"),
        ({"current_password": PASSWORD, "new_password": "12345678"}, "new_password"),
        ({"current_password": PASSWORD, "new_password": "short"}, "new_password"),
        ({"current_password": PASSWORD, "new_password": "carol-carol"}, "new_password"),
        ({"current_password": PASSWORD, "new_password": "x" * 1025}, "new_password"),
        ({"current_password": PASSWORD}, "new_password"),
        ({"current_password": PASSWORD, "new_password": NEW, "extra": 1}, "extra"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(
    client: FlaskClient, api: ApiHelper, body: dict[str, Any], field: str
) -> None:
    headers = api.user("carol-carol")
    r = client.post("/api/me/password", json=body, headers=headers)
    assert r.status_code in (400, 403, 422), r.get_json()  # 422: the policy (issue 46)
    assert field in r.get_json()["details"], r.get_json()
    assert client.get("/api/me", headers=headers).status_code == 200  # still signed in
    assert token(client, "carol-carol")  # the old password still works
    svc = client.application.extensions["arbiter"]
    assert svc.users.by_name("carol-carol").password_generation == 0


def test_signed_out_nobody_changes_a_password(client: FlaskClient, api: ApiHelper) -> None:
    api.user("dave")
    r = client.post("/api/me/password", json={"current_password": PASSWORD, "new_password": NEW})
    assert r.status_code == 401
    assert token(client, "dave")


def test_wrong_current_passwords_are_throttled_like_sign_in(
    client: FlaskClient, api: ApiHelper
) -> None:
    headers = api.user("erin")
    address = {"environ_base": {"REMOTE_ADDR": "198.51.100.9"}}
    for _ in range(5):
        r = change(client, headers, "guess guess", NEW, **address)
        assert r.status_code == 403 and "current_password" in r.get_json()["details"]
    r = change(client, headers, PASSWORD, NEW, **address)  # held: the right one waits too
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "current_password" in r.get_json()["details"]
    r = client.post("/api/tokens", json={"username": "erin", "password": PASSWORD})
    assert r.status_code == 429  # it is the sign-in throttle: the account is held there too
