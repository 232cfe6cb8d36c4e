"""Who is calling: a bearer token (API clients) or a sealed session cookie (the web app:
``service.api.session_cookie``)."""

from __future__ import annotations

import secrets

from flask import Flask, current_app, g, request, session

from service.application.services import Services
from service.domain.digests import same_secret
from service.domain.errors import Forbidden, Unauthenticated
from service.domain.users import User

CSRF_HEADER = "X-CSRF-Token"
#: the methods that write: only their requests record a token's use (GETs never write)
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def services() -> Services:
    return current_app.extensions["arbiter"]


def optional_user() -> User | None:
    if "user" in g:
        return g.user
    user = None
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("use 'Authorization: Bearer <token>'")
        user = services().users.from_token(token.strip(), writing=request.method in UNSAFE)
    elif session.get("token"):
        if request.method in UNSAFE:
            sent = request.headers.get(CSRF_HEADER, "")
            if not same_secret(session.get("csrf", ""), sent):
                raise Forbidden(
                    "missing or wrong CSRF token", {CSRF_HEADER: ["required with a session cookie"]}
                )
        try:
            user = services().users.from_token(session["token"], writing=request.method in UNSAFE)
        except Unauthenticated:
            session.clear()
            user = None
    g.user = user
    return user


def require_user() -> User:
    user = optional_user()
    if user is None:
        raise Unauthenticated("sign in first: send 'Authorization: Bearer <token>'")
    return user


def current_token() -> tuple[str, bool]:
    """The token this request was signed in with, and whether it came from the session cookie
    (call after :func:`require_user`)."""
    header = request.headers.get("Authorization", "")
    if header:
        return header.partition(" ")[2].strip(), False
    return str(session.get("token", "")), True


def start_session(token: str) -> str:
    session.clear()
    session["token"] = token
    session["csrf"] = secrets.token_urlsafe(24)
    session.permanent = True
    return session["csrf"]


def install_game_access(app: Flask) -> None:
    """One read rule for every ``/api/…/<game_id>…`` route (``service.application.access``): a
    caller who may not read the game is answered 404, before the view runs."""

    @app.before_request
    def readable_game() -> None:
        game_id = (request.view_args or {}).get("game_id")
        if game_id is not None and request.path.startswith("/api/"):
            services().access.require(game_id, optional_user())


def renew_session(token: str) -> None:
    """Put ``token`` in place of the session's (after a password change): the session and its
    CSRF token go on."""
    session["token"] = token
