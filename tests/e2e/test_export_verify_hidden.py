"""A player's own export of a game with hidden information verifies as redacted: Operation Backbone
with limited intelligence (19.2) and Back to Barcelona's written orders.  Each reader's export shows
its form of each sealed event with that form's salt and every commitment; it verifies end to end
offline (``arbiter audit verify --file``), leaks no hidden unit, carries no salt but its own, and
any change to what it shows fails.  Once the game is over, everyone's export is the full log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from service.cli import main
from service.domain.chain import FULL, SPECTATOR, salt, seal_key_from_secret
from tests.support.api import ApiHelper
from tests.support.hidden_games import backbone_hiding_a_unit

BARCELONA = {"nationalist": "franco", "republican": "rojo"}
KEY = seal_key_from_secret("test-secret")


def export(api: ApiHelper, gid: str, user: str | None) -> list[dict[str, Any]]:
    headers = api.reader(user)
    r = api.client.get(f"/api/games/{gid}/events.ndjson", headers=headers)
    assert r.status_code == 200
    return [json.loads(line) for line in r.get_data(as_text=True).splitlines()]


def verify(path: Path, lines: list[dict[str, Any]], secret: bool = True) -> tuple[int, Any]:
    path.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    args = ["audit", "verify", "--file", str(path)] + (
        ["--secret", "test-secret"] if secret else []
    )
    result = CliRunner().invoke(main, args)
    return result.exit_code, json.loads(result.output.split("\nFAILED")[0])


def test_each_readers_backbone_export_verifies_as_redacted(api: ApiHelper, tmp_path: Path) -> None:
    gid, hidden = backbone_hiding_a_unit(api)
    for reader, side in (("ike", "allied"), ("paco", "spanish"), (None, SPECTATOR)):
        lines = export(api, gid, reader)
        text = json.dumps(lines)
        assert (hidden in text) == (side == "spanish"), reader
        code, report = verify(tmp_path / f"{side}.ndjson", lines)
        assert code == 0 and report["ok"], (reader, report["problems"])
        sealed = [line for line in lines if "sealed" in line]
        assert sealed and {line["shown"] for line in sealed} == {side}
        # the only salts an export carries are its own form's: no other form can be opened
        for line in sealed:
            others = {salt(KEY, gid, line["seq"], f) for f in (FULL, "allied", "spanish", "*")}
            others.discard(line["salt"])
            assert not any(s in text for s in others), (reader, line["seq"])
        assert verify(tmp_path / "no-secret.ndjson", lines, secret=False)[0] == 0


def test_a_change_to_a_redacted_line_fails(api: ApiHelper, tmp_path: Path) -> None:
    gid, _ = backbone_hiding_a_unit(api)
    lines = export(api, gid, "ike")
    deploy = next(
        i
        for i, line in enumerate(lines)
        if line.get("redacted") and line["kind"] == "Game.Recorded" and line["payload"]["data"]
    )
    data = lines[deploy]["payload"]["data"]
    key = next(iter(data))
    data[key] = "anything else"
    code, report = verify(tmp_path / "changed.ndjson", lines)
    assert code == 1 and report["first_bad"]["seq"] == lines[deploy]["seq"], report
    assert "does not match its commitment" in report["first_bad"]["reason"]


def test_the_operators_full_export_verifies(api: ApiHelper, tmp_path: Path) -> None:
    gid, hidden = backbone_hiding_a_unit(api)
    config = api.client.application.extensions["arbiter"].config
    out = tmp_path / "full.ndjson"
    env = {
        "ARBITER_VAR": str(config.var_dir),
        "ARBITER_SECRET_KEY": config.secret_key,
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
    }
    result = CliRunner().invoke(main, ["games", "export", gid, "-o", str(out)], env=env)
    assert result.exit_code == 0, result.output
    assert hidden in out.read_text()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {line["shown"] for line in lines if "sealed" in line} == {FULL}
    code, report = verify(out, lines)
    assert code == 0 and report["ok"], report["problems"]


def _barcelona_command(template: dict[str, Any]) -> dict[str, Any]:
    command = {"type": template["type"], **template["fixed"]}
    for name, choice in template["choose"].items():
        one = choice.get("one_of")
        command[name] = one[0] if one else choice["some_of"][: max(choice["min"], 1)]
    return command


def _barcelona_step(api: ApiHelper, gid: str) -> bool:
    game = api.game(gid, "franco")
    if not game["active_sides"]:
        return False
    side = game["active_sides"][0]
    template = api.actions(gid, BARCELONA[side], side=side)["actions"][0]
    r = api.command(gid, BARCELONA[side], _barcelona_command(template), side=side)
    assert r.status_code == 201, r.get_json()
    return True


def test_barcelona_written_orders_export_verifies_before_and_after_the_end(
    api: ApiHelper, tmp_path: Path
) -> None:
    gid = api.create_game("barcelona", "skirmish", BARCELONA)["id"]
    sent = 0
    while sent < 40 and _barcelona_step(api, gid):
        sent += 1
    for reader in ("franco", "rojo", None):
        lines = export(api, gid, reader)
        assert any(line.get("redacted") for line in lines), reader
        code, report = verify(tmp_path / f"mid-{reader}.ndjson", lines)
        assert code == 0 and report["ok"], (reader, report["problems"])
    while _barcelona_step(api, gid):
        sent += 1
        assert sent < 600
    lines = export(api, gid, "rojo")
    assert not any(line.get("redacted") for line in lines)
    code, report = verify(tmp_path / "ended.ndjson", lines)
    assert code == 0 and report["ok"] and report["dice"]["verified"], report["problems"]
    assert report["derived"]["text"] == "checked"
