"""Command round trip through the HTTP API on SQLite: p50 and p99 over 2,000 commands, against a real
`arbiter serve` process over loopback (target p50 under 10 ms)."""

from __future__ import annotations

import statistics
import subprocess
import time

import requests

from bench.serve import ARBITER, ROOT, arbiter_serve

COMMANDS = 2000


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def add_user(env: dict[str, str]) -> None:
    subprocess.run(
        [ARBITER, "users", "add", "bench", "--password", "benchmark-password"],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def main() -> None:
    with arbiter_serve({"ARBITER_PLUGINS": "bench.systems"}, prepare=add_user) as (base, _server):
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


if __name__ == "__main__":
    main()
