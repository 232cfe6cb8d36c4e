"""BM25F with each segment's field lengths cached in memory.

whoosh's BM25F reads a document's field length from disk columns for every posting it scores;
on an index of a few hundred entries that lookup dominates query time.  This model computes the
same scores from a list built once per segment searcher.
"""

from __future__ import annotations

from typing import Any

from whoosh import scoring


class CachedBM25F(scoring.BM25F):
    def scorer(self, searcher: Any, fieldname: str, text: bytes, qf: int = 1) -> Any:
        scorer = super().scorer(searcher, fieldname, text, qf=qf)
        if isinstance(scorer, scoring.BM25FScorer):
            scorer.dfl = _lengths(searcher, fieldname).__getitem__
        return scorer


def _lengths(searcher: Any, fieldname: str) -> list[int]:
    cache: dict[str, list[int]] = searcher.__dict__.setdefault("_faq_field_lengths", {})
    if fieldname not in cache:
        reader = searcher.reader()
        cache[fieldname] = [
            reader.doc_field_length(n, fieldname, 1) for n in range(reader.doc_count_all())
        ]
    return cache[fieldname]
