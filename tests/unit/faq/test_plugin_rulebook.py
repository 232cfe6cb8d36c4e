"""A game's rulebook comes from its package: a plug-in's rulebook (a tiny text shipped in
tests/fixtures, outside faq/corpus) is parsed, indexed, searched and linked to events without a
line of faq/ knowing the game."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from faq.corpus import DEFAULT_CORPUS, corpus_hash, load_corpus
from faq.errors import QueryError
from faq.search import KnowledgeBase
from service.rules.base import Rulebook
from service.rules.rulebook import Heading, rulebooks_of
from tests.fixtures.skirmish_rulebook import RULEBOOK as SKIRMISH

from .conftest import ids


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return KnowledgeBase(tmp_path_factory.mktemp("plugin") / "index", rulebooks=[SKIRMISH])


def test_a_plugin_rulebook_is_parsed_after_its_own_spec() -> None:
    corpus = load_corpus(rulebooks=[SKIRMISH])
    assert list(corpus.rulebooks) == ["skirmish"]
    headings = [e.heading for e in corpus.rulebooks["skirmish"]]
    assert headings == [
        "Skirmish at the Ford - rules",
        "1 Introduction",
        "2 Movement",
        "3 Combat",
        "COMBAT TABLE",
        "4 Victory",
    ]
    assert corpus.stats()["skirmish"]["conflicts"] == 1
    assert corpus.stats()["fwtbt-faq"]["questions"] == 325  # the FAQ is faq's own, always there


def test_a_plugin_rulebook_is_searched_and_filtered(kb: KnowledgeBase) -> None:
    assert kb.documents == ("fwtbt-faq", "skirmish")
    found = kb.search("crossing the river", limit=3, document="skirmish")
    assert ids(found)[0] == "skirmish:2"
    assert found[0]["heading"] == "2 Movement"
    assert kb.get("skirmish:chart-combat-table")["section_type"] == "chart"
    with pytest.raises(QueryError):  # a game not given is not a document
        kb.search("retreat", document="merida")


def test_a_plugin_rulebook_governs_its_events_with_its_conflicts(kb: KnowledgeBase) -> None:
    out = kb.for_event("skirmish", sections=["3"], topics=["combat"], facts=["die"])
    assert ids(out["governing"]) == ["skirmish:3", "skirmish:conflict-ford-defence"]
    conflict = kb.get("skirmish:conflict-ford-defence")
    assert conflict["extra"]["readings"][0] == {
        "rule": "3",
        "quote": "A defender on the ford hex doubles its defence.",
    }


class _Declared:
    rulebook = SKIRMISH


class _Bare:
    rulebook = None


def test_the_rulebooks_are_collected_from_the_systems() -> None:
    """A system's ``rulebook`` capability is used; a system without one and without a
    ``rulebook`` module in its package (this test's package has none) gives none."""
    systems: list[Any] = [_Declared(), _Bare(), _Declared()]
    assert rulebooks_of(systems) == [SKIRMISH]


def test_the_index_hash_covers_the_rulebook_spec_and_conflicts() -> None:
    base = corpus_hash(DEFAULT_CORPUS, [SKIRMISH])
    more = (*SKIRMISH.spec.headings, Heading("4. Victory"))
    respecced = dataclasses.replace(
        SKIRMISH, spec=dataclasses.replace(SKIRMISH.spec, headings=more)
    )
    reread = dataclasses.replace(
        SKIRMISH,
        conflicts=(dataclasses.replace(SKIRMISH.conflicts[0], engine_reading="rule 4 always."),),
    )
    assert base == corpus_hash(DEFAULT_CORPUS, [SKIRMISH])  # stable
    assert (
        len({base, corpus_hash(DEFAULT_CORPUS, [respecced]), corpus_hash(DEFAULT_CORPUS, [reread])})
        == 3
    )
    assert corpus_hash(DEFAULT_CORPUS, []) != base


def test_a_changed_spec_rebuilds_the_index(tmp_path: Path) -> None:
    first = KnowledgeBase(tmp_path / "index", rulebooks=[SKIRMISH])
    assert first.get("skirmish:chart-combat-table")
    flat = dataclasses.replace(
        SKIRMISH, spec=dataclasses.replace(SKIRMISH.spec, headings=SKIRMISH.spec.headings[:1])
    )
    second = KnowledgeBase(tmp_path / "index", rulebooks=[flat])
    assert second.corpus_hash != first.corpus_hash
    assert "COMBAT TABLE" in second.get("skirmish:3")["text"]  # no chart: it stays in rule 3


@pytest.mark.parametrize("document", ["fwtbt-faq", "club", "club:madrid"])
def test_a_rulebook_may_not_take_a_reserved_document(document: str) -> None:
    clash: Rulebook = dataclasses.replace(SKIRMISH, document=document)
    with pytest.raises(ValueError, match="reserved or given twice"):
        load_corpus(rulebooks=[clash])
    with pytest.raises(ValueError, match="reserved or given twice"):
        load_corpus(rulebooks=[SKIRMISH, SKIRMISH])
