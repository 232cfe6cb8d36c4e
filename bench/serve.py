"""A real ``arbiter serve`` for the HTTP benchmarks: a temporary var directory, SQLite, a free port on
loopback, started and waited for (``/healthz``), stopped afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
ARBITER = str(Path(sys.executable).parent / "arbiter")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def arbiter_serve(
    env_extra: Mapping[str, str] | None = None,
    prepare: Callable[[dict[str, str]], None] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Yield the server's base URL and its process; ``prepare(env)`` runs before it starts (for
    CLI set-up on the same store).  RuntimeError if it exits or does not answer in 30 s."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ARBITER_VAR=tmp, ARBITER_STORE="sqlite", **(env_extra or {}))
        env.pop("REDIS_URL", None)
        if prepare is not None:
            prepare(env)
        port = free_port()
        server = subprocess.Popen(
            [ARBITER, "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    requests.get(base + "/healthz", timeout=5)
                    break
                except requests.RequestException:  # not up yet, or busy starting
                    if server.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.1)
            else:
                raise RuntimeError("the server did not answer /healthz in 30 s")
            yield base, server
        finally:
            server.terminate()
            server.wait(timeout=10)
