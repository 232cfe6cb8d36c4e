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

Without the signal (numpy or the data files absent) the ranking is BM25's, unchanged.
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

if TYPE_CHECKING:
    import numpy as np

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


class Fusion:
    """The semantic side of a knowledge base's search, its passages built once per engine (per
    opened index), from the vectors kept with the index (``kept``: the generation in use, or
    ``None``) where they are there."""

    def __init__(
        self,
        embedder: Embedder | None | Callable[[], Embedder | None] = load_embedder,
        kept: Callable[[], Path | None] = lambda: None,
    ):
        self.embedder = embedder() if callable(embedder) else embedder
        self.kept = kept
        #: (engine, its entries' vectors): one tuple, replaced whole, so a thread never pairs one
        #: engine with another's vectors
        self._built: tuple[Engine, Passages] | None = None

    @property
    def on(self) -> bool:
        return self.embedder is not None

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
        if self.embedder is None:
            return
        from faq.semantic import kept

        texts, rows = self._made(engine, gen).texts_and_rows()
        kept.save(gen, self.embedder, texts, rows)

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
        if query is None:
            return engine.top(terms, k, allowed)
        lexical = engine.scores(terms, allowed)
        if not lexical:  # no word of the question is in any entry: nothing found, as before
            return []
        passages, vector = query
        close = passages.closeness(vector)
        if allowed is not None:
            close = {d: c for d, c in close.items() if d in allowed}
        return heapq.nlargest(k, fused(lexical, close).items(), key=lambda x: (x[1], -x[0]))

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


def fused(lexical: dict[int, float], close: dict[int, float]) -> dict[int, float]:
    """BM25F scores blended with closeness (document number -> score); the closest entries no
    word matched join when close enough."""
    scale = SEMANTIC_WEIGHT * max(lexical.values())
    out = {d: s + scale * close.get(d, 0.0) for d, s in lexical.items()}
    nearest = heapq.nlargest(SEMANTIC_ONLY, close.items(), key=lambda x: (x[1], -x[0]))
    for d, c in nearest:
        if d not in out and c >= SEMANTIC_FLOOR:
            out[d] = scale * c
    return out
