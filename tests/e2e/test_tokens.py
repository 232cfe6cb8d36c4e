"""Bearer tokens and web sessions over HTTP and the CLI: they expire after ARBITER_TOKEN_DAYS,
can be listed (never their secrets) and revoked, one by id or the current one; signing out of the
web app revokes the session's token."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.bootstrap import build_services
from service.cli import main
from service.config import Config, ConfigError
from tests.conftest import make_config
from tests.support.api import PASSWORD, ApiHelper

TOKEN_FIELDS = {"id", "label", "created", "last_used", "expires", "current"}


def sign_in(client: FlaskClient, name: str = "alice", label: str = "api") -> dict[str, str]:
    r = client.post("/api/tokens", json={"username": name, "password": PASSWORD, "label": label})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def bearer(signed: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {signed['token']}"}


@pytest.fixture
def two_day_app(tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    config = make_config(tmp_path, token_days=2)
    shutil.copytree(index_template, config.index_dir)
    app = create_app(config)
    yield app
    app.extensions["arbiter"].close()


def test_a_token_expires_after_the_configured_days_with_401_token_expired(
    two_day_app: Flask,
) -> None:
    client = two_day_app.test_client()
    ApiHelper(client).user("alice")
    before = datetime.now(UTC)
    signed = sign_in(client)
    expires = datetime.fromisoformat(signed["expires"])
    assert before + timedelta(days=2) <= expires <= datetime.now(UTC) + timedelta(days=2)
    assert client.get("/api/me", headers=bearer(signed)).status_code == 200
    users = two_day_app.extensions["arbiter"].users
    users.clock = lambda: expires + timedelta(seconds=1)
    r = client.get("/api/me", headers=bearer(signed))
    assert r.status_code == 401, r.get_json()
    assert r.get_json()["message"] == "token expired"
    assert r.get_json()["details"] == {"token": ["expired: sign in again"]}
    users.clock = lambda: expires - timedelta(seconds=1)  # a token is good until it expires
    assert client.get("/api/me", headers=bearer(signed)).status_code == 200


def test_an_expired_web_session_is_signed_out(two_day_app: Flask) -> None:
    client = two_day_app.test_client()
    ApiHelper(client).user("alice")
    r = client.post("/api/session", json={"username": "alice", "password": PASSWORD})
    assert client.get("/api/me").status_code == 200
    users = two_day_app.extensions["arbiter"].users
    now = datetime.now(UTC)
    users.clock = lambda: now + timedelta(days=2, minutes=1)
    assert r.status_code == 201 and client.get("/api/me").status_code == 401


def test_one_lists_ones_own_tokens_and_sessions_without_their_secrets(
    client: FlaskClient, api: ApiHelper
) -> None:
    client.post("/api/users", json={"username": "alice", "password": PASSWORD})
    api.user("bob")
    mine = sign_in(client, label="laptop")
    other = sign_in(client, label="phone")
    client.post("/api/session", json={"username": "alice", "password": PASSWORD})
    r = client.get("/api/me/tokens", headers=bearer(mine))
    assert r.status_code == 200, r.get_json()
    rows = r.get_json()["tokens"]
    assert [row["label"] for row in rows] == ["web", "phone", "laptop"]  # newest first
    assert all(set(row) == TOKEN_FIELDS for row in rows)
    assert [row["current"] for row in rows] == [False, False, True]
    assert {rows[1]["id"], rows[2]["id"]} == {other["id"], mine["id"]}
    text = r.get_data(as_text=True)
    assert mine["token"].rsplit(".", 1)[1] not in text
    assert other["token"].rsplit(".", 1)[1] not in text
    assert all(row["last_used"] is None for row in rows)  # reading records no use
    bobs = client.get("/api/me/tokens", headers=api.user("bob")).get_json()["tokens"]
    assert [row["current"] for row in bobs] == [True]
    assert client.application.test_client().get("/api/me/tokens").status_code == 401


def test_a_tokens_use_is_recorded_by_a_request_that_writes_never_by_a_read(
    client: FlaskClient, api: ApiHelper
) -> None:
    api.user("alice")
    mine, other = sign_in(client, label="laptop"), sign_in(client, label="phone")
    client.post("/api/session", json={"username": "alice", "password": PASSWORD})
    svc = client.application.extensions["arbiter"]
    events = svc.store.recorder.max_notification_id()
    for path in ("/api/me", "/api/me/tokens", "/api/me/notifications", "/api/games"):
        assert client.get(path, headers=bearer(mine)).status_code == 200
        assert client.get(path).status_code == 200  # the web session
    assert svc.store.recorder.max_notification_id() == events  # GETs wrote nothing
    assert used_events(svc) == 0

    def last_used() -> dict[str, object]:
        rows = client.get("/api/me/tokens", headers=bearer(other)).get_json()["tokens"]
        return {row["label"]: row["last_used"] for row in rows}

    assert last_used() == {"web": None, "phone": None, "laptop": None, "api": None}
    read = {"all": True}
    assert (
        client.post("/api/me/notifications/read", json=read, headers=bearer(mine)).status_code
        == 200
    )
    csrf = client.get("/settings").get_data(as_text=True)
    assert last_used()["laptop"] is not None and last_used()["web"] is None
    # the web session's writes (with their CSRF header) record its use too
    token = csrf.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    r = client.post("/api/me/notifications/read", json=read, headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    used = last_used()
    assert used["web"] is not None and used["phone"] is None
    # at most once an hour: a second write within the hour records nothing more
    uses = used_events(svc)
    assert (
        client.post("/api/me/notifications/read", json=read, headers=bearer(mine)).status_code
        == 200
    )
    assert used_events(svc) == uses == 2


def used_events(svc: Any) -> int:
    notes = svc.store.recorder.select_notifications(start=1, limit=10_000)
    return sum(n.topic.endswith("ApiToken.Used") for n in notes)


def test_a_token_is_revoked_by_its_id_or_as_the_current_one(
    client: FlaskClient, api: ApiHelper
) -> None:
    api.user("alice")
    keeper, doomed = sign_in(client), sign_in(client)
    r = client.delete(f"/api/tokens/{doomed['id']}", headers=bearer(keeper))
    assert r.status_code == 204
    r = client.get("/api/me", headers=bearer(doomed))
    assert r.status_code == 401 and "revoked" in r.get_json()["message"]
    ids = [
        row["id"]
        for row in client.get("/api/me/tokens", headers=bearer(keeper)).get_json()["tokens"]
    ]
    assert doomed["id"] not in ids and keeper["id"] in ids
    assert client.delete(f"/api/tokens/{doomed['id']}", headers=bearer(keeper)).status_code == 204
    assert client.delete("/api/tokens/current", headers=bearer(keeper)).status_code == 204
    assert client.get("/api/me", headers=bearer(keeper)).status_code == 401


def test_nobody_revokes_someone_elses_token(client: FlaskClient, api: ApiHelper) -> None:
    api.user("alice")
    alice = sign_in(client)
    for token_id in (alice["id"], "0" * 32, "not-an-id"):
        r = client.delete(f"/api/tokens/{token_id}", headers=api.user("bob"))
        assert r.status_code == 404, r.get_json()
        assert r.get_json()["details"]["token"]
    assert client.delete(f"/api/tokens/{alice['id']}").status_code == 401
    assert client.get("/api/me", headers=bearer(alice)).status_code == 200


def test_signing_out_revokes_the_sessions_token_even_for_a_copied_cookie(
    app: Flask, api: ApiHelper
) -> None:
    api.user("alice")
    browser, thief = app.test_client(), app.test_client()
    r = browser.post("/api/session", json={"username": "alice", "password": PASSWORD})
    csrf = r.get_json()["csrf"]
    cookie = browser.get_cookie("session")
    assert cookie is not None
    thief.set_cookie("session", cookie.value)
    assert thief.get("/api/me").status_code == 200
    assert browser.delete("/api/tokens/current").status_code == 403  # a cookie write needs CSRF
    r = browser.delete("/api/tokens/current", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 204
    assert browser.get("/api/me").status_code == 401
    assert thief.get("/api/me").status_code == 401


def test_token_days_come_from_the_environment_and_bad_values_stop_start_up(
    tmp_path: Path,
) -> None:
    env = {"ARBITER_VAR": str(tmp_path), "ARBITER_SECRET_KEY": "k"}
    assert Config.from_env(env).token_days == 30
    assert Config.from_env({**env, "ARBITER_TOKEN_DAYS": "0.5"}).token_days == 0.5
    for bad in ("0", "-1", "forever", "nan", "99999"):
        with pytest.raises(ConfigError, match="ARBITER_TOKEN_DAYS|bad configuration"):
            Config.from_env({**env, "ARBITER_TOKEN_DAYS": bad})


def test_the_cli_lists_and_revokes_a_users_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(tmp_path, secret_key="k")
    svc = build_services(config)
    svc.users.register("alice", PASSWORD)
    first = svc.users.sign_in("alice", PASSWORD, "laptop")
    second = svc.users.sign_in("alice", PASSWORD, "phone")
    svc.close()
    monkeypatch.setenv("ARBITER_VAR", str(config.var_dir))
    monkeypatch.setenv("ARBITER_SECRET_KEY", "k")
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(main, list(args), catch_exceptions=False)

    listed = run("users", "tokens", "alice", "--json")
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    assert [r["label"] for r in rows] == ["phone", "laptop"]
    assert first.token.rsplit(".", 1)[1] not in listed.output
    revoked = run("users", "revoke-token", "alice", second.record.id.hex)
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert "phone" not in run("users", "tokens", "alice").output
    unknown = run("users", "revoke-token", "alice", "0" * 32)
    assert unknown.exit_code != 0 and "no such token" in unknown.output
    svc = build_services(config)
    try:
        assert svc.users.from_token(first.token).username == "alice"
        with pytest.raises(Exception, match="revoked"):
            svc.users.from_token(second.token)
    finally:
        svc.close()
