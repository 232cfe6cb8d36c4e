"""A log written by the lost race of concurrent commands (before the fix): an event stored two
versions after the one it was hashed for, after another command's event.  ``arbiter audit verify
--all`` finds the game; ``arbiter audit repair`` records the operator's signed account of the break
in the log (``Game.ChainRepaired``), history untouched, and the audit then reads the break as
explained -- while any later change to the repaired event, or any other kind of problem, is still
caught."""

from __future__ import annotations

import dataclasses
import json
from uuid import UUID

import pytest
from click.testing import CliRunner

from service.application.services import Services
from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.errors import Conflict
from tests.integration.test_audit_tamper import Rows, change_a_byte

END = {"type": "end_phase"}


def lost_race(svc: Services) -> tuple[UUID, list[int]]:
    """What the faulty version stored: a command decided at v and hashed for v + 1, moved in place
    past another command's v + 1 and stored at v + 2 (the store then checked only that v + 2 was
    free), its head anchored.  Returns the game and the broken events' seqs (the command's order
    and its rules event: the first no longer chains, each was hashed for another seq)."""
    alice = svc.users.register("alice", "correct horse")
    game = svc.games.create(
        system="skirmish",
        scenario="meeting",
        sides={"red": "alice", "blue": "alice"},
        creator=alice,
    )
    version = svc.games.execute(game.id, alice, END, expected_version=1).game.version
    stale = svc.games.get(game.id)
    stored = svc.games.execute(game.id, alice, END, expected_version=version).game.version
    stale.execute(
        side="red",
        user=str(alice.id),
        command=END,
        seed=svc.games.seed_of(stale),
        ports=svc.store.ports,
    )
    by = stored - version
    moved = [
        dataclasses.replace(e, originator_version=e.originator_version + by)
        for e in stale.pending_events
    ]
    stale._pending_events[:] = moved
    object.__setattr__(stale, "_version", stale.version + by)
    svc.store.save(stale)  # the old path: no check of what the events were hashed for
    svc.store.heads.anchor(str(game.id), stale.version, stale.last_hash)
    svc.games.execute(game.id, alice, END, expected_version=stale.version)  # play goes on
    return game.id, [e.originator_version for e in moved]


def cli(config: Config, *args: str) -> tuple[int, str]:
    """``arbiter ARGS`` on the store ``config`` names (a new process's services: no cache)."""
    svc = build_services(config)
    try:
        result = CliRunner().invoke(main, list(args), obj={"services": svc})
    finally:
        svc.close()
    return result.exit_code, result.output


def test_a_lost_race_is_found_by_verify_all_and_repaired_by_a_signed_event(
    store_config: Config,
) -> None:
    svc = build_services(store_config)
    try:
        clean = svc.users.register("carol", "correct horse")
        svc.games.create(
            system="skirmish",
            scenario="meeting",
            sides={"red": "carol", "blue": "carol"},
            creator=clean,
        )
        game, broken = lost_race(svc)
        report = svc.audit.verify(game)
        assert not report["ok"]
        first, second = broken
        assert {(p["seq"], p["reason"].split(":")[0]) for p in report["problems"]} == {
            (first, "chain broken"),
            (first, "content changed"),
            (second, "content changed"),
        }
        summary = svc.audit.verify_all()
        assert (summary["ok"], summary["games"], summary["clean"]) == (False, 2, 1)
        assert [f["game"] for f in summary["failed"]] == [str(game)]
        assert summary["failed"][0]["first_bad"]["seq"] == first

        events = svc.games.get(game).version
        after = svc.audit.repair(game, reason="stored by the lost race fixed in 0.9", by="operator")
        assert after["ok"] and after["problems"] == []
        assert {(e["seq"], e["repaired_by"]) for e in after["explained"]} == {
            (first, events + 1),
            (second, events + 1),
        }
        assert len(after["explained"]) == 3
        assert svc.audit.verify_all()["ok"]
        repaired = svc.games.events(game, full=True)[-1]
        assert repaired["kind"] == "Game.ChainRepaired"
        assert repaired["payload"]["reason"] == "stored by the lost race fixed in 0.9"
        assert [r["seq"] for r in repaired["payload"]["repairs"]] == broken
        with pytest.raises(Conflict, match="nothing to repair"):
            svc.audit.repair(game, reason="again", by="operator")
    finally:
        svc.close()

    change_a_byte(Rows(store_config), game, first)  # the repaired event changed afterwards
    fresh = build_services(store_config)
    try:
        report = fresh.audit.verify(game)
        assert not report["ok"] and report["first_bad"]["seq"] == first
        assert {e["seq"] for e in report["explained"]} == {second}
    finally:
        fresh.close()


def test_a_repair_never_explains_a_cut_a_forgery_or_a_die(store_config: Config) -> None:
    svc = build_services(store_config)
    try:
        game, broken = lost_race(svc)
        last = svc.games.get(game).version
        Rows(store_config).delete(game, last)  # a cut tail, besides the server's own break
    finally:
        svc.close()
    fresh = build_services(store_config)
    try:
        with pytest.raises(Conflict, match="does not explain"):
            fresh.audit.repair(game, reason="hide the cut", by="operator")
        assert fresh.games.get(game).version == last - 1
    finally:
        fresh.close()


def test_the_cli_verifies_every_game_and_repairs_one(store_config: Config) -> None:
    svc = build_services(store_config)
    try:
        game, broken = lost_race(svc)
    finally:
        svc.close()
    code, out = cli(store_config, "audit", "verify", "--all")
    summary = json.loads(out[: out.rindex("}") + 1])
    assert code == 1 and summary["failed"][0]["game"] == str(game)
    assert "FAILED: 1 of 1 games" in out
    code, out = cli(store_config, "audit", "repair", str(game))
    assert code == 2 and "--reason" in out  # the reason is required
    code, out = cli(store_config, "audit", "repair", str(game), "--reason", "lost race, 0.9")
    assert code == 0 and json.loads(out)["ok"]
    code, out = cli(store_config, "audit", "verify", "--all")
    assert code == 0 and json.loads(out) == {
        "ok": True,
        "games": 1,
        "clean": 1,
        "failed": [],
        "heads_without_a_game": [],
    }
    code, out = cli(store_config, "audit", "verify", "--all", str(game))
    assert code != 0 and "give one of GAME, --file EXPORT or --all" in out


def test_a_repair_without_a_reason_is_refused_and_writes_nothing(
    store_config: Config,
) -> None:
    svc = build_services(store_config)
    try:
        game, _ = lost_race(svc)
        version = svc.games.get(game).version
    finally:
        svc.close()
    code, out = cli(store_config, "audit", "repair", str(game), "--reason", "   ")
    assert code != 0 and "reason: 1 to 2000 characters" in out, out
    fresh = build_services(store_config)
    try:
        assert fresh.games.get(game).version == version
    finally:
        fresh.close()
