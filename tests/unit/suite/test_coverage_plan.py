"""The coverage plan (issue 48): the tests run with no tracer are those whose every arc a measured
test reaches, chosen from a real coverage data file with test contexts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coverage import CoverageData

from tests import coverage_plan
from tests.coverage_plan import arcs_by_test, plan

ROOT = Path(__file__).resolve().parents[3]


def _data(path: Path, by_context: dict[str, dict[str, set[tuple[int, int]]]]) -> Path:
    data = CoverageData(basename=str(path))
    for context, arcs in by_context.items():
        data.set_context(context)
        data.add_arcs({f"/src/{name}": set(pairs) for name, pairs in arcs.items()})
    data.write()
    return path


def test_each_tests_arcs_are_read_from_its_setup_call_and_teardown(tmp_path: Path) -> None:
    path = _data(
        tmp_path / ".coverage",
        {
            "": {"m.py": {(-1, 1)}},
            "tests/a_test.py::test_one[x|y]|setup": {"n.py": {(1, 2)}},
            "tests/a_test.py::test_one[x|y]|run": {"m.py": {(1, 2)}},
            "tests/a_test.py::test_two|run": {"m.py": {(1, 2), (2, -1)}},
        },
    )
    arcs = arcs_by_test(path)
    assert set(arcs) == {"", "tests/a_test.py::test_one[x|y]", "tests/a_test.py::test_two"}
    assert len(arcs[""]) == 1
    assert len(arcs["tests/a_test.py::test_one[x|y]"]) == 2  # m.py 1->2, n.py 1->2: apart
    assert len(arcs["tests/a_test.py::test_two"]) == 2
    assert arcs["tests/a_test.py::test_one[x|y]"] & arcs["tests/a_test.py::test_two"]


def test_a_test_whose_arcs_others_reach_is_left_unmeasured() -> None:
    arcs = {
        "": {1},
        "cheap.py": {1, 2, 3},
        "dear.py": {2, 3},  # all reached by cheap.py
        "unique.py": {3, 4},  # 4 only here: measured however dear
    }
    cost = {"cheap.py": 1.0, "dear.py": 50.0, "unique.py": 100.0}
    measured, unmeasured = plan(arcs, cost)
    assert measured == ["cheap.py", "unique.py"]
    assert unmeasured == ["dear.py"]


def test_the_cover_prefers_the_arcs_that_cost_fewer_seconds() -> None:
    arcs = {"big.py": {1, 2, 3, 4}, "left.py": {1, 2}, "right.py": {3, 4}}
    assert plan(arcs, {"big.py": 10.0, "left.py": 1.0, "right.py": 1.0}) == (
        ["left.py", "right.py"],
        ["big.py"],
    )
    assert plan(arcs, {"big.py": 1.0, "left.py": 1.0, "right.py": 1.0}) == (
        ["big.py"],
        ["left.py", "right.py"],
    )


def test_the_run_that_makes_the_plan_measures_every_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARBITER_COVERAGE_PLAN", "off")
    assert coverage_plan.unmeasured() == frozenset()
    monkeypatch.delenv("ARBITER_COVERAGE_PLAN")
    assert coverage_plan.unmeasured() == frozenset(
        json.loads(coverage_plan.PLAN.read_text())["unmeasured"]
    )


def test_every_test_the_plan_names_is_in_a_file_of_the_suite() -> None:
    """A file renamed or removed but left in the plan: its tests are measured under the new name
    (make the plan again: make coverage-plan)."""
    named = json.loads(coverage_plan.PLAN.read_text())["unmeasured"]
    missing = sorted({n.split("::")[0] for n in named if not (ROOT / n.split("::")[0]).is_file()})
    assert not missing, f"tests/coverage_plan.json names tests of files that are gone: {missing}"


def test_the_plan_is_made_from_a_context_run_and_its_times(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="usage"):
        coverage_plan.main([str(tmp_path / "only-one")])
    with pytest.raises(SystemExit, match="no such file"):
        coverage_plan.main([str(tmp_path / "none"), str(tmp_path / "times.json")])
    empty = _data(tmp_path / ".coverage", {"tests/a_test.py::t|run": {"m.py": set()}})
    (tmp_path / "times.json").write_text("{}")
    with pytest.raises(SystemExit, match="holds no arcs"):
        coverage_plan.main([str(empty), str(tmp_path / "times.json")])
