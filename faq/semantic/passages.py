"""The entries' vectors for one opened index: each entry whole, and its heading with its question
(a ruling's question is worded as players ask) -- an entry's closeness to a question is that of
the closer of the two -- and each of its sentences, the closest of which is shown as the passage
that matched."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from faq.index import strip_markers
from faq.semantic import Embedder, standings
from faq.semantic.kept import KeptVectors

#: a sentence ends at . ! ? ; or : before a space, or at a line break
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
#: shorter sentences ("See 12.3.") say too little to be shown alone
MIN_SENTENCE_WORDS = 4
#: a passage shown as why is cut to this many characters
MAX_PASSAGE = 240


def _body(entry: dict[str, Any]) -> list[str]:
    answers = [a["text"] for a in entry.get("answers", [])]
    return [p for p in (entry.get("question"), *answers, entry.get("text")) if p]


def entry_text(entry: dict[str, Any]) -> str:
    """All an entry says: heading, question, answers, section text."""
    return strip_markers("\n".join([entry["heading"], *_body(entry)]))


def sentences(entry: dict[str, Any]) -> list[str]:
    found = (s.strip() for s in _SENTENCE_END.split(strip_markers("\n".join(_body(entry)))))
    return [s for s in found if len(s.split()) >= MIN_SENTENCE_WORDS]


class Passages:
    """The vectors of the entries given (document number, entry), in that order; those ``kept``
    holds (:mod:`faq.semantic.kept`) are taken from it."""

    def __init__(
        self,
        embedder: Embedder,
        entries: Iterable[tuple[int, dict[str, Any]]],
        kept: KeptVectors | None = None,
    ) -> None:
        wholes: list[str] = []
        self.docnums: list[int] = []
        self.sentences: list[str] = []
        #: per entry id: the slice of its rows in ``sentences``
        self._slices: dict[str, tuple[int, int]] = {}
        for docnum, entry in entries:
            self.docnums.append(docnum)
            wholes.append(entry_text(entry))
            wholes.append("\n".join(t for t in (entry["heading"], entry.get("question")) if t))
            own = sentences(entry)
            self._slices[entry["id"]] = (len(self.sentences), len(self.sentences) + len(own))
            self.sentences += own
        #: the texts of ``wholes``' rows: each entry whole, then its heading with its question
        self.whole_texts = wholes
        self.wholes = embedder.matrix(wholes, kept)
        self.sentence_rows = embedder.matrix(self.sentences, kept)

    def texts_and_rows(self) -> tuple[list[str], np.ndarray]:
        """Every text embedded here and its vector, in one matrix (what an index keeps)."""
        return self.whole_texts + self.sentences, np.vstack([self.wholes, self.sentence_rows])

    def closeness(self, query: np.ndarray) -> dict[int, float]:
        """Each entry's cosine to the query vector (that of its closer row) in standard
        deviations above the entries' mean, 0 when below: static vectors' cosines all sit in a
        narrow band, and how far an entry stands out of it is what says it is close."""
        if not self.docnums:
            return {}
        return standings(self.docnums, (self.wholes @ query).reshape(-1, 2).max(axis=1))

    def passage(self, entry_id: str, query: np.ndarray) -> str | None:
        """The entry's sentence closest to the query (``None``: it has no sentence)."""
        start, end = self._slices.get(entry_id, (0, 0))
        if start == end:
            return None
        text = self.sentences[start + int(np.argmax(self.sentence_rows[start:end] @ query))]
        return text if len(text) <= MAX_PASSAGE else text[: MAX_PASSAGE - 1].rstrip() + "…"
