"""The `arbiter` command line, run in-process with click's runner against a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from tests.conftest import make_config


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "ARBITER_VAR": str(tmp_path / "var"),
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
        "ARBITER_SECRET_KEY": "k",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    return values


def run(*args: str, input: str | None = None) -> object:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def played_game(tmp_path: Path) -> str:
    svc = build_services(make_config(tmp_path, secret_key="k"))
    alice = svc.users.register("alice", "correct horse")
    svc.users.register("bob", "battery staple")
    game = svc.games.create(
        system="skirmish", scenario="meeting", sides={"red": "alice", "blue": "bob"}, creator=alice
    )
    moved = svc.games.execute(
        game.id,
        alice,
        {"type": "move", "unit": "r2", "path": ["D3", "D4", "D5", "D6"]},
        expected_version=1,
    )
    ended = svc.games.execute(
        game.id, alice, {"type": "end_phase"}, expected_version=moved.game.version
    )
    attack = (
        svc.games.actions(svc.games.get(game.id), alice, None)[1].of_type("attack")[0].command()
    )
    svc.games.execute(game.id, alice, attack, expected_version=ended.game.version)
    svc.close()
    return str(game.id)


def test_every_command_has_help() -> None:
    for args in (
        ["--help"],
        ["serve", "--help"],
        ["users", "add", "--help"],
        ["users", "set-password", "--help"],
        ["games", "list", "--help"],
        ["games", "show", "--help"],
        ["games", "export", "--help"],
        ["games", "import", "--help"],
        ["games", "replay", "--help"],
        ["dice", "verify", "--help"],
        ["scenarios", "check", "--help"],
    ):
        result = run(*args)
        assert result.exit_code == 0 and "Usage:" in result.output, args


def test_users_add_and_its_errors(env: dict[str, str]) -> None:
    result = run("users", "add", "alice", "--password", "correct horse")
    assert result.exit_code == 0 and "added alice" in result.output
    again = run("users", "add", "alice", "--password", "correct horse")
    assert again.exit_code != 0 and "already exists" in again.output
    short = run("users", "add", "bob", "--password", "short")
    assert short.exit_code != 0 and "password" in short.output
    prompted = run("users", "add", "carol", input="long password\nlong password\n")
    assert prompted.exit_code == 0 and "added carol" in prompted.output


def test_games_list_show_export_replay_and_dice_verify(env: dict[str, str], tmp_path: Path) -> None:
    game_id = played_game(tmp_path)
    listed = run("games", "list")
    assert game_id in listed.output and "red: alice" in listed.output
    assert json.loads(run("games", "list", "--json").output)[0]["id"] == game_id
    shown = json.loads(run("games", "show", game_id).output)
    assert (
        shown["version"] >= 8 and shown["state"]["units"]["r2"]["hex"] != "D2"
    )  # moved (and may have retreated)
    out = tmp_path / "export.ndjson"
    result = run("games", "export", game_id, "-o", str(out))
    assert result.exit_code == 0
    *lines, head = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["seq"] for e in lines] == list(range(1, shown["version"] + 1))
    assert head["head"]["version"] == shown["version"]  # the anchored head ends the export
    replayed = json.loads(run("games", "replay", game_id, "--to", "3").output)  # command, move
    assert replayed["version"] == 3 and replayed["state"]["units"]["r2"]["hex"] == "D6"
    first = json.loads(run("games", "replay", game_id, "--to", "1").output)
    assert first["state"]["units"]["r2"]["hex"] == "D2"
    verified = run("dice", "verify", game_id)
    report = json.loads(verified.output)
    assert verified.exit_code == 0 and report["ok"] and report["rolls"] >= 1


def test_cli_errors_are_messages_with_a_non_zero_exit(env: dict[str, str], tmp_path: Path) -> None:
    game_id = played_game(tmp_path)
    for args in (
        ["games", "show", "nope"],
        ["games", "replay", game_id, "--to", "999"],
        ["dice", "verify", "00000000-0000-0000-0000-000000000000"],
    ):
        result = run(*args)
        assert result.exit_code != 0 and "Error:" in result.output, args
    assert run("games", "replay", game_id, "--to", "0").exit_code == 2


def test_a_bad_store_setting_is_a_clear_error(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBITER_STORE", "mongodb")
    result = run("games", "list")
    assert (
        result.exit_code != 0 and "ARBITER_STORE must be one of sqlite, postgres" in result.output
    )


def test_scenarios_check_reports_placeholders_and_errors(
    env: dict[str, str], tmp_path: Path
) -> None:
    fixture = Path("tests/fixtures/skirmish/scenarios/meeting.json")
    ok = run("scenarios", "check", str(fixture))
    assert ok.exit_code == 0 and "placeholder" in ok.output.lower() and "units" in ok.output
    broken = json.loads(fixture.read_text())
    broken["units"][0]["hex"] = "Z99"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken))
    result = run("scenarios", "check", str(bad))
    assert result.exit_code == 1 and "Z99" in result.output
    junk = tmp_path / "junk.json"
    junk.write_text("{ not json")
    assert run("scenarios", "check", str(junk)).exit_code == 1


def test_users_grant_and_revoke_a_site_role(env: dict[str, str]) -> None:
    assert run("users", "add", "judge", "--password", "correct horse").exit_code == 0
    granted = run("users", "grant", "judge", "--role", "arbiter")
    assert granted.exit_code == 0 and "judge is now arbiter" in granted.output
    assert run("users", "revoke", "judge", "--role", "arbiter").exit_code == 0
    again = run("users", "revoke", "judge", "--role", "arbiter")
    assert again.exit_code != 0 and "has no role" in again.output
    assert run("users", "grant", "nobody", "--role", "arbiter").exit_code != 0
    assert run("users", "grant", "judge", "--role", "king").exit_code == 2


def test_users_set_password_signs_everything_out(env: dict[str, str], tmp_path: Path) -> None:
    config = make_config(tmp_path, secret_key="k")
    svc = build_services(config)
    svc.users.register("alice", "correct horse")
    first = svc.users.sign_in("alice", "correct horse", "laptop")
    second = svc.users.sign_in("alice", "correct horse", "web")
    svc.close()

    prompted = run(
        "users", "set-password", "alice", input="a fresh passphrase\na fresh passphrase\n"
    )
    assert prompted.exit_code == 0, prompted.output
    assert "set alice's password; signed out 2 tokens and sessions" in prompted.output
    assert "a fresh passphrase" not in prompted.output  # the prompt hides it
    common = run("users", "set-password", "alice", "--password", "12345678")
    assert common.exit_code != 0 and "new_password" in common.output
    unknown = run("users", "set-password", "nobody", "--password", "a fresh passphrase")
    assert unknown.exit_code != 0 and "no user 'nobody'" in unknown.output

    svc = build_services(config)
    try:
        for old in (first, second):
            with pytest.raises(Exception, match="password was changed"):
                svc.users.from_token(old.token)
        with pytest.raises(Exception, match="wrong username or password"):
            svc.users.sign_in("alice", "correct horse")
        assert svc.users.sign_in("alice", "a fresh passphrase").user.username == "alice"
        assert svc.users.by_name("alice").password_generation == 1  # the refusals wrote nothing
    finally:
        svc.close()
