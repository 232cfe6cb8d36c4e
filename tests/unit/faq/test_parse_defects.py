"""Issue 15's parse defects, one test each: each fails on the parser before the fix."""

from __future__ import annotations

from faq.corpus import Corpus
from faq.index import document_fields
from faq.parse_fwtbt import parse_signature

F = "fwtbt-faq:"
NIGHT = F + "rule-28-night-movement-across-naval-movement-step-boundaries"


def test_further_elaboration_is_a_second_answer_not_a_phantom_question(corpus: Corpus) -> None:
    rulings = [e for e in corpus.faq.entries if e.id.startswith(NIGHT + ":")]
    assert [e.id for e in rulings] == [NIGHT + ":q1"]
    answers = rulings[0].answers
    assert len(answers) == 2 and answers[1].text.startswith("Further elaboration:")
    assert answers[1].authority == "DAT, Rules Judge"
    assert "Further elaboration" not in rulings[0].question


def test_copyright_footer_is_not_part_of_the_last_ruling(corpus: Corpus) -> None:
    last = corpus.faq.entries[-1]
    assert "Copyright" not in last.answer_text and "Belli Ludi" not in last.answer_text
    assert last.answer_text.endswith("player turn).")
    assert corpus.faq.footer.startswith("Belli Ludi © Copyright")


def test_sub_sections_keep_their_parent_heading_refs_and_words(
    corpus: Corpus, entries: dict[str, object]
) -> None:
    port = entries[F + "also-27b1-port-arrivals:q1"]
    assert port.rule_refs[:2] == ["34F", "27B1"] and "34F" in port.heading_refs
    assert port.extra["parent_heading"] == "Rule 34F -- Danger Zones"
    ob = [s for s in corpus.faq.sections if s.parent and s.parent.heading.startswith("Variable")]
    assert len(ob) == 8
    fields = document_fields(entries[F + "loyalist-ob-calculating-arp-rates:q1"])
    assert "Variable Rebellion Ramifications" in fields["heading"]


def test_answers_signed_by_a_later_signature_say_so(corpus: Corpus) -> None:
    shared = {e.id for e in corpus.faq.entries for a in e.answers if a.shared_signature}
    rail = F + "rules-7a3-and-43c2-initial-rail-capacities-in-the-orders-of:"
    # A1 (to q2) and A2 (to q3) are signed by the one signature after A3
    assert {rail + "q2", rail + "q3"} <= shared and rail + "q4" not in shared
    assert len(shared) == 9
    for e in corpus.faq.entries:
        last = e.answers[-1] if e.answers else None
        if last is not None and not last.shared_signature:
            assert last.authority  # signed by the signature right after it


def test_answer_markers_are_not_indexed_as_words(entries: dict[str, object]) -> None:
    port = entries[F + "also-27b1-port-arrivals:q1"]
    assert "a1:" in port.answer_text.lower()  # kept in the text: answers refer to them
    content = document_fields(port)["content"]
    assert "a1:" not in content.lower() and "q1:" not in content.lower()


def test_overruled_answers_are_marked_and_linked_to_their_replacement(
    entries: dict[str, object],
) -> None:
    rail = F + "rule-7a-and-39a-rail-movement-and-pacification:"
    old, new = entries[rail + "q1"], entries[rail + "q2"]
    assert old.answers[0].overruled and old.extra["overruled"]
    assert old.extra["overruled_by"] == rail + "q2" and new.extra["overrules"] == [rail + "q1"]
    assert not new.answers[0].overruled and "overruled" not in new.extra


def test_authority_names_are_normalised(corpus: Corpus) -> None:
    names = corpus.stats()["fwtbt-faq"]["by_authority"]
    assert "RCV" not in names and "JAM" not in names
    assert names["RCV, Rules Guru"] == 4 and names["JAM, Designer"] == 4
    assert parse_signature("[JAM]").authority == "JAM, Designer"


def test_backbone_13_sub_sections_take_their_titles_from_13(entries: dict[str, object]) -> None:
    headings = [entries[f"backbone:13-{n}"].heading for n in (1, 2, 3)]
    assert headings == ["13.1 Reinforcements", "13.2 Replacements", "13.3 Fortifications"]
    # the sentence stays in the text, not in the (boosted) heading
    assert entries["backbone:13-1"].text.startswith("German reinforcements arrive")


def test_backbone_16_7_title_is_whole(entries: dict[str, object]) -> None:
    assert entries["backbone:16-7"].title == (
        "Withdrawals (or Retreats), advance after combat and exploitation"
    )


def test_bizkaya_index_numbers_are_all_there(corpus: Corpus) -> None:
    numbered = [e for e in corpus.rulebooks["bizkaya"] if e.extra.get("numbered")]
    tops = [e for e in numbered if "." not in (e.number or "")]
    # the index has an untitled "3." more: from body 3 Weather (index 4) on, it runs one ahead
    assert {e.number: e.extra.get("index_number") for e in tops if int(e.number) >= 3} == {
        str(n): str(n + 1) for n in range(3, 18)
    }
    assert next(e for e in tops if e.number == "13").extra["contents_title"] == (
        "Move and fight segment"
    )


def test_backbone_contents_names_are_searchable(kb: object) -> None:
    for words, wanted in (("land movement", "backbone:15"), ("fighting", "backbone:16")):
        top = [r["id"] for r in kb.search(words, limit=3, document="backbone")]
        assert wanted in top, (words, top)
