"""The rules knowledge base's index, built once per test process and copied into the ``var``
folder of each server the tests start: ``arbiter serve`` on an empty folder builds it (about 2 s
of CPU), which a hundred server starts would repeat.  The server opens a copy as it opens the
index it built itself on an earlier start (same corpus, no club rulings yet): the build on first
start is tested where it is the subject (tests/unit/faq)."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


@functools.cache
def built_index() -> Path:
    from faq.search import KnowledgeBase

    folder = Path(tempfile.mkdtemp(prefix="arbiter-kb-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "index"
    KnowledgeBase(path).close()
    return path


def seed_index(var: str | Path) -> None:
    """A copy of the built index in ``var``/index, unless the folder has an index already."""
    target = Path(var) / "index"
    if not target.exists():
        shutil.copytree(built_index(), target)
