"""`make test`: every test, in two pytest processes side by side, so that the run's wall time is
about the longer half's instead of the sum (the end-to-end half mostly waits on servers and
Chromium; the machine has two cores).

- ``tests/conformance`` and ``tests/e2e`` (HTTP, CLI, server processes, the browser);
- everything else (fuzz, golden games, integration, unit);

then the few tests marked ``alone`` (they measure behaviour under a load of their own making, which
the other half's load would distort), with nothing beside them.

The two share nothing by construction: each PostgreSQL test makes its own database, ports are free
ones, folders are temporary, Redis channels are named by ids, and the first half is given Redis
database 14 (``TEST_REDIS_URL``) while the other flushes and uses 15.  Each process's output is
printed whole when it ends, the first to end first; the run fails if either does.  With
arguments (``python -m tests.parallel tests/unit -k clock``) it is one plain pytest run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

FIRST = ["tests/conformance", "tests/e2e"]
#: the slowest tests of each half are named at its end: where the run's time goes
NOT_ALONE = ["-m", "not alone", "--durations=25"]
GROUPS = {
    "end-to-end and conformance tests": (
        [*FIRST, *NOT_ALONE],
        {"TEST_REDIS_URL": "redis://127.0.0.1:6379/14"},
    ),
    "all other tests": (["tests", *(f"--ignore={path}" for path in FIRST), *NOT_ALONE], {}),
}
#: the tests that measure behaviour under their own load (``-m alone``: 96 sign-ins at once, a
#: burst of clients spread over workers), run after both halves with nothing beside them
ALONE = ["tests", "-m", "alone"]


def main(argv: list[str]) -> int:
    if argv:
        return subprocess.call([sys.executable, "-m", "pytest", *argv])
    started = time.monotonic()
    codes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="arbiter-tests-") as folder:
        running: dict[str, tuple[subprocess.Popen[bytes], Path, IO[bytes]]] = {}
        for name, (args, env) in GROUPS.items():
            log = Path(folder) / f"{len(running)}.log"
            out = log.open("wb")
            process = subprocess.Popen(
                [sys.executable, "-m", "pytest", *args],
                env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            running[name] = (process, log, out)
            print(f"started: {name} (pytest {' '.join(args)})", flush=True)
        try:
            while running:
                for name, (process, log, sink) in list(running.items()):
                    code = process.poll()
                    if code is None:
                        continue
                    sink.close()
                    del running[name]
                    codes[name] = code
                    minutes = (time.monotonic() - started) / 60
                    print(f"\n===== {name}: exit {code} after {minutes:.1f} min =====", flush=True)
                    sys.stdout.write(log.read_text(errors="replace"))
                    sys.stdout.flush()
                time.sleep(1)
        finally:
            for process, _log, sink in running.values():  # interrupted: stop the other too
                process.terminate()
                process.wait()
                sink.close()
    print("\n===== tests that run alone (-m alone) =====", flush=True)
    codes["tests that run alone"] = subprocess.call([sys.executable, "-m", "pytest", *ALONE])
    failed = [name for name, code in codes.items() if code != 0]
    minutes = (time.monotonic() - started) / 60
    if failed:
        print(f"\nFAILED: {', '.join(failed)} ({minutes:.1f} min)")
        return 1
    print(f"\nevery test passed: both halves, then those run alone ({minutes:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
