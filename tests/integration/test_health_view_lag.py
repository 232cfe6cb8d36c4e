"""``/healthz`` reports each persisted view's lag behind the log, and says ``degraded`` naming the
views more than ``ARBITER_VIEW_LAG_LIMIT`` notifications behind (no worker runs them here, so
events of other topics leave the views behind until the worker's step)."""

from __future__ import annotations

from dataclasses import replace

from service.app import create_app
from service.config import Config
from tests.support.api import ApiHelper


def test_a_view_behind_the_limit_makes_health_degraded(config: Config) -> None:
    app = create_app(replace(config, view_lag_limit=5))  # ``config`` has its index already
    try:
        api = ApiHelper(app.test_client())
        health = app.test_client().get("/healthz").get_json()
        assert health["status"] == "ok" and {v["name"] for v in health["views"]} >= {
            "games",
            "seeks",
        }
        for name in ("ann", "bob", "cat", "dan"):  # users' events: no view of these catches up
            api.user(name)
        r = app.test_client().get("/healthz")
        health = r.get_json()
        assert r.status_code == 200 and health["status"] == "degraded"
        assert set(health["views_behind"]) >= {"games", "seeks"}
        games = next(v for v in health["views"] if v["name"] == "games")
        assert games["lag"] == games["head"] - games["position"] > 5
        app.extensions["arbiter"].projections.run()  # the worker's step
        health = app.test_client().get("/healthz").get_json()
        assert health["status"] == "ok" and "views_behind" not in health
        assert all(v["lag"] == 0 for v in health["views"])
    finally:
        app.extensions["arbiter"].close()
