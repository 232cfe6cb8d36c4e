"""Search behaviour: stemming, synonyms both ways, rule refs, filters, errors, the result contract."""

from __future__ import annotations

import re

import pytest

from faq.analysis import base_stems, query_tokens
from faq.errors import EntryNotFound, QueryError
from faq.search import KnowledgeBase

from .conftest import ids


def words(result: dict) -> str:
    answers = " ".join(a["text"] for a in result.get("answers", []))
    return " ".join(
        [result["heading"], result.get("question", ""), answers, result.get("text", "")]
    ).lower()


def test_snowball_stemming_maps_running_to_run(kb: KnowledgeBase) -> None:
    assert base_stems("running runs") == ("run", "run")
    results = kb.search("running", limit=20)
    # each result holds the stem, in its text or in the way players ask it (shown as why)
    assert results and all(
        re.search(r"\brun", words(r) + " " + (r["why"]["asked"] or "").lower()) for r in results
    )


def test_players_shorthand_is_one_token() -> None:
    assert "~c/m" in query_tokens("c/m units")
    assert query_tokens("combat motorized units")[:1] == ["~c/m"]


@pytest.mark.parametrize(
    ("query", "other_form", "document"),
    [
        ("ZOC", "zones of control", "bizkaya"),
        ("zones of control", "zoc", None),
        ("die roll modifier", "md", "backbone"),
        ("Rebel", "nationalist", "bizkaya"),
        ("Republican", "loyalist", "fwtbt-faq"),
        ("naval gunfire support", "ngs", "fwtbt-faq"),
    ],
)
def test_synonyms_work_both_ways(
    kb: KnowledgeBase, query: str, other_form: str, document: str | None
) -> None:
    """A query in one form finds entries that only use another form of the same group."""
    results = kb.search(query, limit=100, document=document)

    def has(form: str, text: str) -> bool:
        return re.search(rf"\b{re.escape(form.lower().rstrip('s'))}s?\b", text) is not None

    only_other = [r for r in results if not has(query, words(r)) and has(other_form, words(r))]
    assert only_other, f"{query!r} found nothing written only as {other_form!r}"


def test_rule_ref_query_finds_what_cites_it(kb: KnowledgeBase) -> None:
    results = kb.search("12C1", limit=10)
    assert len(results) == 10
    assert all("12C1" in r["rule_refs"] or "12C1b" in r["rule_refs"] for r in results)
    top = kb.search("rule 39A", limit=5)
    assert all("39A" in r["rule_refs"] for r in top)


def test_rulebook_section_number_query(kb: KnowledgeBase) -> None:
    assert ids(kb.search("16.5", document="backbone"))[0] == "backbone:16-5"
    assert "merida:7" in ids(kb.search("rule 7 zone of control", document="merida", limit=3))


def test_document_filter(kb: KnowledgeBase) -> None:
    for document in ("merida", "backbone", "bizkaya", "barcelona", "fwtbt-faq"):
        results = kb.search("combat retreat", document=document, limit=20)
        assert results and {r["document"] for r in results} == {document}


def test_limit_is_respected_and_order_is_best_first(kb: KnowledgeBase) -> None:
    results = kb.search("supply line through enemy zone of control", limit=7)
    assert len(results) == 7
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_result_contract_for_rulings_and_rules(kb: KnowledgeBase) -> None:
    ruling = kb.search("Aguilas Murcian city", limit=1)[0]
    assert ruling["id"] == "fwtbt-faq:maps:q1"
    assert {"id", "kind", "document", "heading", "rule_refs", "snippet", "score"} <= set(ruling)
    assert ruling["kind"] == "ruling" and ruling["heading"] == "Maps"
    assert ruling["answers"][0]["authority"] == "AEG, Developer"
    assert ruling["answers"][0]["date"] == "1998"
    assert "<mark>" in ruling["snippet"]
    rule = kb.search("last stand defense", document="backbone", limit=1)[0]
    assert rule["kind"] == "rule" and rule["heading"] == "16.5 Last Stand Defense"
    assert rule["number"] == "16.5"


def test_get_returns_the_whole_entry(kb: KnowledgeBase) -> None:
    entry = kb.get("merida:conflict-zoc-to-zoc")
    assert entry["kind"] == "conflict" and entry["extra"]["option"]
    with pytest.raises(EntryNotFound):
        kb.get("merida:no-such-entry")


@pytest.mark.parametrize(
    ("query", "limit", "document", "field"),
    [
        ("", 10, None, "q"),
        ("   ", 10, None, "q"),
        ("?!.,;", 10, None, "q"),
        ("x" * 501, 10, None, "q"),
        ("the of and", 10, None, "q"),
        ("retreat", 0, None, "limit"),
        ("retreat", 101, None, "limit"),
        ("retreat", 10, "monopoly", "document"),
    ],
)
def test_bad_queries_raise_query_error(
    kb: KnowledgeBase, query: str, limit: int, document: str | None, field: str
) -> None:
    with pytest.raises(QueryError) as info:
        kb.search(query, limit=limit, document=document)
    assert isinstance(info.value, ValueError)
    assert info.value.field == field and info.value.reason
