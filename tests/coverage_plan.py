"""Which tests ``make test`` measures (issue 48): the fewest tracer seconds that still reach every
line and branch the whole suite reaches.

Python 3.11's coverage tracer slows every line a measured test runs -- Flask's, whoosh's and
marshmallow's as much as the product's -- two to four times.  Most tests reach code that other,
cheaper tests reach too.  This reads a run measured with one coverage context per test (``make
coverage-plan``: ``--cov-context=test``, every test measured), takes each test's arcs (line pairs:
its lines and branches, its fixtures' included) and chooses tests by a greedy weighted set cover
-- each time the test with the most arcs not yet reached per second it took in that run -- until
every arc the run reached is reached.  Code run outside any test (imports at collection, and every
module of the product, imported at the start of a measured run: ``tests/support/coverage_pause``)
counts as reached.  The tests left over are written to ``tests/coverage_plan.json``:
``tests/conftest.py`` runs them with no tracer, which changes no assertion, and ``make test``
still prints the total the whole suite reaches (the floor in ``pyproject.toml`` fails a run that
measures less).  A test not in the plan is measured: a new or renamed test costs tracer seconds
until the plan is made again.

    python -m tests.coverage_plan var/.coverage var/coverage-plan-seconds.json
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "tests" / "coverage_plan.json"
#: a test whose seconds the run did not record costs this many; none costs less than the least
UNKNOWN_SECONDS = 1.0
LEAST_SECONDS = 0.01


def unmeasured() -> frozenset[str]:
    """The tests (node ids) the plan runs with no tracer (none with ``ARBITER_COVERAGE_PLAN=off``,
    as in the run that makes the plan: it measures every test)."""
    if os.environ.get("ARBITER_COVERAGE_PLAN", "on") == "off" or not PLAN.is_file():
        return frozenset()
    return frozenset(json.loads(PLAN.read_text())["unmeasured"])


def test_of(context: str) -> str:
    """``tests/e2e/test_x.py::test_y[a]|run`` -> ``tests/e2e/test_x.py::test_y[a]`` (setup, call
    and teardown are one test's); ``""`` (outside any test) stays ``""``."""
    return context.rsplit("|", 1)[0] if "::" in context else context


def arcs_by_test(data_file: Path) -> dict[str, set[int]]:
    """Each test's arcs, as integers (source file, from, to), from a coverage data file with test
    contexts; ``""``: the arcs reached outside any test."""
    db = sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)
    try:
        tests = {cid: test_of(name) for cid, name in db.execute("SELECT id, context FROM context")}
        found: dict[str, set[int]] = defaultdict(set)
        rows = db.execute("SELECT file_id, context_id, fromno, tono FROM arc")
        for file_id, context_id, start, end in rows:
            found[tests[context_id]].add((file_id << 42) | ((start + 2**20) << 21) | (end + 2**20))
    finally:
        db.close()
    if not found:
        sys.exit(f"{data_file} holds no arcs: measure with branch coverage and --cov-context=test")
    return found


def plan(arcs: dict[str, set[int]], cost: dict[str, float]) -> tuple[list[str], list[str]]:
    """(measured, left unmeasured): a greedy weighted set cover of every arc in ``arcs``."""
    reached = set(arcs.get("", set()))
    wanted = set().union(*arcs.values())
    left = {t: a - reached for t, a in arcs.items() if t}
    chosen: list[str] = []
    while reached != wanted:
        best = max(left, key=lambda t: (len(left[t]) / cost[t], t))
        new = left.pop(best)
        chosen.append(best)
        reached |= new
        for t in left:
            left[t] -= new
    return sorted(chosen), sorted(left)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.exit(
            "usage: python -m tests.coverage_plan DATA_FILE SECONDS_FILE (the data and each "
            "test's seconds of a run with --cov-context=test and ARBITER_TEST_SECONDS)"
        )
    data_file, seconds_file = Path(argv[0]), Path(argv[1])
    for path in (data_file, seconds_file):
        if not path.is_file():
            sys.exit(f"no such file: {path}")
    arcs = arcs_by_test(data_file)
    seconds = {str(k): float(v) for k, v in json.loads(seconds_file.read_text()).items()}
    cost = {t: max(seconds.get(t, UNKNOWN_SECONDS), LEAST_SECONDS) for t in arcs if t}
    chosen, rest = plan(arcs, cost)
    PLAN.write_text(
        json.dumps(
            {
                "about": "tests run with no tracer: every line and branch they reach, a measured "
                "test reaches too (tests/coverage_plan.py; make coverage-plan)",
                "unmeasured": rest,
            },
            indent=0,
        )
        + "\n"
    )
    print(
        f"{len(chosen)} tests measured ({sum(cost[t] for t in chosen):.0f} s in the plan's run), "
        f"{len(rest)} run with no tracer ({sum(cost[t] for t in rest):.0f} s): "
        f"{PLAN.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
