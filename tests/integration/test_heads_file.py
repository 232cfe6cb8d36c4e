"""The signed-heads file (service/adapters/heads.py) opened by several workers at once.

A multi-worker server starts its workers together and each opens ``heads.sqlite``; on a new file
one switch to WAL locks out the others at once (SQLite does not wait out the busy timeout for
it).  CI saw a worker fail to boot with "database is locked" and gunicorn stop (exit 3)."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

from service.adapters.heads import SqliteHeads

OPENERS = 4


def _open_and_record(path: str, start: object, n: int) -> None:
    start.wait()  # type: ignore[attr-defined]
    heads = SqliteHeads(Path(path), b"key")
    heads.record(f"game-{n}", 1, "ab" * 32)


def test_workers_opening_a_new_heads_file_together_all_start(tmp_path: Path) -> None:
    ctx = mp.get_context("fork")
    for round_ in range(10):
        path = str(tmp_path / f"keys-{round_}" / "heads.sqlite")
        start = ctx.Barrier(OPENERS)
        procs = [
            ctx.Process(target=_open_and_record, args=(path, start, n)) for n in range(OPENERS)
        ]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(timeout=30)
        assert [proc.exitcode for proc in procs] == [0] * OPENERS, f"round {round_}"
        heads = SqliteHeads(Path(path), b"key")
        assert sorted(h["game"] for h in heads.all()) == [f"game-{n}" for n in range(OPENERS)]
