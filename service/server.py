"""`arbiter serve`: gunicorn running one uvicorn worker with the ASGI app (``service/asgi.py``).

One process, because the embedded SQLite store wants one.  Ordinary requests run on the Flask app's
thread pool; live streams are served async and hold no thread, so open streams never starve other
requests.  Several workers on PostgreSQL + Redis run the same stack with ``gunicorn -w N -k
service.worker.ArbiterWorker`` (README), uvicorn's worker with connections spread evenly over
the workers (``service/worker.py``)."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

WORKER_CLASS = "service.worker.ArbiterWorker"


class ArbiterServer(BaseApplication):  # type: ignore[misc]
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from service.asgi import create_asgi

        return create_asgi()  # in the worker, after the fork: no store connection crosses it


def serve(host: str, port: int) -> None:
    ArbiterServer(
        {
            "bind": f"{host}:{port}",
            "workers": 1,
            "worker_class": WORKER_CLASS,
            "graceful_timeout": 3,
            "accesslog": "-",
            "errorlog": "-",
            "loglevel": "info",
        }
    ).run()
