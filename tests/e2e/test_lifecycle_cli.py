"""`arbiter games expire-clocks` (issue 17): what the worker does each minute, by hand -- a clock
that ran out is recorded once, and the game ends where the policy is forfeit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.bootstrap import build_services
from service.cli import main
from service.domain.game import Game
from tests.conftest import make_config


def test_expire_clocks_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {
        "ARBITER_VAR": str(tmp_path / "var"),
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
        "ARBITER_SECRET_KEY": "k",
    }.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    svc = build_services(make_config(tmp_path, secret_key="k"))
    alice = svc.users.register("alice", "correct horse")
    bob = svc.users.register("bob", "battery staple")
    # the game began two days ago (its events' times), with one day per move and forfeit
    two_days_ago = datetime.now(UTC) - timedelta(days=2)
    monkeypatch.setattr(Game.Event, "create_timestamp", staticmethod(lambda: two_days_ago))
    clock = {"kind": "per-move", "days": 1, "on_timeout": "forfeit"}
    game = svc.lifecycle.create(
        creator=alice,
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "bob"},
        clock=clock,
    )
    svc.lifecycle.accept(game.id, bob)
    monkeypatch.undo()
    for key, value in {
        "ARBITER_VAR": str(tmp_path / "var"),
        "ARBITER_PLUGINS": "tests.fixtures.skirmish",
        "ARBITER_SECRET_KEY": "k",
    }.items():
        monkeypatch.setenv(key, value)
    svc.close()
    first = CliRunner().invoke(main, ["games", "expire-clocks"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    assert first.output.splitlines() == ["1 game with a clock that ran out", str(game.id)]
    again = CliRunner().invoke(main, ["games", "expire-clocks"], catch_exceptions=False)
    assert again.output.splitlines() == ["0 games with a clock that ran out"]
    svc = build_services(make_config(tmp_path, secret_key="k"))
    ended = svc.games.get(game.id)
    assert ended.status == "ended" and ended.result is not None
    assert ended.result["reason"] == "timeout" and ended.result["winner"] == "blue"
    svc.close()
