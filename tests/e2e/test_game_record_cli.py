"""``arbiter games export GAME --record FILE`` and ``arbiter games import FILE`` through the real
command line: a finished game's record moves to another server (another store, another key),
where it is shown, time-travelled, audited and its dice verified; a tampered record, one of an
unknown rules version or a malformed one exits non-zero naming the line, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from service.bootstrap import build_services
from service.cli import main
from tests.conftest import make_config
from tests.support.records import play_at_random


def run(env: dict[str, str], *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env, input=input, catch_exceptions=False)


def server(folder: Path, secret: str) -> dict[str, str]:
    return {
        "ARBITER_VAR": str(folder / "var"),
        "ARBITER_SECRET_KEY": secret,
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
        "ARBITER_STORE": "sqlite",
    }


def test_a_record_moves_a_finished_game_to_another_server(tmp_path: Path) -> None:
    svc = build_services(make_config(tmp_path / "first", secret_key="first-secret"))
    try:
        gid = play_at_random(svc, "bizkaya", 3, commands=25)
        version = svc.games.get(gid).version
    finally:
        svc.close()
    first = server(tmp_path / "first", "first-secret")
    out = tmp_path / "game.record"
    exported = run(first, "games", "export", gid, "--record", str(out))
    assert exported.exit_code == 0, exported.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith('[Format "arbiter-game-record 1"]\n') and f'[Game "{gid}"]' in text
    assert run(first, "games", "export", gid, "--record", "-").output == text

    second = server(tmp_path / "second", "second-secret")
    imported = run(second, "games", "import", str(out))
    assert imported.exit_code == 0, imported.output
    assert f"imported game {gid}" in imported.output
    assert "audit ok, dice verified" in imported.output
    audit = run(second, "audit", "verify", gid)
    assert audit.exit_code == 0 and json.loads(audit.output)["ok"], audit.output
    dice = run(second, "dice", "verify", gid)
    assert dice.exit_code == 0 and json.loads(dice.output)["ok"]
    shown = run(second, "games", "show", gid, "--version", "3")
    assert shown.exit_code == 0 and json.loads(shown.output)["version"] == 3
    final = json.loads(run(second, "games", "show", gid).output)
    assert final["version"] == version and final["status"] == "ended"
    assert set(final["sides"].values()) == {"bizkaya-player-0", "bizkaya-player-1"}
    again = run(second, "games", "import", str(out))
    assert again.exit_code != 0 and "already on this server" in again.output


def test_a_tampered_or_unknown_record_is_refused_naming_the_line(tmp_path: Path) -> None:
    svc = build_services(make_config(tmp_path / "first", secret_key="first-secret"))
    try:
        gid = play_at_random(svc, "bizkaya", 4, commands=15)
        text = "".join(svc.records.lines(gid, full=True))
    finally:
        svc.close()
    lines = text.split("\n")
    third = server(tmp_path / "third", "third-secret")

    def refused(name: str, changed: list[str]) -> str:
        path = tmp_path / name
        path.write_text("\n".join(changed), encoding="utf-8")
        result = run(third, "games", "import", str(path))
        assert result.exit_code != 0, result.output
        return result.output

    # a die's value changed by one byte
    at = next(i for i, line in enumerate(lines) if '"kind": "Game.DiceRolled"' in line)
    value = lines[at].index('"value": ') + len('"value": ')
    die = lines[at][value]
    tampered = lines[:at] + [
        lines[at][:value] + ("1" if die != "1" else "2") + lines[at][value + 1 :]
    ]
    output = refused("die.record", tampered + lines[at + 1 :])
    assert f"line {at + 1}: event " in output and "content changed" in output
    # an unknown rules version
    at = next(i for i, line in enumerate(lines) if line.startswith("[RulesVersion "))
    output = refused("rules.record", lines[:at] + ['[RulesVersion "2"]'] + lines[at + 1 :])
    assert f"line {at + 1}: unknown rules version" in output and "version 2" in output
    # a malformed line
    output = refused("garbage.record", lines[:5] + ["garbage"] + lines[5:])
    assert "line 6: neither a header" in output
    # nothing was written
    missing = run(third, "games", "show", gid)
    assert missing.exit_code != 0 and "no game" in missing.output
    # the record as it was, from standard input, with the result as JSON
    imported = run(third, "games", "import", "-", "--json", input=text)
    assert imported.exit_code == 0, imported.output
    found = json.loads(imported.output)
    assert found["game"] == gid and found["audit"]["ok"] and found["commands_decided_again"] > 0
