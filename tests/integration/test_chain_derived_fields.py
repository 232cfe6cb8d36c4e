"""Every field an exported line shows is covered by its hash or re-derived from covered data and
checked: editing ``retracted``, ``text``, ``user``, ``type``, ``side`` or ``redacted`` in an NDJSON
export (the API's ``events.ndjson``, served from a real SQLite file) fails ``arbiter audit verify
--file`` at that event."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import main
from tests.support.api import ApiHelper

SIDES = {"red": "alice", "blue": "bob"}
Line = dict[str, Any]


def played_with_a_takeback(api: ApiHelper) -> str:
    gid = str(api.create_game("skirmish", "meeting", SIDES)["id"])
    move = {"type": "move", "unit": "r2", "path": ["D3", "D4"]}
    assert api.command(gid, "alice", move).status_code == 201
    c = api.client
    assert c.post(f"/api/games/{gid}/takebacks", json={}, headers=api.user("alice")).status_code
    answer = {"accept": True}
    r = c.post(f"/api/games/{gid}/takebacks/answer", json=answer, headers=api.user("bob"))
    assert r.status_code == 200, r.get_json()
    assert api.command(gid, "alice", dict(move, path=["D3"])).status_code == 201
    return gid


def verify(path: Path, lines: list[Line]) -> tuple[int, Any]:
    path.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    args = ["audit", "verify", "--file", str(path), "--secret", "test-secret"]
    result = CliRunner().invoke(main, args, env={"ARBITER_PLUGINS": "tests.fixtures.skirmish"})
    return result.exit_code, json.loads(result.output.split("\nFAILED")[0])


def _first(lines: list[Line], test: Callable[[Line], bool]) -> int:
    return next(i for i, line in enumerate(lines) if "seq" in line and test(line))


def retracted(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e.get("retracted") is False and e["type"] == "UnitMoved")
    lines[at]["retracted"] = True
    return at


def unretracted(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e.get("retracted") is True)
    lines[at]["retracted"] = False
    return at


def text(lines: list[Line]) -> int:
    at = _first(lines, lambda e: "text" in e)
    lines[at]["text"] = "r2 moved D3 to H8 and won the game"
    return at


def user(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e.get("user") == "alice")
    lines[at]["user"] = "bob"
    return at


def type_(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e["type"] == "UnitMoved")
    lines[at]["type"] = "UnitEliminated"
    return at


def side(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e.get("side") == "red")
    lines[at]["side"] = "blue"
    return at


def redacted(lines: list[Line]) -> int:
    at = _first(lines, lambda e: e["kind"] == "Game.Recorded")
    lines[at]["redacted"] = True
    return at


@pytest.mark.parametrize(
    "edit", [retracted, unretracted, text, user, type_, side, redacted], ids=lambda f: f.__name__
)
def test_an_edited_derived_field_fails_the_export(
    api: ApiHelper, tmp_path: Path, edit: Callable[[list[Line]], int]
) -> None:
    gid = played_with_a_takeback(api)
    r = api.client.get(f"/api/games/{gid}/events.ndjson", headers=api.user("alice"))
    lines = [json.loads(line) for line in r.get_data(as_text=True).splitlines()]
    assert any(line.get("text") for line in lines) and "head" in lines[-1]
    code, report = verify(tmp_path / "good.ndjson", lines)
    assert code == 0 and report["ok"], report
    assert report["derived"]["text"] == "checked", report["derived"]
    at = edit(lines)
    code, report = verify(tmp_path / "edited.ndjson", lines)
    assert code == 1 and report["first_bad"]["seq"] == lines[at]["seq"], report
