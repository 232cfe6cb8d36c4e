"""The session cookie is sealed (AES-GCM under a key derived from the server key): it opens only
under that key (or a fallback), is refused when altered or too old, and its serializer is built
once per key (not per request)."""

from __future__ import annotations

import base64

import pytest
from flask import Flask
from itsdangerous import BadSignature, SignatureExpired

from service.api.session_cookie import CookieSessions, SealedSerializer

TOKEN = "0123456789abcdef0123456789abcdef.fedcba9876543210fedcba9876543210.s3cr3t-s3cr3t-s3cr3t"


def test_the_serializer_is_built_once_per_key_and_anew_for_a_new_key() -> None:
    app = Flask(__name__)
    app.secret_key = "first key"
    sessions = CookieSessions()
    sealer = sessions.get_signing_serializer(app)
    assert sessions.get_signing_serializer(app) is sealer
    cookie = sealer.dumps({"token": "t"})
    assert sealer.loads(cookie) == {"token": "t"}
    app.secret_key = "second key"
    renewed = sessions.get_signing_serializer(app)
    assert renewed is not sealer
    with pytest.raises(BadSignature):
        renewed.loads(cookie)
    app.config["SECRET_KEY_FALLBACKS"] = ["first key"]  # a rotation: old cookies still open
    assert sessions.get_signing_serializer(app).loads(cookie) == {"token": "t"}


def test_the_cookie_does_not_show_the_token_however_it_is_decoded() -> None:
    cookie = SealedSerializer(["key"]).dumps({"token": TOKEN, "csrf": "c" * 32})
    body = cookie.partition(".")[2]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    for secret in (TOKEN, "s3cr3t", "token", "csrf"):
        assert secret not in cookie
        assert secret.encode() not in raw
    two = SealedSerializer(["key"]).dumps({"token": TOKEN})
    assert two != SealedSerializer(["key"]).dumps({"token": TOKEN})  # a fresh nonce each time


def test_an_altered_cookie_does_not_open() -> None:
    sealer = SealedSerializer(["key"])
    cookie = sealer.dumps({"token": TOKEN})
    prefix, _, body = cookie.partition(".")
    for i in (0, len(body) // 2, len(body) - 2):
        flipped = body[:i] + ("A" if body[i] != "A" else "B") + body[i + 1 :]
        with pytest.raises(BadSignature):
            sealer.loads(f"{prefix}.{flipped}")
    for junk in ("", "v1.", "v2." + body, body, "v1.!!!", "v1.AAAA"):
        with pytest.raises(BadSignature):
            sealer.loads(junk)


def test_a_cookie_older_than_the_session_lifetime_does_not_open() -> None:
    now = [1_000_000.0]
    sealer = SealedSerializer(["key"], clock=lambda: now[0])
    cookie = sealer.dumps({"token": TOKEN})
    now[0] += 100
    assert sealer.loads(cookie, max_age=100) == {"token": TOKEN}
    now[0] += 1
    with pytest.raises(SignatureExpired):
        sealer.loads(cookie, max_age=100)


def test_a_request_with_and_without_the_cookie() -> None:
    app = Flask(__name__)
    app.secret_key = "key"
    app.session_interface = CookieSessions()

    @app.post("/in")
    def sign_in() -> str:
        from flask import session

        session["token"] = "abc"
        return "ok"

    @app.get("/who")
    def who() -> str:
        from flask import session

        return str(session.get("token", "nobody"))

    client = app.test_client()
    assert client.get("/who").text == "nobody"
    assert client.post("/in").status_code == 200
    assert client.get("/who").text == "abc"
    cookie = client.get_cookie("session")
    assert cookie is not None and cookie.value.startswith("v1.") and "abc" not in cookie.value
