"""BM25 and the semantic signal fused (issue 49): a question in a player's own words finds the
entry that says it in the rulebook's words.

An entry's fused score is its BM25F score plus ``SEMANTIC_WEIGHT`` times the query's best BM25F
score times its closeness to the question (:mod:`faq.semantic`: the cosine in standard deviations
above the entries' mean): a blend in BM25's own scale, so the score factors and buckets applied
afterwards work as before.  Entries no query word matches join only when they are among the
``SEMANTIC_ONLY`` closest and at least ``SEMANTIC_FLOOR`` close.  The weights were tuned on the
development set (``bench/data/devset.json``) only; reciprocal rank fusion (k 10..60) was tried
there first and lowered MRR (0.86 -> 0.72..0.82): the semantic ranking alone is much weaker than
BM25's, and RRF gives both an equal say.

The sentence model (:mod:`faq.semantic.model`, all-MiniLM-L6-v2 by ONNX Runtime) is blended in
the same way after it, at ``MODEL_WEIGHT`` of the best score so far, its closeness likewise in
standard deviations above the entries' mean.  Alone it ranks a right entry first for far more
questions than the static vectors (development set MRR 0.86 against 0.68), and reads a question
as a sentence.  The weight was chosen on the development set only (MRR 0.924 -> 0.952, Recall@5
0.958 -> 0.963 at 0.2, with texts batched; each text embedded alone since, as kept vectors need:
0.941 / 0.963, 0.937..0.950 from 0.1 to 0.4; weighted reciprocal rank fusion gave at best
0.942 / 0.956).

Without the signals (numpy, ONNX Runtime or the data files absent) the ranking is BM25's.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faq.engine import Engine
from faq.query import Plan, Term
from faq.semantic import Embedder, load_embedder
from faq.semantic.kept import FILE as KEPT_STATIC
from faq.semantic.kept import MODEL_FILE as KEPT_MODEL
from faq.semantic.model import SentenceModel, load_model

if TYPE_CHECKING:
    import numpy as np

    from faq.semantic.model import ModelPassages
    from faq.semantic.passages import Passages

#: the semantic part's weight, against the query's best BM25F score (dev set: 0.15 of 0.05..1.2)
SEMANTIC_WEIGHT = 0.15
#: entries no query word matches: at most this many, each at least SEMANTIC_FLOOR standard
#: deviations closer than the entries' mean
SEMANTIC_ONLY = 3
SEMANTIC_FLOOR = 2.5
#: a question of fewer words (stems or synonym groups) is searched by BM25 alone
MIN_WORDS = 3
#: the matched words shown as why an entry matched
MAX_WHY_WORDS = 6
#: the sentence model's weight, blended the same way after the static signal (dev set: 0.2 of
#: 0.05..0.5; reciprocal rank fusion, K 5..60 and weight 0.3..0.7, gave less)
MODEL_WEIGHT = 0.2


class Fusion:
    """The semantic side of a knowledge base's search, its passages built once per engine (per
    opened index), from the vectors kept with the index (``kept``: the generation in use, or
    ``None``) where they are there."""

    def __init__(
        self,
        embedder: Embedder | None | Callable[[], Embedder | None] = load_embedder,
        kept: Callable[[], Path | None] = lambda: None,
        model: SentenceModel | None | Callable[[], SentenceModel | None] = load_model,
    ):
        self.embedder = embedder() if callable(embedder) else embedder
        self.model = model() if callable(model) else model
        self.kept = kept
        #: (engine, its entries' vectors): one tuple, replaced whole, so a thread never pairs one
        #: engine with another's vectors
        self._built: tuple[Engine, Passages] | None = None
        self._model_built: tuple[Engine, ModelPassages] | None = None

    @property
    def on(self) -> bool:
        return self.embedder is not None or self.model is not None

    @property
    def files(self) -> list[str]:
        """The kept-vectors files an index generation holds for the signals that are on."""
        signals = ((KEPT_STATIC, self.embedder), (KEPT_MODEL, self.model))
        return [file for file, signal in signals if signal is not None]

    def model_passages(self, engine: Engine) -> ModelPassages | None:
        """The sentence model's vectors of ``engine``'s entries (made on first use after a
        reopen: from the index's kept file, the shipped vectors, the model for the rest)."""
        if self.model is None:
            return None
        built = self._model_built
        if built is None or built[0] is not engine:
            built = self._model_built = (engine, self._model_made(engine, self.kept()))
        return built[1]

    def _model_made(self, engine: Engine, gen: Path | None) -> ModelPassages:
        from faq.semantic import kept
        from faq.semantic.model import ModelPassages

        assert self.model is not None
        entries = ((d, engine.entry(d)) for d in sorted(engine.stored))
        here = kept.load(gen, self.model, kept.MODEL_FILE)
        return ModelPassages(self.model, entries, here, self.model.shipped)

    def passages(self, engine: Engine) -> Passages | None:
        """The entries' vectors for ``engine``'s index (built on first use after a reopen)."""
        if self.embedder is None:
            return None
        built = self._built
        if built is None or built[0] is not engine:
            built = self._built = (engine, self._made(engine, self.kept()))
        return built[1]

    def _made(self, engine: Engine, gen: Path | None) -> Passages:
        from faq.semantic import kept
        from faq.semantic.passages import Passages

        assert self.embedder is not None
        entries = ((d, engine.entry(d)) for d in sorted(engine.stored))
        return Passages(self.embedder, entries, kept.load(gen, self.embedder))

    def keep(self, engine: Engine, gen: Path) -> None:
        """Keep the vectors of ``engine``'s entries in the index generation ``gen`` (its writer
        calls this, under the index's lock, after each change; a search never does)."""
        from faq.semantic import kept

        if self.embedder is not None:
            texts, rows = self._made(engine, gen).texts_and_rows()
            kept.save(gen, self.embedder, texts, rows)
        if self.model is not None:
            made = self._model_made(engine, gen)
            kept.save(gen, self.model, made.texts, made.rows, kept.MODEL_FILE)

    def asked(self, plan: Plan, text: str) -> str | None:
        """The question for the semantic signal: ``None`` (BM25 alone) when the signal is off or
        the question is a lookup of a word or two (it wants the entries that hold them)."""
        return text if self.on and len(plan.words) >= MIN_WORDS else None

    def _query(self, engine: Engine, text: str | None) -> tuple[Passages, np.ndarray] | None:
        """The entries' vectors and the question's, or ``None``: the signal is not asked."""
        if text is None or self.embedder is None:
            return None
        passages = self.passages(engine)
        return None if passages is None else (passages, self.embedder.vector(text))

    def _model_close(
        self, engine: Engine, text: str, allowed: frozenset[int] | None
    ) -> dict[int, float]:
        """Each allowed entry's closeness to the question by the sentence model (on)."""
        assert self.model is not None
        passages = self.model_passages(engine)
        assert passages is not None
        return only(passages.closeness(self.model.vector(text)), allowed)

    def top(
        self,
        engine: Engine,
        terms: Iterable[Term],
        text: str | None,
        k: int,
        allowed: frozenset[int] | None,
    ) -> list[tuple[int, float]]:
        """The ``k`` best (document number, score) for ``text`` (from :meth:`asked`): BM25's
        alone when it is ``None``."""
        query = self._query(engine, text)
        model = text if self.model is not None else None
        if query is None and model is None:
            return engine.top(terms, k, allowed)
        lexical = engine.scores(terms, allowed)
        if not lexical:  # no word of the question is in any entry: nothing found, as before
            return []
        if query is not None:
            passages, vector = query
            lexical = fused(lexical, only(passages.closeness(vector), allowed), SEMANTIC_WEIGHT)
        if model is not None:
            lexical = fused(lexical, self._model_close(engine, model, allowed), MODEL_WEIGHT)
        return heapq.nlargest(k, lexical.items(), key=lambda x: (x[1], -x[0]))

    def why(
        self,
        engine: Engine,
        entry: dict[str, Any],
        text: str | None,
        pattern: re.Pattern[str] | None,
    ) -> dict[str, Any]:
        """Why an entry matched: the question's words it holds, the way players ask it that
        shares the most of them (``faq.expansions``), and (the signal asked) its sentence
        closest to the question."""
        words: list[str] = []
        asked = None
        if pattern is not None:
            answers = (a["text"] for a in entry.get("answers", []))
            parts = (entry["heading"], entry.get("question"), *answers, entry.get("text"))
            whole = " ".join(p for p in parts if p)
            words = list(dict.fromkeys(m.group(0).lower() for m in pattern.finditer(whole)))
            asked = closest_asked(entry.get("asked") or (), pattern, set(words))
        query = self._query(engine, text)
        passage = None if query is None else query[0].passage(entry["id"], query[1])
        return {"words": words[:MAX_WHY_WORDS], "asked": asked, "passage": passage}


def closest_asked(asked: Iterable[str], pattern: re.Pattern[str], in_text: set[str]) -> str | None:
    """The way players ask an entry that holds the most of the question's words -- only when it
    holds one the entry's own text does not (else the words already say why), or None."""
    best, best_count = None, 0
    for question in asked:
        found = {m.group(0).lower() for m in pattern.finditer(question)}
        if len(found) > best_count and found - in_text:
            best, best_count = question, len(found)
    return best


def only(close: dict[int, float], allowed: frozenset[int] | None) -> dict[int, float]:
    """``close`` kept to the ``allowed`` entries (all: ``None``)."""
    return close if allowed is None else {d: c for d, c in close.items() if d in allowed}


def fused(lexical: dict[int, float], close: dict[int, float], weight: float) -> dict[int, float]:
    """BM25F scores blended with closeness (document number -> score: standard deviations above
    the entries' mean) at ``weight``; the closest entries no word matched join when close
    enough."""
    scale = weight * max(lexical.values())
    out = {d: s + scale * close.get(d, 0.0) for d, s in lexical.items()}
    nearest = heapq.nlargest(SEMANTIC_ONLY, close.items(), key=lambda x: (x[1], -x[0]))
    for d, c in nearest:
        if d not in out and c >= SEMANTIC_FLOOR:
            out[d] = scale * c
    return out
