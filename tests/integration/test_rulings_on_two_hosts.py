"""Club rulings on several hosts (issue 53's "any number of hosts"): each host keeps its own rules
index, a cache of the rulings the log holds.  A ruling made on one host is indexed there at once
(the disputes service's ``publish_ruling``) and searched on every other host once that host next
uses the knowledge base; a ruling withdrawn leaves every host's search the same way.  Both hosts
share one PostgreSQL store, as the README's several-hosts recipe has them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from service.application.services import Services
from service.bootstrap import build_services
from service.config import Config
from service.domain.rulings import ClubRuling

QUESTION = "pontoon bridge swept away in a storm"


@pytest.fixture
def hosts(store_config: Config, tmp_path: Path, index_template: Path) -> Iterator[list[Services]]:
    made = []
    try:
        for name in ("a", "b"):
            config = replace(store_config, var_dir=tmp_path / name)
            shutil.copytree(index_template, config.index_dir)  # each host's own index
            made.append(build_services(config))
        yield made
    finally:
        for svc in made:
            svc.close()


def found(host: Services) -> list[str]:
    return [r["id"] for r in host.knowledge.kb.search(QUESTION, document="club")]


def a_ruling() -> ClubRuling:
    return ClubRuling.make(
        club="madrid",
        system="skirmish",
        heading="Pontoon bridges in a storm",
        text="A storm sweeps a pontoon bridge away at once; units on it are lost.",
        rule_refs=[],
        event_types=["UnitMoved"],
        game=str(uuid4()),
        dispute=str(uuid4()),
        arbiter="referee",
        citations=[],
    )


@pytest.mark.parametrize("store_config", ["postgres"], indirect=True)
def test_a_ruling_made_or_withdrawn_on_one_host_is_searched_so_on_the_other(
    hosts: list[Services],
) -> None:
    a, b = hosts
    for host in hosts:
        host.knowledge.sync_seconds = 0  # looks at the view on every use (every 2 s in service)
    assert found(a) == found(b) == []
    ruling = a_ruling()
    a.store.commit(ruling)
    a.knowledge.publish_ruling(ruling)  # as the disputes service does where it was made
    entry = f"club-ruling:{ruling.id}"
    assert found(a) == [entry]  # at once
    a.projections.run()  # a worker's step (any host's): the rulings view up to the log
    assert found(b) == [entry]  # b's own index, brought up to the view
    assert found(a) == [entry]

    made: Any = a.store.repository.get(ruling.id)
    made.withdraw("referee", "superseded")
    a.store.commit(made)
    a.projections.run()
    assert found(b) == [] and found(a) == []


@pytest.mark.parametrize("store_config", ["postgres"], indirect=True)
def test_a_host_looks_at_the_rulings_view_at_most_every_few_seconds(
    hosts: list[Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = hosts
    looks: list[int] = []
    view: Any = b.knowledge._view
    mark = view.mark
    monkeypatch.setattr(view, "mark", lambda: looks.append(1) or mark())
    b.knowledge.sync_seconds = 60
    for _ in range(5):
        found(b)
    assert len(looks) == 1  # one look in the first use, none in the next four
    ruling = a_ruling()
    a.store.commit(ruling)
    a.projections.run()
    assert found(b) == []  # within the interval: the index as it was
    b.knowledge._next_sync = 0  # the interval over
    assert found(b) == [f"club-ruling:{ruling.id}"] and len(looks) == 2


@pytest.mark.parametrize("store_config", ["postgres"], indirect=True)
def test_a_store_that_cannot_be_read_leaves_the_search_as_it_was(
    hosts: list[Services], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, b = hosts
    view: Any = b.knowledge._view

    def down() -> tuple[int, int]:
        raise ConnectionError("the store is unavailable")

    monkeypatch.setattr(view, "mark", down)
    b.knowledge.sync_seconds = 0
    with caplog.at_level("WARNING"):
        assert found(b) == []
    assert "club rulings are not brought up to date now: the store is unavailable" in caplog.text
