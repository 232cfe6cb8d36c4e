"""The questions players ask of each entry (issue 49, ``faq.expansions``): loaded and checked line
by line, indexed in their own field, found by a player's wording the entry's text does not hold,
and shown as why the entry matched."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import faq.corpus
import faq.expansions
from faq.corpus import DEFAULT_CORPUS, load_corpus
from faq.expansions import MAX_ASKED, AskedError, asked_or_none, load_asked
from faq.search import KnowledgeBase

TARGET = "fwtbt-faq:maps:q2"  # the map's spelling of Oviedo


def write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_the_shipped_file_gives_every_shipped_entry_its_questions() -> None:
    asked = load_asked()
    entries = load_corpus(DEFAULT_CORPUS).entries
    assert {e.id for e in entries} == set(asked)
    assert all(3 <= len(e.asked) <= MAX_ASKED for e in entries)


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ("not json", "not JSON"),
        (json.dumps(["a list"]), 'an object with an "id"'),
        (json.dumps({"id": "x", "asked": []}), '"asked" must be 1 to'),
        (json.dumps({"id": "x", "asked": ["ok", 3]}), '"asked" must be 1 to'),
        (json.dumps({"id": "x", "asked": ["x" * 301]}), '"asked" must be 1 to'),
    ],
)
def test_a_bad_line_is_refused_naming_it(tmp_path: Path, row: str, reason: str) -> None:
    path = tmp_path / "asked.jsonl"
    path.write_text(json.dumps({"id": "a", "asked": ["fine"]}) + "\n" + row + "\n")
    with pytest.raises(AskedError, match=f"line 2: {reason}"):
        load_asked(path)


def test_an_entry_given_twice_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "asked.jsonl", [{"id": "a", "asked": ["one"]}] * 2)
    with pytest.raises(AskedError, match="line 2: a is given twice"):
        load_asked(path)


def test_a_bad_file_leaves_the_index_to_the_texts_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "asked.jsonl"
    path.write_text("{oops\n")
    with caplog.at_level(logging.ERROR):
        assert asked_or_none(path) == {}
    assert "the asked questions are not used" in caplog.text
    assert asked_or_none(tmp_path / "absent.jsonl") == {}


def test_a_players_wording_finds_the_entry_by_how_players_ask_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words in no entry's text ("gazetteer blooper") find the entry whose asked questions hold
    them, and the result says so; without the questions the entry is not found."""
    asked = write(
        tmp_path / "asked.jsonl",
        [{"id": TARGET, "asked": ["gazetteer blooper on the Asturias capital's name"]}],
    )
    monkeypatch.setattr(faq.expansions, "ASKED_FILE", asked)
    monkeypatch.setattr(faq.corpus, "ASKED_FILE", asked)
    monkeypatch.setattr(faq.corpus, "asked_or_none", lambda: asked_or_none(asked))
    kb = KnowledgeBase(tmp_path / "index")
    results = kb.search("gazetteer blooper", limit=5)
    assert [r["id"] for r in results][:1] == [TARGET]
    assert results[0]["why"]["asked"] == "gazetteer blooper on the Asturias capital's name"

    asked.write_text("")  # the questions taken away: the index is rebuilt from the texts alone
    alone = KnowledgeBase(tmp_path / "index").search("gazetteer blooper", limit=10)
    assert TARGET not in [r["id"] for r in alone]
