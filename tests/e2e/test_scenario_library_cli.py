"""``arbiter scenarios import|list|export``: a club's scenario library from files (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from service.domain.scenarios import content_hash
from tests.conftest import make_config

MERIDA = (
    Path(__file__).parents[2] / "service" / "rules" / "merida" / "scenarios" / "merida-1938.json"
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARBITER_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
    monkeypatch.setenv("ARBITER_SECRET_KEY", "k")
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    svc = build_services(make_config(tmp_path, secret_key="k"))
    ann = svc.users.register("ann", "correct horse")
    svc.clubs.create("Merida Club", ann)
    svc.close()
    return tmp_path


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_import_publish_list_and_export(env: Path) -> None:
    done = run("scenarios", "import", str(MERIDA), "--club", "Merida Club", "--publish")
    assert done.exit_code == 0, done.output
    assert "0 error(s)" in done.output and "published version 1 sha256:" in done.output
    listed = run("scenarios", "list", "--club", "Merida Club", "--json")
    rows = json.loads(listed.output)
    assert [(r["title"], r["latest"], r["sharing"]) for r in rows] == [
        ("Closing the Merida Pocket - Extremadura, 1938", 1, "private")
    ]
    out = env / "exported.json"
    assert run("scenarios", "export", rows[0]["id"], "-o", str(out)).exit_code == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert content_hash(exported) == rows[0]["hash"]  # the file is the version, byte for fact
    assert exported["units"] == json.loads(MERIDA.read_text(encoding="utf-8"))["units"]
    # the exported file passes the same check, and re-imports to the same hash
    assert run("scenarios", "check", str(out)).exit_code == 0
    again = run("scenarios", "import", str(out), "--club", "Merida Club", "--publish")
    assert rows[0]["hash"] in again.output
    counters = run("scenarios", "export", rows[0]["id"], "--csv")
    assert counters.output.splitlines()[0] == "id,side,type,name,steps,hex,notes,strength"
    assert "n-19-div,nationalist,infantry,19 Div,,O10,,4" in counters.output


def test_a_file_with_errors_is_imported_as_a_draft_never_published(env: Path) -> None:
    raw = json.loads(MERIDA.read_text(encoding="utf-8"))
    raw["map"]["terrain"] = {"J7": "forest", "Z99": "clear"}
    bad = env / "bad.json"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    refused = run("scenarios", "import", str(bad), "--club", "Merida Club", "--publish")
    assert refused.exit_code != 0
    assert "hex J7: unknown terrain 'forest'" in refused.output
    assert "hex Z99: unknown hex Z99" in refused.output
    listed = json.loads(run("scenarios", "list", "--club", "Merida Club", "--json").output)
    assert listed == []  # nothing published, nothing kept
    drafted = run("scenarios", "import", str(bad), "--club", "Merida Club")
    assert drafted.exit_code == 0 and "2 error(s)" in drafted.output
    listed = json.loads(run("scenarios", "list", "--club", "Merida Club", "--json").output)
    assert [r["latest"] for r in listed] == [0]
