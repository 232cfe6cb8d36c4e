"""`arbiter serve`: gunicorn with one threaded worker (the embedded SQLite store wants one process;
threads serve concurrent requests and the long-lived event streams).  Several workers on
PostgreSQL + Redis run gunicorn directly (README)."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication


class ArbiterServer(BaseApplication):  # type: ignore[misc]
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from service.app import create_app

        return create_app()  # in the worker, after the fork: no store connection crosses it


def serve(host: str, port: int, threads: int = 32) -> None:
    ArbiterServer(
        {
            "bind": f"{host}:{port}",
            "workers": 1,
            "worker_class": "gthread",
            "threads": threads,
            "graceful_timeout": 3,
            "accesslog": "-",
            "errorlog": "-",
            "loglevel": "info",
        }
    ).run()
