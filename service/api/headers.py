"""Security headers on every answer, and the reverse proxy's word on the scheme and address.

The app's own pages load their scripts, styles and data from the site only, and run no inline
script or style (the tests drive every page in Chromium under this policy), so the policy allows
nothing else.  No page may be framed (clickjacking), no answer is sniffed into another type, and a
link out of the site carries no path.  Behind a TLS reverse proxy (``ARBITER_PROXY_HOPS``,
docs/deployment.md) the scheme it saw is honoured, and with ``ARBITER_SECURE_COOKIES`` the session
cookie is sent over HTTPS only and browsers are told to keep to HTTPS.

:func:`trusting_proxies` is the one place the proxy's word is taken: the client's address every
throttle counts (``request.remote_addr``), the scheme and the host.  With ``ARBITER_PROXY_HOPS=0``
``X-Forwarded-For``, ``-Proto`` and ``-Host`` mean nothing; uvicorn's own reading of them is off in
every case (``service/worker.py``), as it trusts by the peer's address, not by hops."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

from service.config import Config

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "worker-src 'self'",  # the service worker, /sw.js (web push, the page shells offline)
        "manifest-src 'self'",  # /manifest.webmanifest (the installable app)
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
#: a year, once the site is known to be served over HTTPS (``ARBITER_SECURE_COOKIES``)
HSTS = "max-age=31536000"


def trusting_proxies(app: Any, hops: int) -> Any:
    """The WSGI ``app`` reading the client's address, the scheme and the host from the nearest
    ``hops`` reverse proxies' ``X-Forwarded-For``, ``-Proto`` and ``-Host`` (werkzeug's ProxyFix:
    the ``hops``-th entry from the right, which the client cannot forge); with 0, ``app`` itself,
    to which those headers are nothing."""
    if not hops:
        return app
    return ProxyFix(app, x_for=hops, x_proto=hops, x_host=hops)


def client_address(environ: dict[str, Any], hops: int) -> str:
    """The client's address as the Flask app sees it (:func:`trusting_proxies`), for what counts
    clients outside it (the live streams' limit per client); ``environ`` is left as it was."""
    seen: list[str] = []

    def look(env: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(env.get("REMOTE_ADDR") or "")
        return []

    trusting_proxies(look, hops)(dict(environ), lambda *args: None)
    return seen[0]


def install(app: Flask, config: Config) -> None:
    app.config["SESSION_COOKIE_SECURE"] = config.secure_cookies
    app.wsgi_app = trusting_proxies(app.wsgi_app, config.proxy_hops)  # type: ignore[method-assign]
    headers = dict(HEADERS)
    if config.secure_cookies:
        headers["Strict-Transport-Security"] = HSTS

    wanted = [(name.lower(), name, value) for name, value in headers.items()]

    @app.after_request
    def secure(response: Response) -> Response:
        # one pass over what the answer has: werkzeug's ``setdefault`` looks each name up and
        # raises (and builds) an exception for each one missing, five of them on every answer
        present = {name.lower() for name in response.headers.keys()}  # noqa: SIM118 - (name, value) pairs without
        for lowered, name, value in wanted:
            if lowered not in present:
                response.headers.add(name, value)
        return response
