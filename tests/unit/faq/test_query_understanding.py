"""Issue 15: scoped search (a game given or named), labels, misspellings, derived forms, long
questions, the synonym table's misfire, and overruled rulings."""

from __future__ import annotations

import pytest

from faq.analysis import query_tokens
from faq.engine import root
from faq.errors import QueryError
from faq.query import find_game
from faq.search import KnowledgeBase

from .conftest import ids


def test_a_game_scope_puts_its_rulebook_first_then_clubs_then_the_rest(kb: KnowledgeBase) -> None:
    results = kb.search("retreat through enemy zone of control", limit=60, game="merida")
    scopes = [r["scope"] for r in results]
    assert scopes[0] == "game" and "fwtbt" in scopes and "other-game" in scopes
    order = {"game": 0, "club": 1, "fwtbt": 2, "other-game": 2}
    assert [order[s] for s in scopes] == sorted(order[s] for s in scopes)
    assert all(r["document"] == "merida" for r in results if r["scope"] == "game")


def test_every_result_is_labelled_with_its_source(kb: KnowledgeBase) -> None:
    results = kb.search("retreat", limit=30, game="merida")
    labels = {(r["scope"], r["source"]) for r in results}
    assert ("game", "Closing the Merida Pocket rulebook") in labels
    # issue 33: another game's ruling says which game, in words, and that it does not bind
    persuasive = "For Whom the Bell Tolls FAQ — another game's ruling: persuasive, not binding"
    assert ("fwtbt", f"{persuasive} in Closing the Merida Pocket") in labels
    assert all(r["binding"] is (r["scope"] in ("game", "club")) for r in results)
    assert {r["belongs_to"] for r in results if r["scope"] == "fwtbt"} == {
        "For Whom the Bell Tolls"
    }
    assert any(s == "other-game" and src.endswith("rulebook (another game)") for s, src in labels)
    unscoped = kb.search("retreat", limit=5)
    assert all(r["scope"] and r["source"] for r in unscoped)


def test_a_game_named_in_the_question_scopes_it(kb: KnowledgeBase) -> None:
    named = kb.search("in Merida, how far do units retreat", limit=5)
    assert named[0]["document"] == "merida" and named[0]["scope"] == "game"
    assert ids(named) == ids(kb.search("how far do units retreat", limit=5, game="merida"))
    assert find_game("in Merida, how far?", {"merida": ("merida",)}) == ("merida", "how far?")
    # Barcelona is a city in the FWtBT FAQ: only the game's title names the game
    assert kb.search("supply in Barcelona", limit=3)[0]["scope"] == "fwtbt"
    assert kb.search("back to barcelona close combat", limit=1)[0]["id"] == "barcelona:close-combat"


def test_an_unknown_game_is_a_query_error_naming_game(kb: KnowledgeBase) -> None:
    with pytest.raises(QueryError) as err:
        kb.search("retreat", game="chess")
    assert err.value.field == "game"


def test_misspellings_find_the_word_meant(kb: KnowledgeBase) -> None:
    assert "merida:8-retreats" in ids(kb.search("retreeting in merida", limit=3))
    assert ids(kb.search("reinforcments", limit=5))  # no entry holds the misspelling
    assert "backbone:16-5" in ids(kb.search("last stnad defense", limit=3))


def test_derived_forms_share_a_root() -> None:
    assert root("movement") == root("move")
    assert root("defens") == root("defenc") == root("defend")


def test_a_long_pasted_question_keeps_its_informative_words(kb: KnowledgeBase) -> None:
    long = (
        "Hi all, we had a long argument last night in our club game and we could not agree, so "
        "I am asking here: when my unit has to retreat after combat and every hex around it is "
        "in an enemy zone of control, what happens to the unit, is it eliminated or does it stay?"
    )
    engine = kb._engine()
    from faq.query import parse

    compiled = engine.compile(parse(long))
    assert compiled.dropped and len({t[1] for t in compiled.terms if t[0] == "content"}) <= 24
    assert {"merida:8-retreats", "backbone:16-7", "bizkaya:13-retreats"} & set(
        ids(kb.search(long, limit=5))
    )


def test_re_words_are_not_the_unit_size_re() -> None:
    assert "~re" not in query_tokens("can a unit re-enter the hex")
    assert "~re" in query_tokens("how many REs fit on a naval transport")


def test_overruled_rulings_are_shown_and_ranked_below_their_replacement(
    kb: KnowledgeBase,
) -> None:
    rail = "fwtbt-faq:rule-7a-and-39a-rail-movement-and-pacification:"
    results = kb.search("rail through an unpacified city without its garrison", limit=10)
    found = ids(results)
    assert rail + "q1" in found and rail + "q2" in found
    assert found.index(rail + "q2") < found.index(rail + "q1")
    old = next(r for r in results if r["id"] == rail + "q1")
    assert old["overruled"] and old["overruled_by"] == rail + "q2"
    assert old["answers"][0]["overruled"] and "overruled" in old["answers"][0]["note"]


def test_the_games_topic_names_meet_the_index_topic_keywords() -> None:
    from faq.query import topic_keyword
    from faq.topics import TOPICS

    for name in ("zone of control", "air units", "set up", "victory points", "reinforcements"):
        assert topic_keyword(name) in TOPICS, name


def test_snippets_below_the_top_ones_take_the_first_match_window() -> None:
    from faq.snippets import snippet, term_pattern

    text = "alpha retreat " + "filler " * 60 + "retreat zone control zone"
    pattern = term_pattern(["retreat", "zone", "control"])
    assert snippet(text, pattern, best=False).startswith("alpha <mark>retreat</mark>")
    assert "<mark>control</mark>" in snippet(text, pattern)  # the best window: most words
