"""The session cookie's signer is built once per server key (not per request), and a new key
makes a new signer: a cookie signed under the old key no longer opens a session."""

from __future__ import annotations

import pytest
from flask import Flask
from itsdangerous import BadSignature

from service.api.auth import CookieSessions


def test_the_signer_is_built_once_per_key_and_anew_for_a_new_key() -> None:
    app = Flask(__name__)
    app.secret_key = "first key"
    sessions = CookieSessions()
    signer = sessions.get_signing_serializer(app)
    assert sessions.get_signing_serializer(app) is signer
    cookie = signer.dumps({"token": "t"})
    assert signer.loads(cookie) == {"token": "t"}
    app.secret_key = "second key"
    renewed = sessions.get_signing_serializer(app)
    assert renewed is not signer
    with pytest.raises(BadSignature):
        renewed.loads(cookie)


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
