"""The composition root: ``create_app(config)`` wires config, store, rules, broker, API and web."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from flask import Flask, jsonify

from service.api import agreements as agreements_api
from service.api import campaigns as campaigns_api
from service.api import chat as chat_api
from service.api import clubs as clubs_api
from service.api import disputes as disputes_api
from service.api import games as games_api
from service.api import ladders as ladders_api
from service.api import notifications as notifications_api
from service.api import passwords as passwords_api
from service.api import profiles as profiles_api
from service.api import push as push_api
from service.api import reviews as reviews_api
from service.api import rules as rules_api
from service.api import scenarios as scenarios_api
from service.api import seeks as seeks_api
from service.api import systems as systems_api
from service.api import tournaments as tournaments_api
from service.api import users as users_api
from service.api import webhooks as webhooks_api
from service.api.auth import install_game_access
from service.api.errors import ArbiterApi, register_error_handlers
from service.api.gate import install as install_gate
from service.api.headers import install as install_headers
from service.api.health import health
from service.api.json_answers import OrjsonProvider
from service.api.session_cookie import CookieSessions
from service.application.store_faults import StoreFaults
from service.application.store_probe import StoreProbe
from service.bootstrap import build_services
from service.config import Config


class ArbiterFlask(Flask):
    """Flask, with :meth:`ensure_sync` reading a function's code flags itself."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Flask's, without ``inspect.iscoroutinefunction``'s unwrapping for a plain function or
        method: Flask asks it of the view and of each hook on every request (a dozen times a
        command).  A callable of another shape goes to Flask's own."""
        code = getattr(getattr(func, "__func__", func), "__code__", None)
        if not inspect.iscode(code) or code.co_flags & inspect.CO_COROUTINE:
            return super().ensure_sync(func)
        return func


def create_app(config: Config | None = None, **overrides: Any) -> Flask:
    config = config or Config.from_env(**overrides)
    app = ArbiterFlask(__name__, static_folder=None)
    app.json = OrjsonProvider(app)  # the answers' JSON, encoded by orjson
    app.config.update(
        SECRET_KEY=config.secret_key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=config.token_days),  # the token's lifetime
        MAX_CONTENT_LENGTH=1 * 1024 * 1024,
        API_TITLE="Arbiter",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        TESTING=config.testing,
    )
    app.session_interface = CookieSessions()
    svc = build_services(config)
    app.extensions["arbiter"] = svc

    api = ArbiterApi(app)
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for blueprint in (
        users_api.blp,
        passwords_api.blp,
        systems_api.blp,
        games_api.blp,
        reviews_api.blp,
        clubs_api.blp,
        clubs_api.me_blp,
        ladders_api.blp,
        campaigns_api.blp,
        tournaments_api.blp,
        disputes_api.blp,
        agreements_api.blp,
        rules_api.blp,
        seeks_api.blp,
        profiles_api.blp,
        scenarios_api.blp,
        notifications_api.blp,
        webhooks_api.blp,
        push_api.blp,
        chat_api.blp,
    ):
        api.register_blueprint(blueprint)
    faults = StoreFaults.of_config(config)
    register_error_handlers(app, faults)
    install_gate(app)  # strict JSON before any route runs (service/api/gate.py)
    install_game_access(app)  # who may read a game, for every game route
    install_headers(app, config)  # CSP, no framing, nosniff; cookies and the proxy's scheme

    from web import create_blueprint as web_blueprint

    app.register_blueprint(web_blueprint())

    started = time.monotonic()
    store_probe = StoreProbe(svc.store.recorder, faults)  # read and write, kept 1.5 s

    @app.get("/healthz")
    def healthz() -> Any:
        report, status = health(svc, started, store_probe)  # service/api/health.py
        return jsonify(report), status

    return app
