"""A cut tail shows: deleting a game's last rows in SQLite or PostgreSQL, or an export's last lines,
fails ``arbiter audit verify`` ("the log ends at 41 but its anchored head is 44"), because each
game's signed head is anchored apart from the rows on every commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.chain import head_mac, seal_key_from_secret
from tests.integration.test_audit_tamper import Rows, export, first_bad, played, verify_file


@pytest.mark.parametrize("cut", [1, 3])
def test_deleting_the_last_rows_of_a_game_fails_the_audit(store_config: Config, cut: int) -> None:
    svc = build_services(store_config)
    game = played(svc)
    last = svc.games.get(game).version
    assert svc.audit.verify(game)["ok"]
    assert svc.audit.anchored_head(game)["version"] == last  # type: ignore[index]
    svc.close()
    rows = Rows(store_config)
    for version in range(last - cut + 1, last + 1):
        rows.delete(game, version)
    found = first_bad(store_config)
    assert found == {
        "seq": last - cut + 1,
        "reason": f"the log ends at {last - cut} but its anchored head is {last}",
    }


def test_the_cli_reports_a_cut_live_log(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = build_services(config)
    game = played(svc)
    last = svc.games.get(game).version
    svc.close()
    Rows(config).delete(game, last)
    monkeypatch.setenv("ARBITER_VAR", str(config.var_dir))
    monkeypatch.setenv("ARBITER_SECRET_KEY", config.secret_key)
    monkeypatch.setenv("ARBITER_PLUGINS", "tests.fixtures.skirmish")
    bad = CliRunner().invoke(main, ["audit", "verify", str(game)])
    assert bad.exit_code == 1
    assert f"the log ends at {last - 1} but its anchored head is {last}" in bad.output


def test_an_export_cut_short_fails_offline(tmp_path: Path, config: Config) -> None:
    svc = build_services(config)
    game = played(svc)
    *events, head = export(svc, game, tmp_path / "whole.ndjson")
    svc.close()
    last = events[-1]["seq"]
    assert head["head"]["version"] == last and verify_file(tmp_path / "whole.ndjson").exit_code == 0

    def cut(name: str, lines: list[dict[str, Any]], secret: str | None) -> str:
        path = tmp_path / name
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        result = verify_file(path, secret)
        assert result.exit_code == 1, (name, result.output)
        return str(json.loads(result.output.split("\nFAILED")[0])["first_bad"]["reason"])

    reason = cut("tail.ndjson", [*events[:-2], head], None)
    assert reason == f"the log ends at {last - 2} but its anchored head is {last}"
    assert "no anchored head" in cut("headless.ndjson", events[:-2], None)
    # a forger who cuts the tail and rewrites the head line to match: its signature gives it away
    forged = {"head": dict(head["head"], version=last - 2, hash=events[-3]["hash"])}
    assert "signature" in cut("forged-head.ndjson", [*events[:-2], forged], "test-secret")
    key = seal_key_from_secret("test-secret")
    assert head["head"]["mac"] == head_mac(key, str(game), last, events[-1]["hash"])
