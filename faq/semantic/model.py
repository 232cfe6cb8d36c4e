"""The rules search's sentence model (issue 49): all-MiniLM-L6-v2 run by ONNX Runtime.

``minilm.onnx`` (23 MB) is the sentence model all-MiniLM-L6-v2 with its mean pooling and
normalisation, exported to ONNX and its weights quantized to 8 bits per output channel by
:mod:`faq.semantic.export` (run by hand; see ``NOTICE``); its tokenizer is BERT's uncased WordPiece
(:mod:`faq.semantic.tokenizer`, the model's own ``vocab.txt``).  A question costs one run of the
model: about 2 ms of CPU for a question of 15 word pieces.  Nothing is fetched at run time.

Unlike the static vectors (:mod:`faq.semantic`), the model reads a text as a sentence -- word order,
negation, what a word means next to the others -- and was trained to bring questions close to
their answers and to other wordings of themselves.  Each entry is embedded whole and as each way
players ask it (:mod:`faq.expansions`); its closeness to a question is the closest of those
(:class:`ModelPassages`).

It needs ONNX Runtime (``pip install 'arbiter[semantic]'``, which ``make setup`` installs).
Without it, or without the model file, :func:`load_model` returns ``None`` (logged once) and the
search goes on without this signal.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faq.semantic.tokenizer import WordPiece, read_vocab

if TYPE_CHECKING:
    import numpy as np

    from faq.semantic.kept import KeptVectors

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent
MODEL_FILE = "minilm.onnx"
VOCAB_FILE = "vocab.txt"
#: the vectors of the shipped corpus's texts, made by ``python -m faq.semantic.export --shipped``:
#: an index built from the shipped corpus embeds only what is not in it (a club's rulings)
SHIPPED_FILE = "shipped-sentences.npz"
DIMENSIONS = 384
#: the model was trained on texts of at most 256 word pieces (its [CLS] and [SEP] included)
MAX_TOKENS = 256
#: questions whose vectors are kept in a process
CACHED_TEXTS = 4_096


class SentenceModel:
    """Text -> unit vector, by the sentence model."""

    dimensions = DIMENSIONS

    def __init__(self, session: Any, tokenizer: WordPiece, model_path: Path) -> None:
        import numpy

        self._np = numpy
        self.session = session
        self.tokenizer = tokenizer
        self.model_path = model_path
        vocab = tokenizer.vocab
        self._cls, self._sep = vocab["[CLS]"], vocab["[SEP]"]
        self._cached = lru_cache(maxsize=CACHED_TEXTS)(self._one)

    @cached_property
    def fingerprint(self) -> str:
        """What a vector depends on besides its text: the model file and the vocabulary."""
        made = hashlib.sha256(b"arbiter-sentence-model-v1|")
        made.update(self.model_path.read_bytes())
        vocab = self.tokenizer.vocab
        made.update("\n".join(sorted(vocab, key=vocab.__getitem__)).encode("utf-8"))
        return made.hexdigest()

    @cached_property
    def shipped(self) -> KeptVectors | None:
        """The shipped corpus's vectors (:data:`SHIPPED_FILE`, beside the model) when this model
        made them, read once; ``None`` when absent or made by another model."""
        from faq.semantic import kept

        return kept.read(self.model_path.parent / SHIPPED_FILE, self)

    def ids(self, text: str) -> list[int]:
        return [self._cls, *self.tokenizer.ids(text)[: MAX_TOKENS - 2], self._sep]

    def vector(self, text: str) -> np.ndarray:
        """The text's vector, of length 1 (a question's: kept for the next search of it)."""
        return self._cached(text)

    def _one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, shape ``(len(texts), DIMENSIONS)``.  Each text is run
        alone: the quantized model scales its activations by the whole input's range, so a text
        batched with others (and padded) would come out slightly different -- a text's vector
        is its text's alone, as the vectors kept by digest assume."""
        np = self._np
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for n, text in enumerate(texts):
            ids = np.array([self.ids(text)], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            out[n] = self.session.run(None, feed)[0][0]
        return out

    def matrix(self, texts: list[str], *kept: KeptVectors | None) -> np.ndarray:
        """One row per text; the rows a ``kept`` file holds are taken from it (the first that
        has the text), the others embedded."""
        out = self._np.zeros((len(texts), DIMENSIONS), dtype=self._np.float32)
        missing = list(range(len(texts)))
        for vectors in kept:
            if vectors is None or not missing:
                continue
            positions, rows = vectors.find([texts[n] for n in missing])
            out[[missing[p] for p in positions]] = vectors.vectors[rows]
            found = set(positions)
            missing = [n for p, n in enumerate(missing) if p not in found]
        if missing:
            out[missing] = self.embed([texts[n] for n in missing])
        return out


def entry_texts(entry: dict[str, Any]) -> list[str]:
    """What of an entry the model embeds: the entry whole (heading, question, answers, title,
    text: the model reads its first 256 word pieces), then each way players ask it."""
    answers = [a["text"] for a in entry.get("answers", [])]
    parts = (entry.get("heading"), entry.get("title"), entry.get("question"), *answers)
    whole = "\n".join(p for p in (*parts, entry.get("text")) if p)
    return [whole, *(entry.get("asked") or ())]


class ModelPassages:
    """The model's vectors of the entries given (document number, entry): rows of each entry's
    :func:`entry_texts`, an entry's closeness to a question the cosine of its closest row."""

    def __init__(
        self,
        model: SentenceModel,
        entries: Iterable[tuple[int, dict[str, Any]]],
        *kept: KeptVectors | None,
    ) -> None:
        import numpy as np

        self.docnums: list[int] = []
        self.texts: list[str] = []
        starts: list[int] = []
        for docnum, entry in entries:
            self.docnums.append(docnum)
            starts.append(len(self.texts))
            self.texts += entry_texts(entry)
        self._starts = np.array(starts, dtype=np.intp)
        self.rows = model.matrix(self.texts, *kept)

    def closeness(self, query: np.ndarray) -> dict[int, float]:
        """Each entry's cosine to the query vector (that of its closest row) in standard
        deviations above the entries' mean, 0 when below (as the static signal's)."""
        if not self.docnums:
            return {}
        import numpy as np

        from faq.semantic import standings

        return standings(self.docnums, np.maximum.reduceat(self.rows @ query, self._starts))


_loaded: dict[Path, SentenceModel | None] = {}


def load_model(data_dir: Path = DATA_DIR) -> SentenceModel | None:
    """The shipped sentence model, loaded once per process; ``None`` (logged once) when ONNX
    Runtime or the model file is missing -- the search then goes on without it."""
    if data_dir in _loaded:
        return _loaded[data_dir]
    found: SentenceModel | None = None
    try:
        import numpy  # noqa: F401
        import onnxruntime
    except ImportError:
        log.info(
            "sentence model off: ONNX Runtime is not installed (pip install 'arbiter[semantic]')"
        )
    else:
        path = data_dir / MODEL_FILE
        try:
            vocab = read_vocab((data_dir / VOCAB_FILE).read_text(encoding="utf-8").splitlines())
            options = onnxruntime.SessionOptions()
            # one thread per question: a server answers many at once, each on its own thread
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            session = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        # ONNX Runtime raises its own types (NoSuchFile, InvalidProtobuf, Fail), none of them
        # a standard one: whatever it raises, the search goes on without the model
        except Exception as exc:  # noqa: BLE001
            log.warning("sentence model off: %s", exc)
        else:
            found = SentenceModel(session, WordPiece(vocab), path)
    _loaded[data_dir] = found
    return found
