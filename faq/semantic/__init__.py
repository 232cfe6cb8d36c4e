"""A second retrieval signal beside BM25: static word-piece embeddings (issue 49).

``tokens.npy`` holds one vector per token of BERT's uncased vocabulary (``vocab.txt``), distilled
offline from the sentence model all-MiniLM-L6-v2 by :mod:`faq.semantic.distill` (run by hand;
see ``NOTICE``).  A text's vector is the mean of its tokens' vectors, normalised, so a question
and an entry that say the same thing in other words ("tanks" / "armor", "go over" / "cross")
come out close.  Nothing is fetched at run time and there is no model to run: a query costs a
tokenisation, a mean and one matrix-vector product.

numpy is the only package it needs (the ``semantic`` extra; the default install has it too).
Without numpy, or without the data files, :func:`load_embedder` returns ``None`` and the search
is lexical only (logged once).
"""

from __future__ import annotations

import hashlib
import logging
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faq.semantic.tokenizer import WordPiece, read_vocab

if TYPE_CHECKING:
    import numpy as np

    from faq.semantic.kept import KeptVectors

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent
TOKENS_FILE = "tokens.npy"
VOCAB_FILE = "vocab.txt"
#: texts whose vectors are kept (entries' texts and sentences survive an index reopen)
CACHED_TEXTS = 20_000
#: words left out of a text's mean: whoosh's English stop words (as the lexical side drops) and
#: the words a player's question opens with -- they say how it is asked, not what about, and
#: would pull every question towards every other
_STOP_TEXT = (
    "a an and are as at be by can for from have if in is it may not of on or tbd that the this "
    "to us we when will with yet you your "
    "my i me do does did what how there its was were which who"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


class Embedder:
    """Text -> unit vector, from the static token table."""

    def __init__(self, table: np.ndarray, tokenizer: WordPiece) -> None:
        import numpy

        self._np = numpy
        self.table = table  # float16 as stored: half the memory; rows are widened when averaged
        self.tokenizer = tokenizer
        self.dimensions = int(table.shape[1])
        self.stop = frozenset(tokenizer.vocab[w] for w in STOP_WORDS if w in tokenizer.vocab)
        self._cached = lru_cache(maxsize=CACHED_TEXTS)(self._vector)

    def vector(self, text: str) -> np.ndarray:
        """The mean of the text's token vectors (stop words left out unless the text is only
        those), of length 1 (zeros: no token)."""
        return self._cached(text)

    def _vector(self, text: str) -> np.ndarray:
        ids = self.tokenizer.ids(text)
        ids = [i for i in ids if i not in self.stop] or ids
        if not ids:
            return self._np.zeros(self.dimensions, dtype=self._np.float32)
        vec = self.table[ids].astype(self._np.float32).mean(axis=0)
        norm = float(self._np.linalg.norm(vec))
        return vec / norm if norm > 0 else vec

    @cached_property
    def fingerprint(self) -> str:
        """What a text's vector depends on besides the text: the table, the vocabulary and the
        words left out (vectors kept with an index are used only under the same fingerprint)."""
        made = hashlib.sha256(b"arbiter-embedder-v1|")
        made.update(repr((self.table.dtype.str, self.table.shape)).encode())
        made.update(self._np.ascontiguousarray(self.table).data)
        vocab = self.tokenizer.vocab
        made.update("\n".join(sorted(vocab, key=vocab.__getitem__)).encode("utf-8"))
        made.update(" ".join(sorted(STOP_WORDS)).encode())
        return made.hexdigest()

    def matrix(self, texts: list[str], kept: KeptVectors | None = None) -> np.ndarray:
        """One row per text (shape ``(len(texts), dimensions)``); the rows ``kept`` holds are
        taken from it, the others embedded."""
        out = self._np.zeros((len(texts), self.dimensions), dtype=self._np.float32)
        found: set[int] = set()
        if kept is not None and texts:
            positions, rows = kept.find(texts)
            out[positions] = kept.vectors[rows]
            found = set(positions)
        for n, text in enumerate(texts):
            if n not in found:
                out[n] = self.vector(text)
        return out


def standings(docnums: list[int], best: np.ndarray) -> dict[int, float]:
    """Each entry's best cosine (``best``, in ``docnums``' order) as standard deviations above
    the entries' mean, 0 when below: what both signals blend, since how far an entry stands out
    of the others says more than its cosine (the static vectors' all sit in a narrow band)."""
    import numpy

    spread = float(best.std()) or 1.0
    standing = numpy.maximum((best - best.mean()) / spread, 0.0)
    return dict(zip(docnums, standing.tolist(), strict=True))


_loaded: dict[Path, Embedder | None] = {}


def load_embedder(data_dir: Path = DATA_DIR) -> Embedder | None:
    """The embedder over the shipped table, loaded once; ``None`` (logged once) when numpy or
    the data files are missing -- the search is then BM25 alone."""
    if data_dir in _loaded:
        return _loaded[data_dir]
    found: Embedder | None = None
    try:
        import numpy as np
    except ImportError:
        log.info("semantic search off: numpy is not installed (pip install 'arbiter[semantic]')")
    else:
        try:
            table: Any = np.load(data_dir / TOKENS_FILE)
            vocab = read_vocab((data_dir / VOCAB_FILE).read_text(encoding="utf-8").splitlines())
        except OSError as exc:
            log.info("semantic search off: %s", exc)
        else:
            found = Embedder(table, WordPiece(vocab))
    _loaded[data_dir] = found
    return found
