"""A process stopped while it creates a game (``kill -9`` of a host under load; CI's two-host test
caught it once): the store commits a game's events, then anchors its head apart from the rows
(``service.adapters.heads``).  Stopped between the two, a new game's log had no head at all,
which ``arbiter audit verify --all`` must report as a cut (a head deleted).  A new game's head is
now announced at version 0 before its events are stored: stopped after the commit, the log is
ahead of its head (accepted, as for any game); stopped before it, the head at 0 has no game and
nothing was acknowledged (no orphan).  A game with no head at all is still reported.  On SQLite
and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from service.application.services import Services
from service.bootstrap import build_services
from service.config import Config


class Stopped(BaseException):
    """The process stopping at that point (not an error any layer would catch)."""


def players(svc: Services) -> Any:
    alice = svc.users.register("alice", "correct horse")
    svc.users.register("bob", "battery staple")
    return alice


def create(svc: Services, alice: Any) -> Any:
    return svc.games.create(
        system="skirmish", scenario="meeting", sides={"red": "alice", "blue": "bob"}, creator=alice
    )


def audit_all(config: Config) -> dict[str, Any]:
    fresh = build_services(config)  # another process, after the stop
    try:
        return fresh.audit.verify_all()
    finally:
        fresh.close()


def stop_at(monkeypatch: pytest.MonkeyPatch, svc: Services, name: str) -> None:
    def stopped(*args: Any, **kwargs: Any) -> None:
        raise Stopped(name)

    monkeypatch.setattr(svc.store, name, stopped)


def test_stopped_between_the_commit_and_the_anchor_the_audit_holds(
    store_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = build_services(store_config)
    alice = players(svc)
    stop_at(monkeypatch, svc, "_committed")  # right after the store's commit
    with pytest.raises(Stopped):
        create(svc, alice)
    svc.close()
    summary = audit_all(store_config)
    assert summary["ok"] and summary["games"] == 1, summary
    assert summary["heads_without_a_game"] == []
    fresh = build_services(store_config)
    (game,) = fresh.audit.game_ids()
    report = fresh.audit.verify(game)
    fresh.close()
    assert report["anchor"] == {"checked": True, "head": 0, "log_ends_at": 1, "unanchored": 1}


def test_stopped_before_the_commit_no_game_and_no_orphan_head(
    store_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = build_services(store_config)
    alice = players(svc)
    monkeypatch.setattr(svc.store.events, "put", lambda *a, **k: (_ for _ in ()).throw(Stopped()))
    with pytest.raises(Stopped):
        create(svc, alice)
    heads = list(svc.store.heads.all())
    svc.close()
    assert [h["version"] for h in heads] == [0]  # announced, never stored
    summary = audit_all(store_config)
    assert summary == {
        "ok": True, "games": 0, "clean": 0, "failed": [], "heads_without_a_game": []
    }  # fmt: skip


def test_a_game_with_no_head_at_all_is_still_reported_as_cut(
    store_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = build_services(store_config)
    alice = players(svc)
    # no head announced nor anchored: as if the game's head had been deleted since
    monkeypatch.setattr(svc.store, "_announce", lambda items: None)
    stop_at(monkeypatch, svc, "_anchor")
    with pytest.raises(Stopped):
        create(svc, alice)
    svc.close()
    summary = audit_all(store_config)
    assert not summary["ok"] and len(summary["failed"]) == 1, summary
    assert "has no anchored head (cut?)" in summary["failed"][0]["first_bad"]["reason"]
