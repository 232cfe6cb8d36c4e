"""`make test`: every test, spread over pytest-xdist workers, measured.

1. every test not marked ``alone``, whole files to ``ARBITER_TEST_WORKERS`` workers (4 by
   default: the end-to-end files mostly wait on servers and Chromium, so twice the machine's two
   cores keeps both busy), the heaviest files first by ``tests/file_seconds.json``
   (``tests/support/order.py``) so that the workers end together;
2. then the few tests marked ``alone`` (they measure behaviour under a load of their own making,
   which the other workers' load would distort, or change what the others depend on: the two
   hosts' network namespaces), with nothing beside them;
3. line and branch coverage of both runs (``[tool.coverage]`` in ``pyproject.toml``), its total
   printed and held at its floor (``fail_under``: a run that measures less fails), each file's in
   ``var/coverage/html``; ``ARBITER_COVERAGE=off`` runs the same tests unmeasured.  The tests
   marked ``unmeasured`` (the rules loops, the browser tests, and the files whose every line and
   branch a measured file reaches too, ``tests/coverage_plan.json``: ``tests/conftest.py``) run
   with no tracer (``tests/support/coverage_pause.py``).  ``ARBITER_COVERAGE=plan`` (``make
   coverage-plan``) measures every file instead, each test's arcs apart, and makes that plan
   again (``tests/coverage_plan.py``).

First the project's own modules are compiled to bytecode once (``compileall``): where
``PYTHONDONTWRITEBYTECODE`` is set, as on the CI machine, every server and CLI process the tests
start would otherwise compile ``service/``, ``faq/`` and ``web/`` from source again (about a
second of CPU each).  The test modules' assertions are rewritten once too
(:func:`rewrite_assertions`): under ``PYTHONDONTWRITEBYTECODE`` pytest rewrites every test
module's ``assert`` statements again in each process that collects them -- each xdist worker and
the run of the tests that run alone -- about 14 s of CPU each, which a rewritten module kept in
``__pycache__`` saves.

The time budget is enforced (``ARBITER_TEST_BUDGET=on``, ``tests/support/budget.py``): a test
whose call takes over 20 s, or a file over 60 s, not marked ``@pytest.mark.slow("why")`` fails the
run; on a machine slower than the budget's, the budget grows in proportion (measured first:
``ARBITER_TEST_BUDGET_SCALE``), and under the coverage tracer by ``TRACED`` more.  With arguments (``python -m tests.parallel tests/unit -k clock``) it is one plain pytest run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests import coverage_plan
from tests.support import budget

ROOT = Path(__file__).resolve().parent.parent
COVERAGE_FILE = ROOT / "var" / ".coverage"
PLAN_SECONDS = ROOT / "var" / "coverage-plan-seconds.json"
#: how much longer a measured test takes under Python 3.11's coverage tracer (line and branch; the
#: unit and in-process end-to-end files took 1.4 to 1.5 times their unmeasured seconds): the budget
#: grows by as much when the run is measured, so that it judges the test, not the tracer
TRACED = 1.5


def workers() -> str:
    value = os.environ.get("ARBITER_TEST_WORKERS", "4")
    if not value.isdigit() or int(value) < 1:
        sys.exit(
            f"ARBITER_TEST_WORKERS must be a whole number of workers, at least 1 (got {value!r})"
        )
    return value


def coverage_mode() -> str:
    """``on`` (the plan's files measured), ``off``, or ``plan`` (every file, then the plan made)."""
    value = os.environ.get("ARBITER_COVERAGE", "on").lower()
    if value not in {"on", "off", "plan"}:
        sys.exit(f"ARBITER_COVERAGE must be on, off or plan (got {value!r})")
    return value


def pytest(*args: str, env: dict[str, str]) -> int:
    command = [sys.executable, "-m", "pytest", *args]
    print("$ " + " ".join(command[1:]), flush=True)
    return subprocess.call(command, cwd=ROOT, env=env)


def report_coverage(env: dict[str, str]) -> int:
    """Combine, write the HTML report, print the total; non-zero below ``fail_under``."""
    coverage = [sys.executable, "-m", "coverage"]
    cov_env = {**env, "COVERAGE_FILE": str(COVERAGE_FILE)}
    subprocess.call([*coverage, "html", "-q"], cwd=ROOT, env=cov_env)
    total = subprocess.run(
        [*coverage, "report", "--format=total"], cwd=ROOT, env=cov_env,
        capture_output=True, text=True,
    )  # fmt: skip
    lines = total.stdout.strip().splitlines() or ["?"]  # the total, then the floor's verdict
    print(
        f"\ncoverage of service/, faq/ and web/ (line and branch): {lines[0]} % "
        f"(per file: var/coverage/html/index.html)"
    )
    for line in [*lines[1:], *total.stderr.strip().splitlines()]:
        print(line)
    return total.returncode


def rewrite_assertions(root: Path = ROOT) -> None:
    """Collect every test file once, two processes at a time, with bytecode written: pytest keeps
    each module's rewritten assertions in ``__pycache__`` (and reads them back even where
    ``PYTHONDONTWRITEBYTECODE`` is set), so the runs' own collections skip the rewriting.  A
    collection error is left to the runs below to report."""
    files = sorted(str(f.relative_to(root)) for f in (root / "tests").rglob("test_*.py"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    halves = [files[0::2], files[1::2]]
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                *half,
            ],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for half in halves
        if half
    ]
    for run in runs:
        run.wait()


def main(argv: list[str]) -> int:
    if argv:
        return subprocess.call([sys.executable, "-m", "pytest", *argv])
    started = time.monotonic()
    count = workers()  # a wrong setting stops the run before any work
    mode = coverage_mode()
    measured = mode != "off"
    subprocess.call(
        [sys.executable, "-m", "compileall", "-q", "service", "faq", "web", "tests", "bench"],
        cwd=ROOT, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    rewrite_assertions()
    env = {**os.environ, "ARBITER_TEST_BUDGET": os.environ.get("ARBITER_TEST_BUDGET", "on")}
    if "ARBITER_TEST_BUDGET_SCALE" not in env:
        reference = budget.machine_reference()
        machine = max(1.0, reference / budget.REFERENCE_SECONDS)
        env["ARBITER_TEST_BUDGET_SCALE"] = f"{machine * (TRACED if measured else 1.0):.2f}"
        print(
            f"machine reference {reference:.2f} s (the budget's machine: "
            f"{budget.REFERENCE_SECONDS:.2f} s): the budget scaled by {machine:.2f}"
            + (f", and by {TRACED} under the coverage tracer" if measured else ""),
            flush=True,
        )
    cov: list[str] = []
    if measured:
        COVERAGE_FILE.parent.mkdir(exist_ok=True)
        for stale in COVERAGE_FILE.parent.glob(".coverage*"):
            stale.unlink()
        env["ARBITER_COVERAGE_FILE"] = str(COVERAGE_FILE)
        cov = ["--cov", "--cov-report=", "--cov-fail-under=0"]  # the floor: on the whole run
    if mode == "plan":  # every file measured, each test's arcs apart, each test's seconds kept
        PLAN_SECONDS.unlink(missing_ok=True)
        env.update(ARBITER_COVERAGE_PLAN="off", ARBITER_TEST_SECONDS=str(PLAN_SECONDS))
        env["ARBITER_TEST_BUDGET"] = os.environ.get("ARBITER_TEST_BUDGET", "off")
        cov.append("--cov-context=test")
    codes = {
        "the tests on several workers": pytest(
            "-n", count, "--dist", "loadfile", "--no-loadscope-reorder", "-rR",
            "-m", "not alone", "--durations=25", *cov, "tests", env=env,
        ),
        "the tests that run alone": pytest(
            "-m", "alone", *cov, *(["--cov-append"] if cov else []), "tests", env=env,
        ),
    }  # fmt: skip
    if cov:
        codes["the coverage floor"] = report_coverage(env)
    if mode == "plan":
        codes["the coverage plan"] = coverage_plan.main([str(COVERAGE_FILE), str(PLAN_SECONDS)])
    failed = [name for name, code in codes.items() if code != 0]
    minutes = (time.monotonic() - started) / 60
    if failed:
        print(f"\nFAILED: {', '.join(failed)} ({minutes:.1f} min)")
        return 1
    print(f"\nevery test passed ({minutes:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
