"""`arbiter clubs`, `arbiter ladders` and `arbiter campaigns`, in-process with click's runner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from service.bootstrap import build_services
from service.cli import main
from tests.conftest import make_config


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


def test_a_club_ladder_and_campaign_from_the_command_line(tmp_path: Path) -> None:
    for name in ("ann", "bob", "cat"):
        ok("users", "add", name, "--password", "correct horse")
    ok("clubs", "create", "Hex Club", "--founder", "ann")
    for name in ("bob", "cat"):
        ok("clubs", "add-member", "Hex Club", name, "--as", "ann")
    denied = run("clubs", "grant", "Hex Club", "cat", "arbiter", "--as", "bob")
    assert denied.exit_code == 2 and "only a club admin" in denied.output
    ok("clubs", "grant", "Hex Club", "cat", "arbiter", "--as", "ann")
    members = json.loads(ok("clubs", "show", "Hex Club"))["members"]
    assert {m["username"]: m["roles"] for m in members}["cat"] == ["arbiter", "player"]

    bad = run(
        "ladders",
        "create",
        "Hex Club",
        "L",
        "--system",
        "skirmish",
        "--set",
        "takeback=maybe",
        "--as",
        "ann",
    )
    assert bad.exit_code == 2 and "settings.takeback" in bad.output
    out = ok(
        "ladders", "create", "Hex Club", "Mill ladder", "--system", "skirmish",
        "--scenario", "meeting", "--set", "challenge_range=2", "--set", "takeback=casual", "--as", "ann",
    )  # fmt: skip
    lid = re.search(r"\(([0-9a-f-]{36})\)", out).group(1)  # type: ignore[union-attr]
    assert "Mill ladder" in ok("ladders", "list", "Hex Club")
    for name in ("ann", "bob", "cat"):
        ok("ladders", "join", lid, "--as", name)
    ranks = [
        r["username"] for r in json.loads(ok("ladders", "standings", lid, "--json"))["standings"]
    ]
    out = ok(
        "ladders",
        "challenge",
        lid,
        ranks[1],
        "--side",
        "red",
        "--options",
        '{"turns": 1}',
        "--as",
        ranks[2],
    )
    challenge = out.split()[1]
    out = ok("ladders", "answer", challenge, "accept", "--as", ranks[1])
    assert out.startswith("accepted: game ")

    out = ok(
        "ladders",
        "report",
        lid,
        "--side",
        "red=bob",
        "--side",
        "blue=cat",
        "--winner",
        "blue",
        "--as",
        "bob",
    )
    report = out.split()[1].rstrip(":")
    ok("ladders", "confirm", report, "--as", "cat")
    table = ok("ladders", "standings", lid)
    assert table.splitlines()[0].split()[:2] == ["1", "cat"] and "1-0-0" in table
    out = ok("ladders", "rebuild")
    assert "rebuilt 1 ladder(s) from 1 result(s)" in out and "replaying the log" in out
    assert ok("ladders", "standings", lid) == table

    spec = {
        "name": "Autumn",
        "sides": ["red", "blue"],
        "steps": [
            {"title": "At the club"},
            {"title": "Mill", "system": "skirmish", "scenario": "meeting"},
        ],
        "scoring": {"victory": 2, "draw": 1},
    }
    path = tmp_path / "campaign.json"
    path.write_text(json.dumps(spec))
    out = ok("campaigns", "create", "Hex Club", str(path), "--as", "ann")
    cid = re.search(r"\(([0-9a-f-]{36})\)", out).group(1)  # type: ignore[union-attr]
    out = ok(
        "campaigns",
        "result",
        cid,
        "0",
        "--side",
        "red=bob",
        "--side",
        "blue=cat",
        "--level",
        "draw",
        "--as",
        "ann",
    )
    assert '{"red": 1, "blue": 1}' in out
    ok("campaigns", "note", cid, "0", "Both sides keep their losses.", "--as", "ann")
    shown = json.loads(ok("campaigns", "show", cid))
    assert (
        shown["steps"][0]["notes"] == ["Both sides keep their losses."] and shown["next_step"] == 1
    )
    svc = build_services(make_config(tmp_path, secret_key="k"))
    assert svc.campaigns.get(cid).standings()["sides"] == {"red": 1, "blue": 1}
    svc.close()


def _club_with_ladder() -> str:
    for name in ("ann", "bob", "1e3"):
        ok("users", "add", name, "--password", "correct horse")
    ok("clubs", "create", "Hex Club", "--founder", "ann")
    for name in ("bob", "1e3"):
        ok("clubs", "add-member", "Hex Club", name, "--as", "ann")
    out = ok(
        "ladders", "create", "Hex Club", "Mill ladder", "--system", "skirmish",
        "--scenario", "meeting", "--as", "ann",
    )  # fmt: skip
    return re.search(r"\(([0-9a-f-]{36})\)", out).group(1)  # type: ignore[union-attr]


def test_bad_command_line_input_is_refused_with_its_reason(tmp_path: Path) -> None:
    lid = _club_with_ladder()
    bad = run("ladders", "settings", lid, "--set", "takeback", "--as", "ann")
    assert bad.exit_code == 2 and "'takeback' is not key=value" in bad.output
    assert "--set" in bad.output
    bad = run("ladders", "report", lid, "--side", "red", "--winner", "red", "--as", "bob")
    assert bad.exit_code == 2 and "'red' is not key=value" in bad.output
    assert "--side" in bad.output
    bad = run("ladders", "challenge", lid, "ann", "--options", "{turns", "--as", "bob")
    assert bad.exit_code == 2 and "--options" in bad.output
    bad = run("ladders", "join", "no-such-ladder", "--as", "bob")
    assert bad.exit_code == 2 and "no ladder no-such-ladder" in bad.output
    bad = run("ladders", "join", lid, "--as", "nobody")
    assert bad.exit_code == 2 and "nobody" in bad.output
    bad = run("ladders", "create", "Hex Club", "L", "--system", "chess", "--as", "ann")
    assert bad.exit_code == 2 and "no rules system 'chess'" in bad.output
    path = tmp_path / "campaign.json"
    path.write_text(json.dumps({"name": "Autumn", "sides": ["red", "blue"]}))
    bad = run("campaigns", "create", "Hex Club", str(path), "--as", "ann")
    assert bad.exit_code == 2 and "not a campaign file" in bad.output
    path.write_text("{not json")
    bad = run("campaigns", "create", "Hex Club", str(path), "--as", "ann")
    assert bad.exit_code == 2 and "not a campaign file" in bad.output
    bad = run("campaigns", "show", "no-such-campaign")
    assert bad.exit_code == 2 and "no campaign no-such-campaign" in bad.output


def test_side_pairs_name_users_as_typed_even_when_the_name_reads_as_a_number() -> None:
    """``--side red=1e3`` binds the user called ``1e3`` (not 1000.0)."""
    lid = _club_with_ladder()
    for name in ("bob", "1e3"):
        ok("ladders", "join", lid, "--as", name)
    out = ok(
        "ladders", "report", lid, "--side", "red=1e3", "--side", "blue=bob", "--winner", "red",
        "--as", "bob",
    )  # fmt: skip
    ok("ladders", "confirm", out.split()[1].rstrip(":"), "--as", "1e3")
    assert ok("ladders", "standings", lid).splitlines()[0].split()[:2] == ["1", "1e3"]
