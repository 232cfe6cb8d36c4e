"""The web session cookie does not carry the bearer token readably (issue 34, finding 7: it
decoded, base64 and zlib, to the full token) and is refused when altered."""

from __future__ import annotations

import base64
import binascii
import contextlib
import zlib

from flask import Flask

from tests.support.api import PASSWORD, ApiHelper


def decodings(value: str) -> list[bytes]:
    """Every reading an onlooker would try: each dot-separated part as base64 (url-safe or not),
    and each of those inflated with zlib."""
    found = [value.encode()]
    for part in value.lstrip(".").split("."):
        for decode in (base64.urlsafe_b64decode, base64.b64decode):
            try:
                raw = decode(part + "=" * (-len(part) % 4))
            except (binascii.Error, ValueError):
                continue
            found.append(raw)
            with contextlib.suppress(zlib.error):
                found.append(zlib.decompress(raw))
    return found


def test_the_cookie_decodes_to_nothing_of_the_token(app: Flask, api: ApiHelper) -> None:
    api.user("alice")
    browser = app.test_client()
    r = browser.post("/api/session", json={"username": "alice", "password": PASSWORD})
    assert r.status_code == 201
    cookie = browser.get_cookie("session")
    assert cookie is not None
    # what the server reads from it: the session's bearer token
    token = app.session_interface.get_signing_serializer(app).loads(cookie.value)["token"]  # type: ignore[attr-defined]
    user_hex, token_hex, secret = token.split(".", 2)
    for seen in decodings(cookie.value):
        for part in (token, secret, token_hex, user_hex, "token", "csrf"):
            assert part.encode() not in seen, part
    assert browser.get("/api/me").get_json()["username"] == "alice"


def test_an_altered_cookie_is_refused(app: Flask, api: ApiHelper) -> None:
    api.user("alice")
    browser = app.test_client()
    r = browser.post("/api/session", json={"username": "alice", "password": PASSWORD})
    csrf = r.get_json()["csrf"]
    value = browser.get_cookie("session").value  # type: ignore[union-attr]
    middle = len(value) // 2
    altered = value[:middle] + ("A" if value[middle] != "A" else "B") + value[middle + 1 :]
    thief = app.test_client()
    thief.set_cookie("session", altered)
    assert thief.get("/api/me").status_code == 401
    r = thief.put(
        "/api/me/email",
        json={"email": "x@example.org", "current_password": PASSWORD},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 401  # no session: nothing was written
    assert browser.get("/api/me").status_code == 200  # the real cookie still works
