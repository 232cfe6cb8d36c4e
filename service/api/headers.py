"""Security headers on every answer, and the reverse proxy's word on the scheme and address.

The app's own pages load their scripts, styles and data from the site only, and run no inline
script or style (the tests drive every page in Chromium under this policy), so the policy allows
nothing else.  No page may be framed (clickjacking), no answer is sniffed into another type, and a
link out of the site carries no path.  Behind a TLS reverse proxy (``ARBITER_PROXY_HOPS``,
docs/deployment.md) the scheme it saw is honoured, and with ``ARBITER_SECURE_COOKIES`` the session
cookie is sent over HTTPS only and browsers are told to keep to HTTPS."""

from __future__ import annotations

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


def install(app: Flask, config: Config) -> None:
    app.config["SESSION_COOKIE_SECURE"] = config.secure_cookies
    if config.proxy_hops:
        hops = config.proxy_hops
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops
        )
    headers = dict(HEADERS)
    if config.secure_cookies:
        headers["Strict-Transport-Security"] = HSTS

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        return response
