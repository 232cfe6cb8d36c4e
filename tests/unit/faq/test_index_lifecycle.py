"""The on-disk index: cheap reopen, rebuild on corpus change, club rulings seen by every instance."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import faq.search
from faq.corpus import DEFAULT_CORPUS, load_corpus
from faq.model import ClubRuling
from faq.search import KnowledgeBase

from .conftest import ids

pytestmark = pytest.mark.slow("builds the rules index again for each change it checks")

ROOT = Path(__file__).resolve().parents[3]
RULING = ClubRuling(
    id="r-armoured-train-bridge",
    club="madrid",
    question="May the armoured train cross a demolished viaduct?",
    answer="No. Treat the demolished viaduct as a rail break until repaired.",
    authority="Madrid club referee",
    date="2026-01-10",
    rule_refs=("5",),
    applies_to="merida",
)


@pytest.fixture()
def club_dir(tmp_path: Path) -> Path:
    return tmp_path / "index"


def test_reopening_a_current_index_does_not_parse(
    kb: KnowledgeBase, index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: object) -> None:
        raise AssertionError("the corpus was parsed although the index is current")

    monkeypatch.setattr(faq.search, "load_corpus", fail)
    again = KnowledgeBase(index_dir)
    assert again.meta()["corpus_hash"] == kb.corpus_hash
    assert again.search("last stand defense", limit=1)


def test_a_changed_corpus_is_reindexed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(DEFAULT_CORPUS, corpus)
    first = KnowledgeBase(tmp_path / "index", corpus_dir=corpus)
    assert first.search("zeppelin", limit=5, document="merida") == []
    path = corpus / "closing-the-merida-pocket.txt"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "Air units move freely", "Zeppelin units move freely"
        ),
        encoding="utf-8",
    )
    second = KnowledgeBase(tmp_path / "index", corpus_dir=corpus)
    assert second.corpus_hash != first.corpus_hash
    assert ids(second.search("zeppelin", limit=5, document="merida")) == ["merida:5"]
    assert ids(first.search("zeppelin", limit=5, document="merida")) == ["merida:5"]  # refreshed


def test_club_ruling_added_and_removed_is_seen_by_another_instance(club_dir: Path) -> None:
    writer, reader = KnowledgeBase(club_dir), KnowledgeBase(club_dir)
    assert reader.search("armoured train demolished viaduct", document="club") == []
    entry_id = writer.add_club_ruling(RULING)
    assert entry_id == "club-ruling:r-armoured-train-bridge"
    found = reader.search("armoured train demolished viaduct", limit=3)
    assert found[0]["id"] == entry_id
    assert (found[0]["kind"], found[0]["document"]) == ("club-ruling", "club:madrid")
    assert found[0]["answers"][0]["authority"] == "Madrid club referee"
    assert ids(reader.search("viaduct", document="club:madrid")) == [entry_id]
    assert reader.get(entry_id)["applies_to"] == "merida"
    assert writer.remove_club_ruling(RULING.id) is True
    assert reader.search("armoured train demolished viaduct", document="club") == []
    assert writer.remove_club_ruling(RULING.id) is False


def test_club_ruling_from_another_process(club_dir: Path) -> None:
    kb = KnowledgeBase(club_dir)
    script = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from faq.model import ClubRuling\nfrom faq.search import KnowledgeBase\n"
        f"KnowledgeBase({str(club_dir)!r}).add_club_ruling(ClubRuling(id='p1', club='bcn', "
        "question='Do gliders ignore ZOC?', answer='Yes, gliders ignore enemy ZOC.'))\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert ids(kb.search("gliders", document="club")) == ["club-ruling:p1"]


def test_rebuild_readds_club_rulings_from_their_store(club_dir: Path) -> None:
    store = [RULING]
    kb = KnowledgeBase(club_dir, club_rulings=lambda: store)
    assert ids(kb.search("viaduct", document="club")) == [RULING.entry_id]  # built with them
    store.clear()
    kb.rebuild()
    assert kb.search("viaduct", document="club") == []  # the store is the truth


def test_rebuild_without_a_store_keeps_indexed_club_rulings(club_dir: Path) -> None:
    kb = KnowledgeBase(club_dir)
    kb.add_club_ruling(RULING)
    meta = kb.rebuild()
    assert meta["club_rulings"] == 1
    assert ids(kb.search("viaduct", document="club")) == [RULING.entry_id]


def test_club_ruling_needs_its_fields(club_dir: Path) -> None:
    kb = KnowledgeBase(club_dir)
    with pytest.raises(ValueError, match="answer"):
        kb.add_club_ruling(ClubRuling(id="x", club="c", question="q?", answer=" "))


def test_index_layout_has_a_pointer_and_meta(club_dir: Path) -> None:
    KnowledgeBase(club_dir)
    gen = club_dir / (club_dir / "CURRENT").read_text().strip()
    meta = json.loads((gen / "meta.json").read_text())
    # the build's time is recorded (a figure for operators), not bounded here: speed is the
    # benchmarks' (`make bench search`); under load the bound of 5 s failed a test run
    assert meta["entries"] == len(load_corpus().entries)
    assert isinstance(meta["build_seconds"], float) and meta["build_seconds"] > 0


def test_club_rulings_are_brought_up_to_their_store_and_one_it_does_not_name_yet_stays(
    club_dir: Path,
) -> None:
    """``sync_club_rulings``: what another host made or withdrew, from the rulings' true store."""
    kb = KnowledgeBase(club_dir)
    kb.add_club_ruling(RULING)  # made here: the store's view may not name it yet
    other = ClubRuling(
        id="r-gliders", club="bcn", question="Do gliders ignore ZOC?", answer="Yes, always."
    )
    assert kb.sync_club_rulings([other], withdrawn=["r-unknown"]) == (1, 0)
    assert ids(kb.search("gliders", document="club")) == ["club-ruling:r-gliders"]
    assert ids(kb.search("viaduct", document="club")) == [RULING.entry_id]  # not named: kept
    assert kb.sync_club_rulings([other], withdrawn=[]) == (0, 0)  # nothing to do: no write
    assert kb.sync_club_rulings([], withdrawn=[RULING.id, "r-gliders"]) == (0, 2)
    assert ids(kb.search("viaduct gliders", document="club")) == []
