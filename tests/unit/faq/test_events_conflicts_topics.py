"""Rulings linked to events (for_event), the rulebooks' conflicts, and topics."""

from __future__ import annotations

from pathlib import Path

import pytest

from faq.corpus import DEFAULT_CORPUS, Corpus, read
from faq.errors import QueryError
from faq.model import ClubRuling, Entry
from faq.search import KnowledgeBase
from faq.topics import europa_topics, topics_for

from .conftest import ids


def test_for_event_governing_sections_in_order_without_untriggered_sub_sections(
    kb: KnowledgeBase,
) -> None:
    """Merida declares links: rule 8's unnumbered sub-sections (retreats, advances, automatic
    victory) and the conflicts come only where an event's facts call for them."""
    out = kb.for_event("merida", sections=["8", "5"], topics=["combat"], facts=["river"], limit=5)
    assert ids(out["governing"]) == ["merida:8", "merida:5"]
    assert all(g["why"] for g in out["governing"])


def test_for_event_numbered_subsections_follow_their_parent(kb: KnowledgeBase) -> None:
    governing = ids(kb.for_event("backbone", sections=["16"])["governing"])
    assert governing[:3] == ["backbone:16", "backbone:16-1", "backbone:16-2"]
    assert "backbone:16-7" in governing and "backbone:conflict-crt-errata" not in governing


def test_for_event_related_rulings_are_faq_or_club_and_on_the_event_topics(
    kb: KnowledgeBase,
) -> None:
    out = kb.for_event(
        "merida",
        sections=["8"],
        topics=["retreat", "zone of control"],
        facts=["retreat through enemy zone of control"],
        limit=5,
    )
    related = out["related"]
    assert related and len(related) <= 5
    assert {r["kind"] for r in related} <= {"ruling", "club-ruling"}
    assert all("retreat" in r["topics"] or "zoc" in r["topics"] for r in related)


def test_for_event_club_rulings_for_other_rulebooks_are_left_out(tmp_path: Path) -> None:
    kb = KnowledgeBase(tmp_path / "index")
    for rid, doc in (("m", "merida"), ("b", "backbone")):
        kb.add_club_ruling(
            ClubRuling(
                id=rid,
                club="c",
                question=f"zeppelin rule {rid}?",
                answer="zeppelin ok",
                applies_to=doc,
            )
        )
    related = ids(kb.for_event("merida", facts=["zeppelin"], limit=10)["related"])
    assert "club-ruling:m" in related and "club-ruling:b" not in related


def test_for_event_rejects_unknown_rulebook(kb: KnowledgeBase) -> None:
    with pytest.raises(QueryError) as info:
        kb.for_event("monopoly", sections=["1"])
    assert info.value.field == "document"


@pytest.fixture(scope="module")
def conflicts(corpus: Corpus) -> list[Entry]:
    """The conflict entries made from the games' rulebooks."""
    return corpus.conflicts


def test_conflicts_quote_the_corpus_verbatim(conflicts: list[Entry], rulebooks: dict) -> None:
    declared = [f"{r.document}:conflict-{c.key}" for r in rulebooks.values() for c in r.conflicts]
    assert sorted(c.id for c in conflicts) == sorted(declared)
    assert {
        "backbone:conflict-crt-errata",
        "merida:conflict-strategic-movement-modifier",
        "merida:conflict-zoc-to-zoc",
    } <= set(declared)
    for conflict in conflicts:
        text = read(DEFAULT_CORPUS, rulebooks[conflict.document])
        for reading in conflict.extra["readings"]:
            assert reading["quote"] in text, (conflict.id, reading["quote"])


def test_5_vs_8_strategic_movement_says_what_the_merida_engine_applies(
    conflicts: list[Entry],
) -> None:
    """The conflict entry and the rules module agree: rule 8's +2 by default, rule 5 as an option."""
    from service.rules.merida import SYSTEM

    c = next(c for c in conflicts if c.id == "merida:conflict-strategic-movement-modifier")
    assert c.extra["engine_reading"].startswith("rule 8's +2 by default")
    assert "strategic_modifier = -2" in c.extra["option"]
    options = SYSTEM.default_options("merida-1938")
    assert options["strategic_modifier"] == 2


def test_5_vs_7_zoc_to_zoc_says_what_the_merida_engine_applies(conflicts: list[Entry]) -> None:
    """Rule 5's same-enemy-unit reading by default, rule 7's as the option ``zoc_to_zoc = any``."""
    from service.rules.merida import SYSTEM

    c = next(c for c in conflicts if c.id == "merida:conflict-zoc-to-zoc")
    assert c.extra["engine_reading"].startswith("rule 5's reading by default")
    assert "zoc_to_zoc = 'any'" in c.extra["option"]
    assert SYSTEM.default_options("merida-1938")["zoc_to_zoc"] == "same_unit"


def test_backbone_crt_errata_6_to_1_rolls_7_and_8(conflicts: list[Entry]) -> None:
    c = next(c for c in conflicts if c.id == "backbone:conflict-crt-errata")
    assert "-/4" in c.extra["engine_reading"] and "no retreat" in c.extra["engine_reading"]


def test_topics_from_rule_numbers_and_words(entries: dict) -> None:
    assert europa_topics(["5"]) == ["zoc"]
    assert europa_topics(["12C1b"]) == ["supply"]
    assert "supply" not in europa_topics(["1"]) and europa_topics(["40B3a"]) == [
        "reinforcement",
        "replacement",
    ]
    assert topics_for([], "Retreats", "") == ["retreat"]
    assert "zoc" in entries["merida:7"].topics
    assert (
        "supply"
        in entries["fwtbt-faq:rule-12c1-affiliation-of-full-general-supply-cities:q1"].topics
    )
    assert "naval" in entries["fwtbt-faq:rule-33a-naval-gunfire-support:q1"].topics
