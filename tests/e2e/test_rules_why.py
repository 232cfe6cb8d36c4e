"""Why a rules search result matched, in the answer (issue 49): the question's words the entry
holds, and its sentence closest in meaning to the question."""

from __future__ import annotations

from typing import Any

from faq.expansions import load_asked


def test_each_result_says_why_it_matched(client: Any) -> None:
    body = client.get(
        "/api/rules/search",
        query_string={"q": "can my armor units cross a river hexside", "limit": 5},
    ).get_json()
    assert body["results"]
    for result in body["results"]:
        why = result["why"]
        assert set(why) == {"words", "asked", "passage"}
        assert isinstance(why["words"], list)
        assert why["passage"] is None or why["passage"].strip()
        # how players ask it, only when that holds a word of the question its text does not
        assert why["asked"] is None or why["asked"] in load_asked()[result["id"]]
    top = body["results"][0]["why"]
    assert top["words"] and top["passage"]


def test_a_lookup_of_one_word_shows_the_words_only(client: Any) -> None:
    results = client.get("/api/rules/search", query_string={"q": "zoc"}).get_json()["results"]
    assert results and all(r["why"]["passage"] is None for r in results)
