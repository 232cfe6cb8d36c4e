"""A secret someone sends is compared as bytes, whatever they send (issue 44, finding 8): an
unsubscribe token, a CSRF header, a backup's MAC or a published dice commitment that is not ASCII
made :func:`hmac.compare_digest` raise ``TypeError`` -- a 500 for what is only a wrong secret.
Now each is the same refusal as any other wrong one, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.application.backup import authentic
from service.domain import dice
from service.domain.users import check_password, hash_password
from tests.support.api import PASSWORD, ApiHelper

NOT_ASCII = ["é", "ü" * 32, "ÿ" * 128, "0" * 31 + "é"]


def turn_preferences(client: FlaskClient, headers: dict[str, str]) -> Any:
    r = client.get("/api/me/notification-preferences", headers=headers)
    return r.get_json()["preferences"]["turn"]


@pytest.mark.parametrize("token", NOT_ASCII, ids=["one", "32", "128", "last"])
def test_an_unsubscribe_token_that_is_not_ascii_is_refused_like_any_wrong_one(
    api: ApiHelper, client: FlaskClient, token: str
) -> None:
    bob = api.user("bob")
    uid = client.get("/api/me", headers=bob).get_json()["id"]
    before = turn_preferences(client, bob)
    for method in (client.post, client.get):
        r = method("/api/unsubscribe", query_string={"user": uid, "kind": "turn", "token": token})
        assert r.status_code == 403, r.get_data(as_text=True)
        assert r.get_json()["details"] == {"token": ["not valid"]}
    assert turn_preferences(client, bob) == before == {"web": True, "email": True, "push": True}


def test_a_csrf_header_that_is_not_ascii_is_refused_and_nothing_is_written(
    app: Flask, api: ApiHelper
) -> None:
    api.user("alice")
    browser = app.test_client()
    r = browser.post("/api/session", json={"username": "alice", "password": PASSWORD})
    assert r.status_code == 201
    r = browser.put(
        "/api/me/email",
        json={"email": "alice@example.org", "current_password": PASSWORD},
        headers={"X-CSRF-Token": "é" * 43},
    )
    assert r.status_code == 403, r.get_data(as_text=True)
    assert "X-CSRF-Token" in r.get_json()["details"]
    assert browser.get("/api/me/notification-preferences").get_json()["email"] is None


def test_a_bearer_token_whose_secret_is_not_ascii_is_unauthenticated(
    api: ApiHelper, client: FlaskClient
) -> None:
    token = api.tokens.get("carol") or api.user("carol")["Authorization"].split(" ", 1)[1]
    user_hex, token_hex, _ = token.split(".", 2)
    r = client.get("/api/me", headers={"Authorization": f"Bearer {user_hex}.{token_hex}.é"})
    assert r.status_code == 401


def test_a_stored_digest_a_backup_mac_and_a_commitment_that_are_not_ascii_do_not_match() -> None:
    salt = hash_password("x").split("$")[1]
    assert check_password("x", f"scrypt${salt}$é") is False
    manifest = {"format": "arbiter-backup", "mac": "é" * 64}
    assert authentic(manifest, "secret") is False
    seed = dice.new_seed()
    assert dice.verify(seed, "é" * 64, "game", []).seed_matches_commitment is False
    assert dice.verify(seed, dice.commitment(seed), "game", []).seed_matches_commitment
