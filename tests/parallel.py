"""`make test`: every test, spread over pytest-xdist workers (`make coverage`: the same, measured).

1. every test not marked ``alone``, whole files to ``ARBITER_TEST_WORKERS`` workers (4 by
   default: the end-to-end files mostly wait on servers and Chromium, so twice the machine's two
   cores keeps both busy), the heaviest files first by ``tests/file_seconds.json``
   (``tests/support/order.py``) so that the workers end together;
2. then the few tests marked ``alone`` (they measure behaviour under a load of their own making,
   which the other workers' load would distort), with nothing beside them;
3. with ``ARBITER_COVERAGE=on`` (``make coverage``), line and branch coverage of both runs and its
   total (``[tool.coverage]`` in ``pyproject.toml``; the HTML report in ``var/coverage/html``).
   Not in ``make test``: on this two-core machine with Python 3.11's tracer the run took about
   twice as long (issue 48's note).

First the project's own modules are compiled to bytecode once (``compileall``): where
``PYTHONDONTWRITEBYTECODE`` is set, as on the CI machine, every server and CLI process the tests
start would otherwise compile ``service/``, ``faq/`` and ``web/`` from source again (about a
second of CPU each).

The time budget is enforced (``ARBITER_TEST_BUDGET=on``, ``tests/support/budget.py``): a test
whose call takes over 20 s, or a file over 60 s, not marked ``@pytest.mark.slow("why")`` fails the
run; on a machine slower than the budget's, the budget grows in proportion (measured first:
``ARBITER_TEST_BUDGET_SCALE``).  With arguments (``python -m tests.parallel tests/unit -k clock``) it is one plain pytest run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support import budget

ROOT = Path(__file__).resolve().parent.parent
COVERAGE_FILE = ROOT / "var" / ".coverage"


def workers() -> str:
    value = os.environ.get("ARBITER_TEST_WORKERS", "4")
    if not value.isdigit() or int(value) < 1:
        sys.exit(
            f"ARBITER_TEST_WORKERS must be a whole number of workers, at least 1 (got {value!r})"
        )
    return value


def coverage_on() -> bool:
    return os.environ.get("ARBITER_COVERAGE", "off").lower() in {"on", "1", "yes", "true"}


def pytest(*args: str, env: dict[str, str]) -> int:
    command = [sys.executable, "-m", "pytest", *args]
    print("$ " + " ".join(command[1:]), flush=True)
    return subprocess.call(command, cwd=ROOT, env=env)


def main(argv: list[str]) -> int:
    if argv:
        return subprocess.call([sys.executable, "-m", "pytest", *argv])
    started = time.monotonic()
    count = workers()  # a wrong setting stops the run before any work
    subprocess.call(
        [sys.executable, "-m", "compileall", "-q", "service", "faq", "web", "tests", "bench"],
        cwd=ROOT, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    env = {**os.environ, "ARBITER_TEST_BUDGET": os.environ.get("ARBITER_TEST_BUDGET", "on")}
    if "ARBITER_TEST_BUDGET_SCALE" not in env:
        reference = budget.machine_reference()
        env["ARBITER_TEST_BUDGET_SCALE"] = f"{max(1.0, reference / budget.REFERENCE_SECONDS):.2f}"
        print(
            f"machine reference {reference:.2f} s (the budget's machine: "
            f"{budget.REFERENCE_SECONDS:.2f} s): the budget scaled by "
            f"{env['ARBITER_TEST_BUDGET_SCALE']}",
            flush=True,
        )
    cov: list[str] = []
    if coverage_on():
        COVERAGE_FILE.parent.mkdir(exist_ok=True)
        for stale in COVERAGE_FILE.parent.glob(".coverage*"):
            stale.unlink()
        env["ARBITER_COVERAGE_FILE"] = str(COVERAGE_FILE)
        cov = ["--cov", "--cov-report="]
    codes = {
        "the tests on several workers": pytest(
            "-n", count, "--dist", "loadfile", "--no-loadscope-reorder",
            "-m", "not alone", "--durations=25", *cov, "tests", env=env,
        ),
        "the tests that run alone": pytest(
            "-m", "alone", *cov, *(["--cov-append"] if cov else []), "tests", env=env,
        ),
    }  # fmt: skip
    if cov:
        coverage = [sys.executable, "-m", "coverage"]
        cov_env = {**env, "COVERAGE_FILE": str(COVERAGE_FILE)}
        subprocess.call([*coverage, "html", "-q"], cwd=ROOT, env=cov_env)
        total = subprocess.run(
            [*coverage, "report", "--format=total"], cwd=ROOT, env=cov_env,
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        print(
            f"\ncoverage of service/, faq/ and web/ (line and branch): {total or '?'} % "
            f"(per file: var/coverage/html/index.html)"
        )
    failed = [name for name, code in codes.items() if code != 0]
    minutes = (time.monotonic() - started) / 60
    if failed:
        print(f"\nFAILED: {', '.join(failed)} ({minutes:.1f} min)")
        return 1
    print(f"\nevery test passed ({minutes:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
