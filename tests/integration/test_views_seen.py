"""Read-your-writes (``Projections.seen``): a writing request brings up to its commit exactly the
views that read its events' topics -- a view's ``seen_topics`` where it names them -- and leaves
the others to the worker; a view that fails there does not stop the next."""

from __future__ import annotations

from typing import Any

import pytest

from service.bootstrap import build_ports, open_store
from service.config import Config
from service.domain.campaigns import Campaign
from service.domain.game import Game
from service.views.catalog import Projections


def an_event(kind: type) -> Any:
    """An event of ``kind`` (``seen`` reads only its type)."""
    return object.__new__(kind)


@pytest.fixture
def caught_up(store_config: Config, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The store's views, and the names of those :meth:`Projections.seen` caught up, in order."""
    store = open_store(store_config, build_ports(store_config))
    views = Projections(store, create_tables=store_config.store == "sqlite")
    names: list[tuple[str, int]] = []
    for name, runner in views.runners.items():

        def catch_up(position: int, timeout: float, name: str = name) -> None:
            names.append((name, position))
            if name == "games":
                raise RuntimeError("this view's database is down")

        monkeypatch.setattr(runner, "catch_up", catch_up)
    yield views, names
    store.close()


def test_a_commit_brings_up_only_the_views_that_read_its_events(caught_up: Any) -> None:
    views, names = caught_up
    views.seen([an_event(Game.CommandAccepted), an_event(Game.Recorded)], 7)
    assert names == []  # a move changes no list a request reads: the worker's alone

    views.seen([an_event(Game.Claimed)], 8)  # the clocks view names it as a request's topic
    assert ("clocks", 8) in names
    names.clear()

    # the clocks view reads every game event but the rules' own, an ended game's too; a request
    # brings it up only for the ones it names as its seen_topics.  The games list reads it.
    views.seen([an_event(Game.Ended)], 9)
    assert ("games", 9) in names
    assert "clocks" not in {n for n, _ in names}


def test_a_view_that_fails_to_catch_up_leaves_the_next_to_do_so(caught_up: Any) -> None:
    views, names = caught_up
    views.seen([an_event(Game.Ended), an_event(Campaign.Created), an_event(Game.Ended)], 12)
    # the games view raised (logged); the commit stands and the views after it still ran, each once
    topics = {"service.domain.game:Game.Ended", "service.domain.campaigns:Campaign.Created"}
    expected = [
        name
        for name, runner in views.runners.items()
        if topics.intersection(getattr(runner.projection, "seen_topics", runner.projection.topics))
    ]
    assert expected[0] == "games" and "campaigns" in expected
    assert names == [(name, 12) for name in expected]
