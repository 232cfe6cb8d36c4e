"""Security headers on every answer (issue 34, finding 7): a Content-Security-Policy that the
app's own pages satisfy, no framing, no sniffing, a referrer policy; the session cookie marked
Secure and HSTS sent with ``ARBITER_SECURE_COOKIES``; the reverse proxy's scheme and client
address honoured with ``ARBITER_PROXY_HOPS``.  Before, no answer carried any of these."""

from __future__ import annotations

from pathlib import Path

from flask import request

from service.app import create_app
from tests.conftest import make_config
from tests.support.api import PASSWORD, ApiHelper

EXPECTED = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def test_every_kind_of_answer_carries_the_headers(api: ApiHelper) -> None:
    game = api.create_game("skirmish", "meeting", {"red": "alice", "blue": "bob"})
    for path, headers in (
        ("/", {}),
        ("/static/js/dom.js", {}),
        ("/api/systems", {}),
        (f"/api/games/{game['id']}", api.user("alice")),
        (f"/api/games/{game['id']}", {}),  # a 404
        ("/api/me", {}),  # a 401
        ("/healthz", {}),
    ):
        r = api.client.get(path, headers=headers)
        for name, value in EXPECTED.items():
            assert r.headers.get(name) == value, (path, name)
        policy = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "Strict-Transport-Security" not in r.headers  # plain HTTP by default


def test_a_header_the_answer_sets_itself_is_kept_once(tmp_path: Path) -> None:
    """The hook adds only what an answer lacks, whatever the case of the name it was set with."""
    app = create_app(make_config(tmp_path))

    @app.get("/framed-by-self")
    def framed() -> tuple[str, int, dict[str, str]]:
        return "ok", 200, {"x-frame-options": "SAMEORIGIN"}

    try:
        r = app.test_client().get("/framed-by-self")
        assert r.headers.getlist("X-Frame-Options") == ["SAMEORIGIN"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert len(r.headers.getlist("Content-Security-Policy")) == 1
    finally:
        app.extensions["arbiter"].close()


def test_secure_cookies_and_hsts_behind_tls(tmp_path: Path) -> None:
    app = create_app(make_config(tmp_path, secure_cookies=True))
    try:
        api = ApiHelper(app.test_client())
        api.user("alice")
        r = api.client.post("/api/session", json={"username": "alice", "password": PASSWORD})
        assert r.status_code == 201
        cookie = r.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
        assert r.headers["Strict-Transport-Security"].startswith("max-age=")
    finally:
        app.extensions["arbiter"].close()


def test_the_proxys_scheme_and_client_address_are_honoured_only_when_trusted(
    tmp_path: Path,
) -> None:
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    for hops, seen in ((0, "http 127.0.0.1"), (1, "https 203.0.113.9")):
        app = create_app(make_config(tmp_path / str(hops), proxy_hops=hops))
        try:
            app.add_url_rule("/probe", "probe", lambda: f"{request.scheme} {request.remote_addr}")
            r = app.test_client().get("/probe", headers=forwarded)
            assert r.get_data(as_text=True) == seen, hops
        finally:
            app.extensions["arbiter"].close()
