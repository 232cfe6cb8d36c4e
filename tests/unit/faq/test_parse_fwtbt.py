"""The FWtBT FAQ parsed whole: counts pinned, entries checked from start, middle and end."""

from __future__ import annotations

from faq.corpus import DEFAULT_CORPUS, Corpus
from faq.parse_fwtbt import parse_fwtbt, parse_signature

F = "fwtbt-faq:"


def test_counts_are_pinned(corpus: Corpus) -> None:
    stats = corpus.stats()["fwtbt-faq"]
    assert stats["sections"] == 215
    # 325: rule 28's "Further elaboration" is a second answer, not a question
    assert stats["questions"] == 325
    assert stats["answers"] == 362
    assert stats["signed_answers"] == 362  # every answer is covered by a signature
    assert stats["authorities"] == 8  # "RCV" and "RCV, Rules Guru" are one
    assert stats["refs"] == 163
    assert stats["by_authority"]["AEG, Developer"] == 177
    assert stats["by_authority"]["DPS, Rules Judge"] == 102
    assert stats["by_authority"]["Rules Court"] == 27
    assert stats["by_authority"]["Official Erratum"] == 15


def test_every_separator_block_and_subsection_becomes_a_section(corpus: Corpus) -> None:
    text = (DEFAULT_CORPUS / "fwtbt-faq.txt").read_text(encoding="utf-8")
    separators = sum(1 for line in text.split("\n") if line.startswith("-----"))
    headings = [s.heading for s in corpus.faq.sections]
    # 203 separators + Maps/Narrow Straits before the first + 8 more OB sub-sections
    # + the two sub-sections inside blocks (30A6 cargo, 27B1 port arrivals) - the Rules group
    assert separators == 203
    assert len(headings) == separators + 2 + 8 + 2
    assert headings[:4] == [
        "Maps",
        "Narrow Straits",
        "Counters",
        "Master Terrain Key -- Major City Terrain Type",
    ]
    assert "Rule 12C1 -- Affiliation of Full General Supply Cities" in headings
    assert "30A6 -- Inter-turn Status of Cargo NGs on a River/Canal" in headings
    assert all(s.questions for s in corpus.faq.sections)


def test_start_maps_section(entries: dict) -> None:
    q = entries[F + "maps:q1"]
    assert q.heading == "Maps" and q.group is None
    assert q.question == "Aguilas is not an Andalucian city, but rather a Murcian city?"
    (a,) = q.answers
    assert a.text.startswith("Yes, Aguilas is a Murcian city.")
    assert (a.authority, a.initials, a.date, a.date_iso) == (
        "AEG, Developer",
        "AEG",
        "1998",
        "1998",
    )


def test_question_signed_without_an_answer_line(entries: dict) -> None:
    q = entries[F + "maps:q2"]
    assert q.answers == []
    assert q.extra["question_signed"]["authority"] == "AEG, Developer"


def test_several_answers_each_with_its_signature(entries: dict) -> None:
    q = entries[F + "counters:q3"]
    assert [(a.authority, a.date) for a in q.answers] == [
        ("DPS, Rules Judge", "17-Sep-03"),
        ("AEG, Developer", "03-Mar-04"),
    ]


def test_official_erratum_and_rules_court_signatures(entries: dict) -> None:
    erratum = entries[F + "counters:q2"].answers[0]
    assert (erratum.authority, erratum.date_iso) == ("Official Erratum", "1996-06-01")
    assert "1x Vild" in erratum.text  # the inline counter table is kept as text
    court = entries[F + "master-terrain-key-major-city-terrain-type:q1"].answers[0]
    assert (court.authority, court.source, court.date) == ("Rules Court", "TEM 62", None)


def test_signature_forms() -> None:
    a = parse_signature("[DPS, Rules Judge, 24-Jun-05]")
    assert (a.authority, a.initials, a.date_iso) == ("DPS, Rules Judge", "DPS", "2005-06-24")
    b = parse_signature("[Official Erratum, 01-Jun-96] –Note, overruled later.")
    assert b.note == "Note, overruled later." and b.date_iso == "1996-06-01"
    c = parse_signature("[RCV] & [JAM]")
    assert c.authority == "RCV, Rules Guru & JAM, Designer" and c.initials == "RCV & JAM"
    d = parse_signature("[DPS, Rules Judge, 27-Jan-05 and 13-Jun-05]")
    assert d.date == "27-Jan-05 and 13-Jun-05" and d.date_iso == "2005-01-27"


def test_orders_of_battle_group_and_quoted_errata(entries: dict) -> None:
    q = entries[F + "variable-rebellion-ramifications:q2"]
    assert q.group == "Orders Of Battle"
    assert "Disband: 1x 1-0 Art X Mahon to:" in q.answers[0].text
    assert q.answers[0].date == "01-Oct-05"


def test_middle_q_a_parts_and_quoted_rule_text(entries: dict) -> None:
    q = entries[F + "rules-5-37c1-and-37d-restrictions-on-projection-of-zones-of:q1"]
    assert q.question.startswith('"A unit prohibited from entering a specific terrain type')
    assert "Q.a) political restriction" in q.question
    assert q.answers[0].text.startswith("A.a) No.")
    assert q.rule_refs[:3] == ["5", "37C1", "37D"]
    qc = entries[F + "rules-5-37c1-and-37d-restrictions-on-projection-of-zones-of:q3"]
    assert qc.question.startswith("Q.c:") and qc.answers[0].authority == "DPS, Rules Judge"


def test_middle_q1_q2_share_one_answer(entries: dict) -> None:
    q = entries[F + "rules-6b-20f-administrative-movement-and-air-transport:q1"]
    assert q.question.startswith("Q1. Okay to use all a unit's MPs")
    assert "Q2. Okay to use administrative movement" in q.question
    assert q.answers[0].text == "Yes to both since neither violates the restrictions of 6B."
    assert q.rule_refs[:2] == ["6B", "20F"]


def test_middle_a1a_a1b_answers(entries: dict) -> None:
    q = entries[F + "rule-6b-administrative-movement-in-neutral-hexes:q1"]
    assert [(a.text[:4], a.authority, a.date) for a in q.answers] == [
        ("A1a.", "DPS, Rules Judge", "14-Feb-06"),
        ("A1b.", "AEG, Developer", "14-Feb-06"),
    ]


def test_middle_question_without_q_marker(entries: dict) -> None:
    q = entries[F + "rules-37e-38a-and-38b-phasing-of-government-events:q1"]
    assert q.question.startswith("Loyalist side gains ownership of Insurgent government hex")
    assert q.answers[0].text == "Correct."
    assert q.rule_refs[:3] == ["37E", "38A", "38B"]


def test_one_signature_signs_the_answers_before_it(entries: dict) -> None:
    key = F + "rule-12c1-no-republican-supply-for-gobernito-units"
    for n in (1, 2, 3):
        assert entries[f"{key}:q{n}"].answers[0].authority == "DPS, Rules Judge"
        assert entries[f"{key}:q{n}"].answers[0].date == "22-Aug-05"


def test_end_of_faq(corpus: Corpus, entries: dict) -> None:
    last = corpus.faq.sections[-1]
    assert last.heading == "Rule 44J, 2nd paragraph -- Quarter-Year Boundary for French Assistance"
    q = last.questions[-1]
    assert q.rule_refs == ["44J"]
    assert (q.answers[0].authority, q.answers[0].date) == ("AEG, Developer", "08-Apr-04")
    assert entries[F + "rule-44h-variable-beginning-to-the-rebellion:q1"].question.startswith(
        "If Cartagena rebels"
    )


def test_ids_are_unique_and_survive_a_reparse(corpus: Corpus) -> None:
    text = (DEFAULT_CORPUS / "fwtbt-faq.txt").read_text(encoding="utf-8")
    again = [e.id for e in parse_fwtbt(text).entries]
    first = [e.id for e in corpus.faq.entries]
    assert again == first
    assert len(set(first)) == len(first)
    # repeated headings get -2
    assert F + "rule-12c1b-1st-bullet-2:q1" in first
