"""``GET /healthz``: the store, Redis (when configured) and this worker, in one answer.

``status`` is ``ok``, ``degraded`` (Redis is configured but not answering: commands go on, live
streams poll) or ``down`` (the store is not reachable: the answer is a 503, as is every request
that needs the store, until it is back)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from service.application.availability import probe
from service.application.services import Services


def health(svc: Services, started: float) -> tuple[dict[str, Any], int]:
    """The report and its HTTP status (503 when the store is down)."""
    store = {"kind": svc.config.store, **probe(svc.store.recorder)}
    live_ok = svc.broker.healthy()
    redis = {"configured": bool(svc.config.redis_url), "ok": live_ok}
    if not store["ok"]:
        status = "down"
    elif redis["configured"] and not live_ok:
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
        "store": store,
        "redis": redis,
        "worker": worker,
        "live": "redis" if svc.config.redis_url else "in-process",
        "live_ok": live_ok,
        "systems": svc.registry.names(),
    }
    return report, 503 if status == "down" else 200
