from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from faq.corpus import Corpus, load_corpus
from faq.search import KnowledgeBase
from service.rules.base import Rulebook
from service.rules.rulebook import shipped_rulebooks


@pytest.fixture(scope="session")
def rulebooks() -> dict[str, Rulebook]:
    """The games' rulebooks, by document, as their packages declare them."""
    return {r.document: r for r in shipped_rulebooks()}


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return load_corpus()


@pytest.fixture(scope="session")
def entries(corpus: Corpus) -> dict[str, object]:
    return {e.id: e for e in corpus.entries}


@pytest.fixture(scope="session")
def index_dir(index_template: Path) -> Path:
    """The session's index (built once by the root conftest's ``index_template``)."""
    return index_template


@pytest.fixture(scope="session")
def kb(index_dir: Path) -> KnowledgeBase:
    """A knowledge base shared by read-only tests (club-ruling tests use their own)."""
    return KnowledgeBase(index_dir)


@pytest.fixture
def index(tmp_path: Path, index_template: Path) -> Path:
    """A copy of the session's index, for a test that writes to it."""
    copy = tmp_path / "index"
    shutil.copytree(index_template, copy)
    return copy


def current(index: Path) -> Path:
    """The generation of ``index`` in use (its CURRENT file's)."""
    return index / (index / "CURRENT").read_text().strip()


def ids(results: list[dict]) -> list[str]:
    return [r["id"] for r in results]
