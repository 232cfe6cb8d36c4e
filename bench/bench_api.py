"""Command round trip through the HTTP API on SQLite: p50 and p99 over 2,000 commands, against a real
`arbiter serve` process over loopback (target p50 under 10 ms)."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

COMMANDS = 2000
ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = dict(
            os.environ, ARBITER_VAR=tmp, ARBITER_PLUGINS="bench.systems", ARBITER_STORE="sqlite"
        )
        env.pop("REDIS_URL", None)
        arbiter = str(Path(sys.executable).parent / "arbiter")
        subprocess.run(
            [arbiter, "users", "add", "bench", "--password", "benchmark-password"],
            env=env,
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        server = subprocess.Popen(
            [arbiter, "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    requests.get(base + "/healthz", timeout=1)
                    break
                except requests.ConnectionError:
                    time.sleep(0.1)
            http = requests.Session()
            token = http.post(
                base + "/api/tokens", json={"username": "bench", "password": "benchmark-password"}
            ).json()["token"]
            http.headers["Authorization"] = f"Bearer {token}"
            game = http.post(
                base + "/api/games",
                json={
                    "system": "bench-tally",
                    "scenario": "race",
                    "sides": {"a": "bench", "b": "bench"},
                },
            ).json()
            url = f"{base}/api/games/{game['id']}/commands"
            version = game["version"]
            times = []
            for i in range(COMMANDS):
                body = {
                    "expected_version": version,
                    "side": "a",
                    "command": {
                        "type": "advance",
                        "unit": f"u{i % 20}",
                        "path": ["A1", "B2", "C3"],
                    },
                }
                started = time.perf_counter()
                r = http.post(url, json=body)
                times.append(time.perf_counter() - started)
                assert r.status_code == 201, r.text
                version = r.json()["version"]
            p50, p99 = percentile(times, 50), percentile(times, 99)
            print(
                f"{COMMANDS} commands (decide, roll, append 3 events: command, dice, move; respond) over HTTP on SQLite"
            )
            print(
                f"p50 {p50 * 1000:.2f} ms   p99 {p99 * 1000:.2f} ms   mean {statistics.mean(times) * 1000:.2f} ms   "
                f"p99/p50 {p99 / p50:.1f}x"
            )
            print(
                f"p50 target 10 ms: {'met' if p50 < 0.010 else 'MISSED'} ({p50 / 0.010:.2f}x of target)"
            )
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
