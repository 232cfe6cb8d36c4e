"""Issue 33: rulings of another game -- the FWtBT FAQ is For Whom the Bell Tolls's, a club's ruling
for another game is that game's -- are persuasive, not binding: every result says the game it
belongs to in words (its title) and ``binding: false``, and they rank after the game's own rules,
its conflicts and the club's rulings, in searches and beside an event."""

from __future__ import annotations

import shutil
from pathlib import Path

from faq.model import ClubRuling
from faq.search import KnowledgeBase

from .conftest import ids

PERSUASIVE = "For Whom the Bell Tolls FAQ — another game's ruling: persuasive, not binding"


def test_a_strait_roll_beside_ceuta_gets_europas_danger_zone_rulings_labelled_as_another_games(
    kb: KnowledgeBase,
) -> None:
    """Backbone 11 (the Strait): word similarity brings FWtBT's "34F Danger Zones" rulings about
    Ceuta; each is labelled with the game it belongs to and ranks after Backbone's own rules."""
    results = kb.search("Strait of Gibraltar Ceuta danger zone", limit=30, game="backbone")
    europa = [r for r in results if r["document"] == "fwtbt-faq"]
    assert europa, "the FAQ's danger zone rulings are found"
    for r in europa:
        assert r["binding"] is False and r["belongs_to"] == "For Whom the Bell Tolls"
        assert r["source"] == f"{PERSUASIVE} in Operation Backbone"
        assert "fwtbt" not in r["source"].lower()  # words, not ids
    first_other = min(n for n, r in enumerate(results) if not r["binding"])
    assert all(r["binding"] for r in results[:first_other])
    assert all(not r["binding"] for r in results[first_other:])
    assert results[0]["document"] == "backbone"


def test_the_games_conflicts_rank_before_another_games_rulings(kb: KnowledgeBase) -> None:
    results = kb.search("strategic movement modifier attacked", limit=40, game="merida")
    order = ids(results)
    conflict = order.index("merida:conflict-strategic-movement-modifier")
    europa = [n for n, r in enumerate(results) if r["document"] == "fwtbt-faq"]
    assert europa and conflict < min(europa)


def test_beside_an_event_the_clubs_rulings_come_before_another_games(
    tmp_path: Path, index_dir: Path
) -> None:
    """A Merida retreat through a zone of control: FWtBT's rule 5 ZOC rulings are related by
    their words, and a club's ruling for Merida, however weakly it matches, comes first; the
    FWtBT ones say whose they are and that they do not bind Merida."""
    shutil.copytree(index_dir, tmp_path / "index")
    kb = KnowledgeBase(tmp_path / "index")
    kb.add_club_ruling(
        ClubRuling(
            id="weak",
            club="madrid",
            question="Retreat?",
            answer="Through the zone of control as the rulebook says.",
            applies_to="merida",
        )
    )
    out = kb.for_event(
        "merida",
        sections=["8"],
        topics=["retreat", "zone of control"],
        facts=["retreat through enemy zone of control"],
        limit=8,
    )
    related = out["related"]
    assert related[0]["id"] == "club-ruling:weak" and related[0]["binding"] is True
    europa = [r for r in related if r["document"] == "fwtbt-faq"]
    assert europa
    assert all(r["source"] == f"{PERSUASIVE} in Closing the Merida Pocket" for r in europa)
    assert all(r["binding"] is False for r in europa)
    binding = [r["binding"] for r in related]
    assert binding == sorted(binding, reverse=True)  # the binding ones first
    assert all(g["binding"] for g in out["governing"])
