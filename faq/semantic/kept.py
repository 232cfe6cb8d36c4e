"""The entries' vectors kept with the index they were made for: the first search of a process
reads them instead of embedding every entry and sentence again (0.78 s of CPU on the shipped
corpus; a process with the file reads it in a few milliseconds).

``vectors.npz`` in an index generation (``faq.index``), and the sentence model's ``sentences.npz``
beside it, each hold their embedder's fingerprint, one 16-byte BLAKE2b digest per text (a row of
bytes) and its vector (float32, as the embedder gives it).  They are written where the index is
written -- a build, a rebuild, a club ruling added or removed, under the index's lock -- never
by a search.  A vector is looked up by its text's digest, so a
file that lags its index (made before a ruling was added, by another release) still serves the
texts it has and the rest are embedded as before; a file made by another embedder (another
table or vocabulary) or that cannot be read is ignored."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from faq.semantic import Embedder
    from faq.semantic.model import SentenceModel

log = logging.getLogger(__name__)

FILE = "vectors.npz"
#: the sentence model's vectors (:mod:`faq.semantic.model`), kept the same way
MODEL_FILE = "sentences.npz"
DIGEST_BYTES = 16


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


class KeptVectors:
    """Vectors by their text's digest, read from one file."""

    def __init__(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        packed = keys.tobytes()  # one digest per row (as bytes: NumPy's "S" type drops NULs)
        self.rows = {packed[n * DIGEST_BYTES : (n + 1) * DIGEST_BYTES]: n for n in range(len(keys))}
        self.vectors = vectors

    def __len__(self) -> int:
        return len(self.rows)

    def find(self, texts: Sequence[str]) -> tuple[list[int], list[int]]:
        """For ``texts``: the positions found and their rows here."""
        found: list[int] = []
        rows: list[int] = []
        for n, text in enumerate(texts):
            row = self.rows.get(digest(text))
            if row is not None:
                found.append(n)
                rows.append(row)
        return found, rows


def load(
    gen: Path | None, embedder: Embedder | SentenceModel, file: str = FILE
) -> KeptVectors | None:
    """The vectors kept in the generation ``gen`` for this embedder (``file``: the static
    vectors', or the sentence model's :data:`MODEL_FILE`), or ``None``."""
    return None if gen is None else read(gen / file, embedder)


def read(path: Path, embedder: Embedder | SentenceModel) -> KeptVectors | None:
    """The vectors of a kept-vectors file made by this embedder, or ``None``."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as stored:
            if str(stored["fingerprint"]) != embedder.fingerprint:
                log.info("%s was made by another embedder: not used", path)
                return None
            keys, vectors = stored["keys"], stored["vectors"]
    except FileNotFoundError:
        return None
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        log.warning("%s cannot be read (%s): the entries are embedded again", path, exc)
        return None
    if keys.ndim != 2 or keys.shape[1] != DIGEST_BYTES or keys.dtype != np.uint8:
        log.warning("%s does not hold a digest per text: not used", path)
        return None
    if vectors.shape != (len(keys), embedder.dimensions):
        log.warning("%s does not hold one vector per text: not used", path)
        return None
    return KeptVectors(keys, vectors.astype(np.float32, copy=False))


def save(
    gen: Path,
    embedder: Embedder | SentenceModel,
    texts: Iterable[str],
    vectors: np.ndarray,
    file: str = FILE,
) -> Path:
    """Keep ``vectors`` (one row per text of ``texts``) in ``gen``'s ``file``; replaced
    atomically, so a process reading it meanwhile reads the old file or the new one."""
    import numpy as np

    keys = np.frombuffer(b"".join(digest(t) for t in texts), dtype=np.uint8)
    keys = keys.reshape(-1, DIGEST_BYTES)
    if len(keys) != len(vectors):
        raise ValueError(f"{len(keys)} texts for {len(vectors)} vectors")
    path = gen / file
    tmp = gen / f".{file}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                fingerprint=np.array(embedder.fingerprint),
                keys=keys,
                vectors=np.ascontiguousarray(vectors, dtype=np.float32),
            )
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return path
