"""``arbiter rules``: the --json contract through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from faq.cli import rules
from faq.corpus import load_corpus


@pytest.fixture()
def runner(index_dir: Path, kb: object) -> CliRunner:
    # the shared session index lives in <tmp>/index; ARBITER_VAR is its parent
    return CliRunner(env={"ARBITER_VAR": str(index_dir.parent)})


def test_search_json_contract(runner: CliRunner) -> None:
    result = runner.invoke(rules, ["search", "retreat through enemy ZOC", "--limit", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, list) and len(data) == 3
    for item in data:
        assert {"id", "kind", "document", "heading", "rule_refs", "snippet", "score"} <= set(item)
        assert item["kind"] in {"ruling", "rule", "club-ruling", "conflict"}
        if item["kind"] == "ruling":
            assert {"question", "answers"} <= set(item)
            assert all({"text", "authority", "date"} <= set(a) for a in item["answers"])


def test_search_document_filter(runner: CliRunner) -> None:
    result = runner.invoke(rules, ["search", "morale", "--document", "barcelona", "--json"])
    assert {r["document"] for r in json.loads(result.output)} == {"barcelona"}


def test_search_error_is_reported_with_field(runner: CliRunner) -> None:
    result = runner.invoke(rules, ["search", "???", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stderr)["error"]["field"] == "q"
    result = runner.invoke(rules, ["search", "retreat", "--limit", "0", "--json"])
    assert json.loads(result.stderr)["error"]["field"] == "limit"


def test_stats_json(runner: CliRunner) -> None:
    data = json.loads(runner.invoke(rules, ["stats", "--json"]).output)
    assert data["fwtbt-faq"]["questions"] == 325 and data["merida"]["numbered"] == 13


def test_index_rebuilds(tmp_path: Path) -> None:
    result = CliRunner(env={"ARBITER_VAR": str(tmp_path)}).invoke(rules, ["index"])
    assert result.exit_code == 0, result.output
    # 325 FAQ rulings + the four rulebooks' sections + the games' conflicts
    assert f"indexed {len(load_corpus().entries)} entries" in result.output
    assert (tmp_path / "index" / "CURRENT").exists()
