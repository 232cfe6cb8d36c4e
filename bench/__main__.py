"""Run every benchmark: `python -m bench [name ...]` (names: store, api, search, ...)."""

from __future__ import annotations

import importlib
import sys
import time

BENCHES = (
    "store",
    "api",
    "search",
    "ladders",
    "actions",
    "throughput",
    "page",
    "seeks",
    "clocks",
    "history",
    "notify_lag",
    "what_if",
    "map_image",
)


def main(argv: list[str]) -> int:
    names = argv or list(BENCHES)
    failed = 0
    for name in names:
        try:
            module = importlib.import_module(f"bench.bench_{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bench.bench_{name}":
                print(f"== {name}: not present, skipped")
                continue
            raise
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            module.main()
        except Exception as exc:  # noqa: BLE001 - report and go on with the other benchmarks
            failed += 1
            print(f"!! {name} failed: {exc!r}")
        print(f"({name}: {time.perf_counter() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
