"""`arbiter disputes open --reading`, `disputes what-if` and `disputes resolve --reading
--what-if` (issue 28) on a real SQLite file; a bad reading is a message and a non-zero exit, and
nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from tests.conftest import make_config
from tests.e2e.test_dispute_what_if import SIDES, duel_state
from tests.support.boards import start_on_board


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {"ARBITER_VAR": str(tmp_path / "var"), "ARBITER_SECRET_KEY": "k"}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    monkeypatch.delenv("ARBITER_PLUGINS", raising=False)
    return values


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def fought(tmp_path: Path) -> tuple[str, int]:
    svc = build_services(make_config(tmp_path, secret_key="k"))
    for name in SIDES.values():
        svc.users.register(name, "correct horse battery")
    judge = svc.users.register("judge", "correct horse battery")
    judge.grant("arbiter")
    svc.store.save(judge)
    gid = start_on_board(svc, duel_state(), SIDES, title="Strategic movers at E5")
    done = svc.games.execute(
        gid,
        svc.users.by_name("franco"),
        {"type": "attack", "attackers": ["a"], "hex": "E5"},
        expected_version=svc.games.get(gid).version,
    )
    seq = next(e["seq"] for e in done.events if e["type"] == "CombatResolved")
    svc.close()
    return gid, seq


def version(tmp_path: Path, gid: str) -> int:
    svc = build_services(make_config(tmp_path, secret_key="k"))
    try:
        return svc.games.get(gid).version
    finally:
        svc.close()


def test_a_claimed_reading_weighed_and_adopted_from_the_command_line(
    env: dict[str, str], tmp_path: Path
) -> None:
    gid, seq = fought(tmp_path)
    opened = run("disputes", "open", gid, str(seq), "--as", "rojo", "--claim", "rule 5",
                 "--reading", "strategic_modifier=-2")  # fmt: skip
    assert opened.exit_code == 0, opened.output
    dispute = opened.output.split()[-1]
    shown = run("disputes", "what-if", gid, dispute, "--as", "judge")
    assert shown.exit_code == 0, shown.output
    what_if = json.loads(shown.output)
    combat = next(e for e in what_if["alternative"]["events"] if e["kind"] == "CombatResolved")
    assert combat["data"]["modifiers"][0]["value"] == -2 and what_if["viewer"] == "arbiter"
    resolved = run("disputes", "resolve", gid, dispute, "--as", "judge", "--verdict",
                   "overturned", "--remedy", "rebase", "--cite", "merida:5",
                   "--reading", "strategic_modifier=-2", "--what-if", what_if["digest"])  # fmt: skip
    assert resolved.exit_code == 0, resolved.output
    assert json.loads(resolved.output)["verdict"] == "overturned"


@pytest.mark.parametrize(
    ("reading", "says"),
    [
        ("strategic_modifier=5", "reading.strategic_modifier: one of +2, -2"),
        ("no_such=1", "reading.no_such: not an option of this game"),
        ("strategic_modifier", "is not OPTION=VALUE"),
    ],
)
def test_a_bad_reading_is_a_message_and_nothing_is_written(
    env: dict[str, str], tmp_path: Path, reading: str, says: str
) -> None:
    gid, seq = fought(tmp_path)
    before = version(tmp_path, gid)
    result = CliRunner().invoke(
        main,
        [
            "disputes",
            "open",
            gid,
            str(seq),
            "--as",
            "rojo",
            "--claim",
            "x",
            "--reading",
            reading,
        ],  # fmt: skip
    )
    assert result.exit_code != 0
    assert says in result.output, result.output
    assert version(tmp_path, gid) == before
