"""A rolled-back log may not erase its own evidence (issue 34, finding 3): copy ``arbiter.sqlite``,
play on, put the copy back.  Before, the audit rightly failed ("the log ends at N but its anchored
head is N + k") until play went on past the head, after which it said ``ok`` and the replaced events
left no trace.  Now the first command on the restored log is refused (409 ``log_behind_head``),
nothing is written, and play goes on only after ``arbiter audit reconcile`` records in the log
which head was lost and why."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner
from flask import Flask

from service.app import create_app
from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.errors import LogBehindHead, StaleVersion
from tests.conftest import make_config
from tests.support.api import ApiHelper

END = {"type": "end_phase"}
SIDES = {"red": "alice", "blue": "alice"}


def app_on(config: Config) -> tuple[Flask, ApiHelper]:
    app = create_app(config)
    return app, ApiHelper(app.test_client())


def test_a_restored_log_is_refused_until_reconciled_and_the_reconciliation_is_in_the_log(
    tmp_path: Path,
) -> None:
    config = make_config(tmp_path)
    app, api = app_on(config)
    game = api.create_game("skirmish", "meeting", SIDES)
    gid = game["id"]
    for _ in range(2):
        assert api.command(gid, "alice", END).status_code == 201
    backed_up = api.game(gid, "alice")["version"]
    token = api.tokens["alice"]
    app.extensions["arbiter"].close()
    backup = tmp_path / "backup.sqlite"
    shutil.copy(config.sqlite_file, backup)  # the data alone, as an operator might

    app, api = app_on(config)
    api.tokens["alice"] = token
    for _ in range(2):
        assert api.command(gid, "alice", END).status_code == 201
    head = api.game(gid, "alice")["version"]
    app.extensions["arbiter"].close()
    for suffix in ("-wal", "-shm"):
        Path(f"{config.sqlite_file}{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, config.sqlite_file)  # the rollback

    app, api = app_on(config)
    api.tokens["alice"] = token
    svc = app.extensions["arbiter"]
    report = svc.audit.verify(gid)
    assert not report["ok"] and report["first_bad"]["reason"] == (
        f"the log ends at {backed_up} but its anchored head is {head}"
    )
    r = api.command(gid, "alice", END, expected_version=backed_up)
    assert r.status_code == 409 and r.get_json()["error"] == "log_behind_head"
    assert f"anchored head is {head}" in r.get_json()["message"]
    assert api.game(gid, "alice")["version"] == backed_up  # nothing written
    for _ in range(5):  # however often it is tried: the evidence stays
        assert api.command(gid, "alice", END).status_code == 409
    assert not svc.audit.verify(gid)["ok"]

    runner = CliRunner()
    refused = runner.invoke(main, ["audit", "reconcile", gid], obj={"services": svc})
    assert refused.exit_code == 2 and "--reason" in refused.output
    blank = runner.invoke(main, ["audit", "reconcile", gid, "--reason", " "], obj={"services": svc})
    assert blank.exit_code != 0 and "reason: 1 to 2000 characters" in blank.output
    assert api.game(gid, "alice")["version"] == backed_up  # nothing written
    done = runner.invoke(
        main,
        ["audit", "reconcile", gid, "--reason", "restored from the 14:00 copy; checked by ann"],
        obj={"services": svc},
    )
    assert done.exit_code == 0, done.output
    events = api.events(gid, "alice", limit=1000)
    reconciled = events[-1]
    assert reconciled["type"] == "HeadReconciled" and reconciled["seq"] == backed_up + 1
    assert reconciled["payload"]["lost_head"]["version"] == head
    assert reconciled["payload"]["reason"] == "restored from the 14:00 copy; checked by ann"
    assert svc.audit.verify(gid)["ok"]
    for _ in range(5):  # play goes on, and the log verifies
        assert api.command(gid, "alice", END).status_code == 201
    assert svc.audit.verify(gid)["ok"]
    again = runner.invoke(main, ["audit", "reconcile", gid, "--reason", "x"], obj={"services": svc})
    assert again.exit_code != 0 and "nothing to reconcile" in again.output
    svc.close()


def test_a_lost_race_past_the_anchored_head_is_still_a_plain_409(tmp_path: Path) -> None:
    """Two commands decided on one version: the loser sees the head already moved, the store
    holds the winner's event, and the answer is the usual stale version (not a rollback)."""
    config = make_config(tmp_path)
    svc = build_services(config)
    alice = svc.users.register("alice", "correct horse")
    game = svc.games.create(system="skirmish", scenario="meeting", sides=SIDES, creator=alice)
    stale = svc.games.get(game.id)
    svc.games.execute(game.id, alice, END, expected_version=game.version)
    stale.execute(
        side="red",
        user=str(alice.id),
        command=END,
        seed=svc.games.seed_of(stale),
        ports=svc.store.ports,
    )
    try:
        svc.store.commit(stale)
    except LogBehindHead:  # pragma: no cover - the failure this test guards against
        raise AssertionError("a lost race was taken for a rollback") from None
    except StaleVersion:
        pass
    else:  # pragma: no cover
        raise AssertionError("a lost race was stored")
    assert svc.audit.verify(game.id)["ok"]
    svc.close()
