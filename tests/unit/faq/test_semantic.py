"""The semantic signal beside BM25 (issue 49): the tokenizer, the embedding and the fusion."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from faq import fusion as fusion_module
from faq.fusion import Fusion
from faq.query import parse
from faq.search import KnowledgeBase
from faq.semantic import Embedder, load_embedder
from faq.semantic.tokenizer import basic_words


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    found = load_embedder()
    assert found is not None, "faq/semantic/tokens.npy and vocab.txt ship with the package"
    return found


def pieces(embedder: Embedder, text: str) -> list[str]:
    names = {i: t for t, i in embedder.tokenizer.vocab.items()}
    return [names[i] for i in embedder.tokenizer.ids(text)]


def test_basic_split_lowers_drops_accents_and_parts_punctuation() -> None:
    assert basic_words("Café naïve, ZOC's 2-1!") == [
        "cafe", "naive", ",", "zoc", "'", "s", "2", "-", "1", "!"
    ]  # fmt: skip


def test_wordpiece_splits_as_the_models_tokenizer_does(embedder: Embedder) -> None:
    # the splits tokenizer.json (the tokenizers library) gives for the same text
    assert pieces(embedder, "unaffable tanks hexes") == [
        "una", "##ffa", "##ble", "tanks", "he", "##xes"
    ]  # fmt: skip
    assert embedder.tokenizer.ids("[") == [embedder.tokenizer.vocab["["]]
    assert pieces(embedder, "x" * 101) == ["[UNK]"]


def test_a_paraphrase_is_closer_than_an_unrelated_question(embedder: Embedder) -> None:
    asked = embedder.vector("can my tanks go over the river")
    paraphrase = embedder.vector("armor may not cross a river except along a road")
    unrelated = embedder.vector("victory points are counted at the end of the game")
    assert float(asked @ paraphrase) > float(asked @ unrelated) + 0.05
    assert float(embedder.vector("!!!") @ embedder.vector("!!!")) >= 0  # no NaN for marks only


def test_without_numpy_or_its_data_the_signal_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_embedder(tmp_path) is None  # no data files there
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy raises ImportError
    assert load_embedder(tmp_path / "elsewhere") is None
    assert not Fusion(None, model=None).on


QUESTIONS = (
    "can my tanks go over the river",
    "what happens to units that run out of supply",
    "how many impulses are there and how do movement points go down each impulse",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_with_the_signal_off_the_ranking_is_bm25s(kb: KnowledgeBase, question: str) -> None:
    engine = kb._engine()
    plan = parse(question)
    compiled = engine.compile(plan)
    off = Fusion(None, model=None)
    assert off.asked(plan, question) is None
    assert off.top(engine, compiled.terms, question, 15, None) == engine.top(
        compiled.terms, 15, None
    )


class FakeEngine:
    """An engine over a few entries: BM25 finds only what ``lexical`` says."""

    def __init__(self, entries: list[dict[str, Any]], lexical: dict[int, float]) -> None:
        self.stored = {n: {} for n in range(len(entries))}
        self.entries = entries
        self.lexical = lexical

    def entry(self, docnum: int) -> dict[str, Any]:
        return self.entries[docnum]

    def scores(self, terms: Any, allowed: Any) -> dict[int, float]:
        return dict(self.lexical)

    def top(self, terms: Any, k: int, allowed: Any) -> list[tuple[int, float]]:
        return sorted(self.lexical.items(), key=lambda x: -x[1])[:k]


FILLER = (
    "Victory points are counted at the end of the last turn.",
    "Each player rolls one die for initiative at the start of the turn.",
    "Reinforcements arrive on the map edge named in the scenario.",
    "Air points may be spent on interdiction or ground support.",
    "A leader adds one to the morale check of units stacked with him.",
    "The weather is rolled for at the start of each month.",
    "Naval transport costs two points per unit carried by sea.",
    "Replacements are taken from the pool in the reinforcement phase.",
    "Headquarters trace command to units within four hexes.",
    "Trenches are built by engineers over two turns.",
    "Artillery barrages are resolved before other combat.",
    "The game ends when either side captures the capital.",
)


def entry(n: int, text: str) -> dict[str, Any]:
    return {"id": f"test:{n}", "heading": f"Rule {n}", "text": text, "answers": []}


def test_an_entry_no_word_matches_is_found_by_meaning(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a dozen entries cannot stand out of their mean as far as one of the corpus's 500 must
    monkeypatch.setattr(fusion_module, "SEMANTIC_FLOOR", 1.5)
    entries = [entry(n, t) for n, t in enumerate(FILLER)]
    entries.append(entry(len(entries), "Armored units may cross a stream only along a road."))
    engine: Any = FakeEngine(entries, {0: 5.0})  # BM25 found only a filler entry
    fusion = Fusion(embedder, model=None)  # the static vectors alone
    found = [d for d, _ in fusion.top(engine, [], "can my tanks go over the river", 5, None)]
    assert found[0] == 0 and len(entries) - 1 in found
    why = fusion.why(engine, entries[-1], "can my tanks go over the river", None)
    assert why == {
        "words": [],
        "asked": None,
        "passage": "Armored units may cross a stream only along a road.",
    }
    # nothing lexical at all: nothing found, as BM25 alone would say
    assert fusion.top(FakeEngine(entries, {}), [], "tanks over the river", 5, None) == []  # type: ignore[arg-type]
