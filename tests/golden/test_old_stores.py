"""Golden stores: a server's store recorded by an old version of Arbiter (``stores/<commit>/``,
README.md beside them) opened by this version.  The aggregates rebuild to what the old version
showed, each stored event of an older shape is upcast as it is read (docs/upgrades.md), the rows
themselves are never changed, and ``arbiter audit verify`` of the old log stays clean."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner

from service.application.services import Services
from service.bootstrap import build_services
from service.cli import main
from service.config import Config
from service.domain.game import Game
from service.domain.ladders import Ladder

STORES = Path(__file__).parent / "stores"
OLD = STORES / "dfead8b"  # recorded by commit dfead8b (2026-11-23), before ladders had a clock
SECRET = "golden-store-secret"  # the recorder's (stores/record.py)
SHOWN: dict[str, Any] = json.loads((OLD / "shown.json").read_text())

ANN = "11f9abbf-550d-5bc5-b6f3-2916bfaaf4e4"
BOB = "d14f5be7-50a9-5b2f-8b33-f58c1934d811"
LADDER = "5861d33e-8cb2-485c-a503-acbefeb9e7db"
GAME = "6bfe1426-e3bc-4cb3-a402-a6640a2d0e7d"
#: the old version's settings (as stored: no ``clock``, no ``options``) ...
OLD_SETTINGS = {
    "rating_system": "glicko2",
    "tau": 0.5,
    "rating_period_days": 7,
    "takeback": "casual",
    "challenge_range": 5,
    "challenge_deadline_hours": 72,
    "disputes_pause": True,
    "side_adjustment": True,
}
#: ... and as this version reads them (Ladder.Created and SettingsChanged v1 -> v2)
SETTINGS = {**OLD_SETTINGS, "clock": None, "options": {}}


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture
def copied(tmp_path: Path) -> Config:
    """The golden store copied (never opened in place) and a config naming it."""
    for name in ("arbiter.sqlite", "heads.sqlite"):
        shutil.copyfile(OLD / name, tmp_path / name)
    return Config(
        store="sqlite",
        var_dir=tmp_path / "var",
        keys_dir=tmp_path / "keys",
        sqlite_path=tmp_path / "arbiter.sqlite",
        heads_path=tmp_path / "heads.sqlite",
        secret_key=SECRET,
        testing=True,
    )


@pytest.fixture
def svc(copied: Config) -> Iterator[Services]:
    services = build_services(copied)
    # the upgrade's step (docs/upgrades.md, "Persisted views"): the views this version adds (the
    # ladders') are built from the old log before the store serves
    services.projections.run()
    yield services
    services.close()


def stored_state(config: Config, topic: str, table: str = "stored_events") -> list[dict[str, Any]]:
    """The rows of ``topic`` exactly as stored (decoded JSON, no upcast)."""
    connection = sqlite3.connect(config.sqlite_file)
    try:
        rows = connection.execute(
            f"SELECT state FROM {table} WHERE topic = ? ORDER BY originator_version",  # noqa: S608
            (topic,),
        ).fetchall()
    finally:
        connection.close()
    return [json.loads(row[0]) for row in rows]


def test_the_golden_store_is_what_the_recorder_wrote() -> None:
    assert SHOWN["users"] == {"ann": ANN, "bob": BOB}
    assert SHOWN["ladder"]["id"] == LADDER and SHOWN["game"]["id"] == GAME
    assert SHOWN["ladder"]["settings"] == OLD_SETTINGS
    assert SHOWN["audit"] is True


def test_the_old_game_rebuilds_to_the_state_the_old_version_showed(svc: Services) -> None:
    game = svc.games.get(GAME)
    seen = {
        "id": str(game.id),
        "system": game.system,
        "scenario": game.scenario,
        "sides": game.sides,
        "labels": game.labels,
        "version": game.version,
        "status": game.status,
        "moves": game.moves,
        "last_hash": game.last_hash,
        "state_digest": digest(game.state),
    }
    assert seen == SHOWN["game"]
    assert (game.version, game.status, game.moves) == (13, "active", 6)
    assert game.sides == {"republican": ANN, "nationalist": BOB}
    assert game.last_hash == "a51b6ff02338d5835ea80059051490b52ea9015558ba6062862088bbf18c72e8"
    assert digest(game.state) == (
        "8a6d8a4859349579f245e3b33e50092d289f42a268147a9d2ce166987b96df95"
    )
    # what the game came to have since: none of it in a game the old version played
    assert (game.invitation, game.draw_offer, game.claim_pending, game.clock) == (None,) * 4
    assert svc.games.view(game, "republican")["version"] == 13


def test_an_old_snapshot_is_upcast_to_the_game_replayed_from_its_events(
    copied: Config, svc: Services
) -> None:
    old = stored_state(copied, "service.domain.game:Game.Snapshot", "stored_snapshots")
    assert len(old) == 3 and all("class_version" not in s["state"] for s in old)
    assert all("invitation" not in s["state"] and "clock" not in s["state"] for s in old)
    store = svc.games.store
    assert store.snapshots is not None
    latest = next(iter(store.snapshots.get(UUID(GAME), desc=True, limit=1)))
    from_snapshot = latest.mutate(None)
    assert from_snapshot.version == 12
    for name in ("invitation", "draw_offer", "claim_pending", "clock"):
        assert name in vars(from_snapshot) and getattr(from_snapshot, name) is None
    replayed = store.repository.project(None, store.events.get(UUID(GAME), lte=12))
    assert replayed.version == 12
    assert digest(from_snapshot.state) == digest(replayed.state)
    assert from_snapshot.last_hash == replayed.last_hash


def test_old_users_and_clubs_have_what_came_since_as_none(svc: Services) -> None:
    """Attributes added later are set by the creation event's apply (docs/upgrades.md, rule 2)."""
    ann = svc.users.get(ANN)
    assert (ann.username, ann.roles, ann.email) == ("ann", [], None)
    club = svc.clubs.get(SHOWN["club"]["id"])
    assert club.name == "Golden Wargamers" and club.policies is None
    assert club.members == {ANN: ["admin", "arbiter", "player"], BOB: ["player"]}


def test_the_old_ladder_reads_with_every_setting_and_its_rows_stay_as_recorded(
    copied: Config, svc: Services
) -> None:
    ladder = svc.ladders.get(LADDER)
    assert ladder.settings == SETTINGS
    assert ladder.players == [ANN, BOB]
    assert svc.ladders.view(LADDER)["settings"] == SETTINGS
    # upcast as read, never rewritten: both events are still stored in the old shape
    for topic in (
        "service.domain.ladders:Ladder.Created",
        "service.domain.ladders:Ladder.SettingsChanged",
    ):
        (row,) = stored_state(copied, topic)
        assert "class_version" not in row and set(row["settings"]) == set(OLD_SETTINGS)


def test_the_old_ladder_plays_on_and_records_its_changes_in_the_new_shape(
    copied: Config, svc: Services
) -> None:
    bob = svc.users.get(BOB)
    ann = svc.users.get(ANN)
    challenge = svc.ladders.challenge(LADDER, ann, "bob", side="nationalist")
    _accepted, game = svc.ladders.accept(str(challenge.id), bob)
    assert game.labels["takeback_policy"] == "casual" and game.labels["pause_on_dispute"] is True
    assert "clock" not in game.labels  # the old ladder had none
    svc.ladders.change_settings(LADDER, ann, {"clock": {"days": 3}})
    assert svc.ladders.get(LADDER).settings["clock"]["days"] == 3
    newest = stored_state(copied, "service.domain.ladders:Ladder.SettingsChanged")[-1]
    assert newest["class_version"] == 2 and newest["settings"]["options"] == {}


def test_audit_verify_of_the_old_logs_is_clean(
    copied: Config, svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = svc.audit.verify(GAME)
    assert report["ok"] and report["problems"] == []
    assert report["anchor"] == {"checked": True, "head": 13, "log_ends_at": 13}
    assert report["head"] == SHOWN["game"]["last_hash"]
    svc.close()
    for name, value in {
        "ARBITER_SQLITE": str(copied.sqlite_file),
        "ARBITER_HEADS": str(copied.heads_file),
        "ARBITER_VAR": str(copied.var_dir),
        "ARBITER_KEYS": str(copied.keys),
        "ARBITER_SECRET_KEY": SECRET,
    }.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(main, ["audit", "verify", "--all"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"] is True


def test_game_events_are_never_upcast() -> None:
    """A game event's hash covers every field as read (service.domain.chain.event_hash over the
    decoded event), so an upcast that adds or reshapes one fails the audit of every old log: a
    game's events change by new event types instead (docs/upgrades.md)."""
    kinds = [
        value
        for value in vars(Game).values()
        if isinstance(value, type) and issubclass(value, Game.Event)
    ]
    assert len(kinds) > 20
    assert [k.__qualname__ for k in kinds if getattr(k, "class_version", 1) != 1] == []
    assert Ladder.Created.class_version == Ladder.SettingsChanged.class_version == 2
