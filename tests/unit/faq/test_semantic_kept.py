"""The entries' vectors kept with the index (``faq/semantic/kept.py``): a process's first search
embeds the question, not every entry again, and ranks exactly as if it had; the file follows the
index's writes (a build, a club ruling added or removed), is never written by a search, and is
not used when another embedder made it or it cannot be read."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faq.fusion import Fusion
from faq.model import ClubRuling
from faq.search import KnowledgeBase
from faq.semantic import Embedder, kept, load_embedder

from .conftest import current

QUESTION = "can my tanks go over the river"
RULING = ClubRuling(
    id="r-pontoon",
    club="madrid",
    question="Could my engineers throw a pontoon across the Tagus during a storm?",
    answer="Only in clear weather; a storm sweeps the pontoon away at once.",
    authority="Madrid club referee",
    date="2026-11-30",
)


class Counting(Embedder):
    """The shipped embedder with its own cache, counting the texts it embeds."""

    def __init__(self) -> None:
        shipped = load_embedder()
        assert shipped is not None
        super().__init__(shipped.table, shipped.tokenizer)
        self.embedded: list[str] = []
        vector = self._vector

        def counted(text: str) -> Any:
            self.embedded.append(text)
            return vector(text)

        self._cached = functools.lru_cache(maxsize=None)(counted)  # each text counted once


def opened(index: Path, embedder: Embedder, kept_from: Callable[[], Path | None]) -> KnowledgeBase:
    kb = KnowledgeBase(index)
    kb.fusion = Fusion(embedder, kept=kept_from)
    return kb


def ranked(kb: KnowledgeBase) -> list[tuple[str, float]]:
    return [(r["id"], r["score"]) for r in kb.search(QUESTION, limit=15)]


def test_a_new_process_embeds_only_the_question_and_ranks_as_if_it_embedded_everything(
    index: Path,
) -> None:
    assert (current(index) / kept.FILE).exists()  # the index was built with its vectors
    reading = Counting()
    kb = opened(index, reading, lambda: current(index))
    with_kept = ranked(kb)
    assert reading.embedded == [QUESTION]

    embedding = Counting()
    without = opened(index, embedding, lambda: None)
    assert ranked(without) == with_kept and len(with_kept) > 3
    assert len(embedding.embedded) > 4000  # every entry, its heading and question, each sentence
    # the very same vectors, not close ones
    engine = kb._engine()
    assert np.array_equal(
        kb.fusion.passages(engine).wholes, without.fusion.passages(without._engine()).wholes
    )
    assert np.array_equal(
        kb.fusion.passages(engine).sentence_rows,
        without.fusion.passages(without._engine()).sentence_rows,
    )


def test_a_club_ruling_added_or_removed_is_kept_with_the_index(index: Path) -> None:
    writer = KnowledgeBase(index)
    writer.add_club_ruling(RULING)
    reading = Counting()
    kb = opened(index, reading, lambda: current(index))
    found = kb.search("pontoon bridge in a storm", document="club")
    assert [r["id"] for r in found] == [RULING.entry_id]
    assert reading.embedded == ["pontoon bridge in a storm"]  # the ruling's texts were kept
    stored = kept.load(current(index), reading)
    assert stored is not None
    whole = kb.fusion.passages(kb._engine()).whole_texts
    ruling_texts = [t for t in whole if "pontoon" in t]
    assert ruling_texts and stored.find(ruling_texts)[0] == list(range(len(ruling_texts)))

    assert writer.remove_club_ruling(RULING.id)
    stored = kept.load(current(index), reading)
    assert stored is not None and stored.find(ruling_texts)[0] == []


def test_a_search_writes_nothing_and_an_index_without_vectors_gets_them_when_opened(
    index: Path,
) -> None:
    (current(index) / kept.FILE).unlink()  # an index built by an earlier release
    reading = Counting()
    kb = KnowledgeBase(index)  # opening it (a server starting) keeps them, under the lock
    assert (current(index) / kept.FILE).exists()
    (current(index) / kept.FILE).unlink()
    kb.fusion = Fusion(reading, kept=lambda: current(index))
    assert ranked(kb)
    assert not (current(index) / kept.FILE).exists()  # the search embedded, and wrote nothing
    assert len(reading.embedded) > 4000


def test_vectors_another_embedder_made_or_a_damaged_file_are_not_used(
    index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shipped = load_embedder()
    assert shipped is not None
    table = shipped.table.copy()
    table[1000, 0] += 1  # one number of the table differs: another embedder
    other = Embedder(table, shipped.tokenizer)
    assert other.fingerprint != shipped.fingerprint
    gen = current(index)
    assert kept.load(gen, shipped) is not None
    assert kept.load(gen, other) is None

    (gen / kept.FILE).write_bytes(b"PK\x03\x04 not a zip at all")
    with caplog.at_level("WARNING"):
        assert kept.load(gen, shipped) is None
    assert "cannot be read" in caplog.text
    reading = Counting()
    kb = opened(index, reading, lambda: gen)
    assert ranked(kb) and len(reading.embedded) > 4000  # embedded as before: same search

    np.savez(
        gen / kept.FILE,
        fingerprint=np.array(shipped.fingerprint),
        keys=np.array(7),
        vectors=np.zeros(3),
    )
    with caplog.at_level("WARNING"):
        assert kept.load(gen, shipped) is None  # a readable file of the wrong shapes
    assert "does not hold a digest per text" in caplog.text

    with pytest.raises(ValueError, match="3 texts for 2 vectors"):
        kept.save(gen, shipped, ["a", "b", "c"], np.zeros((2, shipped.dimensions)))


def test_a_failed_write_of_the_vectors_does_not_stop_the_knowledge_base(
    index: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (current(index) / kept.FILE).unlink()

    def full_disk(*args: Any, **kwargs: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(kept, "save", full_disk)
    with caplog.at_level("WARNING"):
        kb = KnowledgeBase(index)
    assert "could not be kept" in caplog.text
    assert ranked(kb)  # the search works, embedding the entries itself
