"""The sentence model beside BM25 and the static vectors (issue 49, ``faq/semantic/model.py``):
all-MiniLM-L6-v2 run by ONNX Runtime, its vectors kept with the index and shipped for the corpus,
blended into the ranking; off, and the search going on, without ONNX Runtime or its file."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faq.corpus import DEFAULT_CORPUS, load_corpus
from faq.fusion import Fusion
from faq.search import KnowledgeBase
from faq.semantic import kept, load_embedder
from faq.semantic.model import (
    DATA_DIR,
    MODEL_FILE,
    VOCAB_FILE,
    ModelPassages,
    SentenceModel,
    entry_texts,
    load_model,
)

from .conftest import current


@pytest.fixture(scope="module")
def model() -> SentenceModel:
    found = load_model()
    assert found is not None, "make setup installs onnxruntime; minilm.onnx ships in faq/semantic"
    return found


class Counting(SentenceModel):
    """The shipped model, counting the texts it embeds."""

    def __init__(self, shipped: SentenceModel) -> None:
        super().__init__(shipped.session, shipped.tokenizer, shipped.model_path)
        self.embedded: list[str] = []

    def embed(self, texts: Any) -> np.ndarray:
        self.embedded += list(texts)
        return super().embed(texts)


def test_a_question_is_closer_to_its_paraphrase_than_to_an_unrelated_rule(
    model: SentenceModel,
) -> None:
    asked, paraphrase, unrelated = model.embed(
        [
            "can my tanks go over the river",
            "armored units may not cross a river hexside except along a road",
            "victory points are counted for each city held at the end of the game",
        ]
    )
    assert asked.shape == (384,)
    assert abs(float(np.linalg.norm(asked)) - 1.0) < 1e-3
    assert float(asked @ paraphrase) > float(asked @ unrelated) + 0.3
    # a text's vector is its own, whatever it is embedded with
    assert np.array_equal(model.vector("can my tanks go over the river"), asked)


def test_it_reads_a_sentence_not_a_bag_of_words(model: SentenceModel) -> None:
    # the same words, another meaning: the static vectors (a mean of the words) cannot tell them
    a, b, c = model.embed(
        [
            "the defender retreats before the attacker advances",
            "the attacker advances before the defender retreats",
            "the defender is eliminated and cannot retreat",
        ]
    )
    static = load_embedder()
    assert static is not None
    same_words = float(
        static.vector("the defender retreats before the attacker advances")
        @ static.vector("the attacker advances before the defender retreats")
    )
    assert same_words > 0.999
    assert float(a @ b) < 0.999 and float(a @ c) < float(a @ b)


def test_an_entry_is_as_close_as_its_closest_text_whole_or_as_players_ask_it(
    model: SentenceModel,
) -> None:
    entries = [
        {"id": "t:0", "heading": "Weather", "text": "Roll for the weather each month."},
        {
            "id": "t:1",
            "heading": "Rivers",
            "text": "Armored units may cross a river hexside only along a road.",
        },
        {
            "id": "t:2",
            "heading": "Supply",
            "text": "Units out of supply lose one step each turn.",
            "asked": ["what if my troops run out of food and ammo"],
        },
    ]
    passages = ModelPassages(model, enumerate(entries))
    assert passages.texts == [
        "Weather\nRoll for the weather each month.",
        "Rivers\nArmored units may cross a river hexside only along a road.",
        "Supply\nUnits out of supply lose one step each turn.",
        "what if my troops run out of food and ammo",
    ]
    close = passages.closeness(model.vector("my soldiers have no food or ammunition left"))
    assert max(close, key=close.__getitem__) == 2
    assert min(close.values()) == 0.0  # below the entries' mean counts nothing
    tanks = passages.closeness(model.vector("can tanks go over a river"))
    assert max(tanks, key=tanks.__getitem__) == 1


def test_the_shipped_vectors_hold_every_text_of_the_shipped_corpus(model: SentenceModel) -> None:
    """Stale after the corpus, its parsers or the asked questions change: then run
    ``python -m faq.semantic.export --shipped`` (an index build would embed them, 16 s)."""
    shipped = model.shipped
    assert shipped is not None, "shipped-sentences.npz missing or made by another model"
    texts = [t for e in load_corpus(DEFAULT_CORPUS).entries for t in entry_texts(e.as_dict())]
    found, rows = shipped.find(texts)
    assert len(found) == len(texts), f"{len(texts) - len(found)} texts are not in it"
    sample = [texts[n] for n in found[:3]] + [texts[found[-1]]]
    fresh = model.embed(sample)
    stored = shipped.vectors[[rows[0], rows[1], rows[2], rows[-1]]]
    assert np.allclose(fresh, stored, atol=1e-4)


def test_a_new_process_embeds_only_the_question_with_the_vectors_kept(
    index: Path, model: SentenceModel
) -> None:
    assert (current(index) / kept.MODEL_FILE).exists()  # kept when the index was built
    counting = Counting(model)
    kb = KnowledgeBase(index)
    kb.fusion = Fusion(load_embedder, kept=lambda: current(index), model=counting)
    assert kb.search("can my tanks go over the river")
    assert counting.embedded == ["can my tanks go over the river"]


def test_a_club_ruling_is_embedded_once_when_added_and_kept(
    index: Path, model: SentenceModel
) -> None:
    from faq.model import ClubRuling

    ruling = ClubRuling(
        id="r-ford",
        club="madrid",
        question="May a column ford the Tagus in the dry season?",
        answer="Yes, at any river hexside, for one extra movement point.",
        authority="Madrid club referee",
        date="2026-12-01",
    )
    writer = KnowledgeBase(index)
    counting = Counting(model)
    writer.fusion = Fusion(load_embedder, kept=writer.store.current, model=counting)
    writer.add_club_ruling(ruling)
    assert len(counting.embedded) == 1 and "Tagus" in counting.embedded[0]  # the rest shipped
    stored = kept.load(current(index), model, kept.MODEL_FILE)
    assert stored is not None and stored.find(counting.embedded)[0] == [0]


def test_the_model_lifts_an_entry_players_ask_in_other_words(index: Path) -> None:
    question = "bizkaya what does demoralised mean for my units"  # development set, issue 49
    with_model = [r["id"] for r in KnowledgeBase(index).search(question, limit=5)]
    assert with_model[0] == "bizkaya:6-demoralization"
    before = KnowledgeBase(index)
    before.fusion = Fusion(load_embedder, kept=before.store.current, model=None)
    without = [r["id"] for r in before.search(question, limit=5)]
    assert without[0] != "bizkaya:6-demoralization"


def test_without_onnxruntime_or_the_model_file_the_model_is_off_and_the_search_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, index: Path
) -> None:
    caplog.set_level(logging.INFO, logger="faq.semantic.model")
    assert load_model(tmp_path / "empty") is None  # no vocabulary, no model there
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    shutil.copyfile(DATA_DIR / VOCAB_FILE, damaged / VOCAB_FILE)
    (damaged / MODEL_FILE).write_bytes(b"not a model")
    assert load_model(damaged) is None
    assert "sentence model off" in caplog.text
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime raises
    assert load_model(tmp_path / "elsewhere") is None
    assert "ONNX Runtime is not installed" in caplog.text
    off = Fusion(load_embedder, model=load_model(tmp_path / "elsewhere"))
    assert off.model is None and off.on and off.files == [kept.FILE]
    kb_off = KnowledgeBase(index)
    kb_off.fusion = off
    assert kb_off.search("can my tanks go over the river")  # BM25 and the static vectors


def test_an_index_of_a_release_without_the_model_gets_its_vectors_when_opened(
    index: Path,
) -> None:
    (current(index) / kept.MODEL_FILE).unlink()  # built before the sentence model shipped
    KnowledgeBase(index)  # opening it (a server starting) keeps them, under the index's lock
    assert (current(index) / kept.MODEL_FILE).exists()
