"""``GET /healthz``: the store, Redis (when configured) and this worker, in one answer.

``status`` is ``ok``, ``degraded`` (Redis is configured but not answering: commands go on, live
streams poll; or a persisted view is more than ``ARBITER_VIEW_LAG_LIMIT`` notifications behind the
log: lists miss what other players did lately, ``views_behind`` says which; or a view parked an
event it could not take: ``views_parked`` names the view and the event, until an operator retries
or drops it with ``arbiter projections parked``) or ``down`` with a 503 and its ``reason``: the
store is ``unreachable`` (every request that needs it answers 503 until it is back), or cannot save -- ``read-only``, ``disk full`` or
``disk error`` (reads go on; every write answers 503 saying the same).  How the store is probed,
without ever keeping a write: :mod:`service.application.store_probe`."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from service.application.services import Services
from service.application.store_probe import StoreProbe

#: the parked events ``/healthz`` names (the first of each store's, by view and position;
#: ``views_parked_more`` when there are more: ``arbiter projections status`` lists them all)
PARKED_SHOWN = 20


def health(svc: Services, started: float, store_probe: StoreProbe) -> tuple[dict[str, Any], int]:
    """The report and its HTTP status (503 when the store is down)."""
    store = {"kind": svc.config.store, **store_probe.report()}
    live_ok = svc.broker.healthy()
    redis = {"configured": bool(svc.config.redis_url), "ok": live_ok}
    views, parked = _views(svc) if store["ok"] else ([], [])
    behind = [v["name"] for v in views if v["lag"] > svc.config.view_lag_limit]
    if not store["ok"]:
        status = "down"
    elif (redis["configured"] and not live_ok) or behind or parked:
        status = "degraded"
    else:
        status = "ok"
    worker = {
        "pid": os.getpid(),
        "threads": threading.active_count(),
        "uptime_s": round(time.monotonic() - started, 1),
    }
    report = {
        "status": status,
        **({"reason": store["reason"]} if status == "down" else {}),
        "store": store,
        "redis": redis,
        "views": views,
        **({"views_behind": behind} if behind else {}),
        **({"views_parked": parked[:PARKED_SHOWN]} if parked else {}),
        **({"views_parked_more": True} if len(parked) > PARKED_SHOWN else {}),
        "worker": worker,
        "live": "redis" if svc.config.redis_url else "in-process",
        "live_ok": live_ok,
        "systems": svc.registry.names(),
    }
    return report, 503 if status == "down" else 200


def _views(svc: Services) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each persisted view's position, the log's head and the lag between (two small reads each),
    and the events the views parked (one read per store): each its view, position and the event
    in words."""
    notifications = getattr(svc, "notifications", None)
    catalogs = [
        getattr(svc, "projections", None),
        getattr(getattr(notifications, "process", None), "views", None),
    ]
    try:
        found = [
            view
            for c in catalogs
            if c is not None
            for view in c.status(count_rows=False, parked_limit=PARKED_SHOWN + 1)
        ]
    except Exception:  # the store's own probe reports what is wrong with it
        return [], []
    views = [{key: view[key] for key in ("name", "position", "head", "lag")} for view in found]
    parked = [
        {key: event[key] for key in ("view", "position", "event")}
        for view in found
        for event in view["parked"]
    ]
    return views, parked
