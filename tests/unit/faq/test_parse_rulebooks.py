"""Each rulebook split into numbered sections, sub-sections, charts, notes and errata."""

from __future__ import annotations

import re

import pytest

from faq.corpus import DEFAULT_CORPUS, Corpus, read
from faq.parse_rulebooks import RulebookParseError, parse_rulebook, split_title


def numbers(corpus: Corpus, document: str) -> list[str]:
    return [e.number for e in corpus.rulebooks[document] if e.extra["numbered"]]


def test_counts_are_pinned(corpus: Corpus) -> None:
    stats = corpus.stats()
    assert {d: stats[d]["sections"] for d in ("merida", "backbone", "bizkaya", "barcelona")} == {
        "merida": 26,
        "backbone": 56,
        "bizkaya": 65,
        "barcelona": 10,
    }
    assert stats["merida"]["by_type"] == {
        "chart": 7, "errata": 1, "intro": 1, "reference": 1, "rule": 16,
    }  # fmt: skip
    assert stats["backbone"]["by_type"]["example"] == 3


def test_merida_rules_1_to_13_and_charts(corpus: Corpus, entries: dict) -> None:
    assert numbers(corpus, "merida") == [str(n) for n in range(1, 14)]
    assert entries["merida:7"].heading == "7 Zones of control"
    assert entries["merida:7"].text.startswith("The six hexes adjacent to a unit")
    assert entries["merida:8-retreats"].heading == "8 Combat: Retreats"
    assert entries["merida:8-retreats"].number == "8"
    assert entries["merida:13"].section_type == "errata"
    crt = entries["merida:chart-combat-results"]
    assert crt.section_type == "chart" and "EX = Exchange" in crt.text
    assert crt.rule_refs == ["8"]  # "see rule 8 on Advance after combat"


def test_backbone_numbered_subsections(corpus: Corpus, entries: dict) -> None:
    nums = numbers(corpus, "backbone")
    assert nums[:9] == ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2"]
    assert nums[-3:] == ["19", "19.1", "19.2"] and len(nums) == 46
    assert entries["backbone:16-5"].heading == "16.5 Last Stand Defense"
    assert entries["backbone:16-5"].text.startswith("The defender in city, mountain")
    assert entries["backbone:14"].heading == "14 Amphibious Invasion"  # "Operations Phase 14. ..."
    errata = entries["backbone:errata-backbone-operation"]
    assert errata.section_type == "errata" and "must be - / 4" in errata.text
    assert entries["backbone:chart-combat-results-table"].text.splitlines()[0].startswith("Combat")
    assert entries["backbone:designer-s-notes"].section_type == "notes"


def test_bizkaya_body_numbers_and_index_numbers(corpus: Corpus, entries: dict) -> None:
    assert numbers(corpus, "bizkaya") == [str(n) for n in range(1, 18)]
    weather = entries["bizkaya:3"]
    assert weather.heading == "3 Weather" and weather.extra["index_number"] == "4"
    assert entries["bizkaya:13-retreats"].heading == "13 Combat & Movement Segment: Retreats"
    assert entries["bizkaya:designer-notes"].section_type == "notes"
    assert entries["bizkaya:the-plans"].section_type == "intro"


def test_barcelona_headings(corpus: Corpus) -> None:
    headings = [e.heading for e in corpus.rulebooks["barcelona"]]
    assert headings == [
        "SEQUENCE OF PLAY", "MOVEMENT", "SHOOTING", "CLOSE COMBAT", "MORALE",
        "WEAPONS LIST", "AFVs", "Troop Type", "Attribute Costs", "GENERATING A COLUMN",
    ]  # fmt: skip


def test_no_rulebook_text_is_lost(corpus: Corpus, rulebooks: dict) -> None:
    """Every word of each rulebook is in some entry, bar two group titles that head no text:
    Merida's "Charts and tables" and the sheet title "BACK TO BARCELONA"."""
    for document in ("merida", "backbone", "bizkaya", "barcelona"):
        source = set(re.findall(r"\w+", read(DEFAULT_CORPUS, rulebooks[document])))
        parsed = " ".join(f"{e.heading} {e.title} {e.text}" for e in corpus.rulebooks[document])
        missing = source - set(re.findall(r"\w+", parsed))
        assert missing <= {"Charts", "BACK", "TO", "BARCELONA"}, (document, sorted(missing))


def test_ids_stable_and_unique(corpus: Corpus, rulebooks: dict) -> None:
    for document, entries in corpus.rulebooks.items():
        again = parse_rulebook(rulebooks[document], read(DEFAULT_CORPUS, rulebooks[document]))
        assert [e.id for e in again] == [e.id for e in entries]
        assert len({e.id for e in entries}) == len(entries)


def test_missing_heading_fails_loudly(rulebooks: dict) -> None:
    merida = rulebooks["merida"]
    text = read(DEFAULT_CORPUS, merida).replace("Automatic victory\n", "Automatic win\n")
    with pytest.raises(RulebookParseError, match="merida: heading not found: 'Automatic victory'"):
        parse_rulebook(merida, text)


def test_split_title() -> None:
    assert split_title("Last Stand Defense. The defender in city") == (
        "Last Stand Defense",
        "The defender in city",
    )
    assert split_title("ZOC and movement: When a unit enters") == (
        "ZOC and movement",
        "When a unit enters",
    )
    long = "German reinforcements arrive in this segment of the game as specified in scenario 1."
    assert split_title(long) == ("", long)  # a sentence is no title: the parent's is used
