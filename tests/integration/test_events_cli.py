"""`arbiter events`: a club event from the command line, as the API has it (issue 30)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from service.cli import main


@pytest.fixture(autouse=True)
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
    monkeypatch.setenv("ARBITER_SECRET_KEY", "k")
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def test_an_event_from_the_command_line() -> None:
    for name in ("ann", "bob", "cat", "dan", "eve"):
        ok("users", "add", name, "--password", "correct horse")
    ok("clubs", "create", "Hex Club", "--founder", "ann")
    for name in ("bob", "cat", "dan", "eve"):
        ok("clubs", "add-member", "Hex Club", name, "--as", "ann")
    made = ok(
        "events", "create", "Hex Club", "--name", "Autumn", "--format", "swiss", "--rounds", "2",
        "--system", "skirmish", "--scenario", "meeting", "--as", "ann",
    )  # fmt: skip
    eid = made.strip().rsplit("(", 1)[1].rstrip(")")
    denied = run("events", "create", "Hex Club", "--name", "X", "--format", "swiss",
                 "--system", "skirmish", "--scenario", "meeting", "--as", "bob")  # fmt: skip
    assert denied.exit_code != 0 and "admin" in denied.output
    assert "Autumn  swiss  open" in ok("events", "list", "Hex Club")
    ok("events", "join", eid, "--as", "bob")
    ok("events", "add", eid, "cat", "--as", "ann")
    ok("events", "add", eid, "dan", "--as", "ann")
    ok("events", "add", eid, "eve", "--as", "ann")
    ok("events", "remove", eid, "eve", "--as", "ann")
    assert "1 round(s) released" in ok("events", "start", eid, "--as", "ann")
    late = run("events", "join", eid, "--as", "eve")
    assert late.exit_code != 0 and "the event has started" in late.output
    shown = json.loads(ok("events", "show", eid))
    assert shown["status"] == "started" and shown["players"] == ["bob", "cat", "dan"]
    assert shown["rounds"][0]["bye"] == "dan"
    game = shown["rounds"][0]["games"][0]["game"]
    # the round is not over: refused, unless the admin gives the unfinished game's result
    refused = run("events", "next-round", eid, "--as", "ann")
    assert refused.exit_code != 0 and "unfinished" in refused.output
    early = run("events", "result", eid, game, "draw", "--kind", "adjudication", "--as", "ann")
    assert early.exit_code != 0 and "deadline" in early.output
    bad = run("events", "next-round", eid, "--result", f"{game}=green:forfeit", "--as", "ann")
    assert bad.exit_code != 0 and "no side 'green'" in bad.output
    assert json.loads(ok("events", "show", eid))["rounds"][0]["games"][0]["result"] is None
    # the admin forces the round with the unfinished game's result
    assert "round 2 released" in ok(
        "events", "next-round", eid, "--result", f"{game}=red:forfeit", "--as", "ann"
    )
    shown = json.loads(ok("events", "show", eid))
    assert shown["rounds"][0]["games"][0]["result"] == {"winner": "red", "source": "forfeit"}
    assert shown["rounds"][1]["bye"] != "dan"
    # two players cannot play three rounds without a rematch: the start is refused
    made = ok(
        "events", "create", "Hex Club", "--name", "Winter", "--format", "swiss", "--rounds", "3",
        "--system", "skirmish", "--scenario", "meeting", "--as", "ann",
    )  # fmt: skip
    other = made.strip().rsplit("(", 1)[1].rstrip(")")
    ok("events", "add", other, "bob", "--as", "ann")
    ok("events", "add", other, "cat", "--as", "ann")
    refused = run("events", "start", other, "--as", "ann")
    assert refused.exit_code != 0 and "rounds: at most 1" in refused.output
    assert json.loads(ok("events", "show", other))["status"] == "open"
