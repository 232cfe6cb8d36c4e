"""Search quality and speed on the development set: whoosh KnowledgeBase vs a SQLite FTS5 baseline.

Prints Recall@5 (share of each question's relevant entries found in the top 5, averaged), Hit@5
(a relevant entry in the top 5), MRR (first relevant rank, top 10), query latency p50/p99 and
index build time, side by side.  Run: ``python bench/bench_search.py [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faq.corpus import DEFAULT_CORPUS, corpus_hash, load_corpus  # noqa: E402
from faq.index import HEADING_BOOST, IndexStore  # noqa: E402
from faq.model import Entry  # noqa: E402
from faq.search import KnowledgeBase  # noqa: E402

DEVSET = ROOT / "bench" / "data" / "devset.json"
ROUNDS = 5
Searcher = Callable[[str, int], list[str]]


def load_devset() -> list[dict]:
    return json.loads(DEVSET.read_text(encoding="utf-8"))["questions"]


def quality(search: Searcher, devset: list[dict]) -> dict[str, float]:
    recall, hits, rr = [], [], []
    for item in devset:
        relevant = set(item["relevant"])
        ranked = search(item["q"], 10)
        top5 = set(ranked[:5])
        recall.append(len(top5 & relevant) / len(relevant))
        hits.append(1.0 if top5 & relevant else 0.0)
        rank = next((i for i, r in enumerate(ranked, start=1) if r in relevant), None)
        rr.append(1 / rank if rank else 0.0)
    return {
        "recall_at_5": statistics.mean(recall),
        "hit_at_5": statistics.mean(hits),
        "mrr": statistics.mean(rr),
    }


def latency(search: Searcher, devset: list[dict]) -> dict[str, float]:
    for item in devset:  # warm up
        search(item["q"], 10)
    times = []
    for _ in range(ROUNDS):
        for item in devset:
            started = time.perf_counter()
            search(item["q"], 10)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": times[len(times) // 2], "p99_ms": times[int(len(times) * 0.99) - 1]}


# -- whoosh -----------------------------------------------------------------------------------------
def whoosh_engine(tmp: Path, entries: list[Entry]) -> tuple[Searcher, float]:
    store = IndexStore(tmp / "index")
    with store.lock():
        meta = store.build(entries, corpus_hash(DEFAULT_CORPUS))
    kb = KnowledgeBase(tmp / "index")

    def search(q: str, limit: int) -> list[str]:
        return [r["id"] for r in kb.search(q, limit=limit)]

    return search, meta["build_seconds"]


# -- FTS5 baseline ------------------------------------------------------------------------------------
def fts5_engine(entries: list[Entry]) -> tuple[Searcher, float]:
    started = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE e USING fts5(id UNINDEXED, heading, content, "
        "tokenize='porter unicode61')"
    )
    db.executemany(
        "INSERT INTO e VALUES (?, ?, ?)",
        [(x.id, x.heading, "\n".join([x.question, x.answer_text, x.text])) for x in entries],
    )
    db.commit()
    build = time.perf_counter() - started

    def search(q: str, limit: int) -> list[str]:
        words = re.findall(r"\w+", q)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = db.execute(
            "SELECT id FROM e WHERE e MATCH ? ORDER BY bm25(e, 0.0, ?, 1.0) LIMIT ?",
            (match, HEADING_BOOST, limit),
        )
        return [r[0] for r in rows]

    return search, build


def main(argv: list[str] | None = None) -> int:
    """``argv`` defaults to none (as when ``python -m bench`` calls ``main()``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv or [])
    devset = load_devset()
    started = time.perf_counter()
    entries = load_corpus(DEFAULT_CORPUS).entries
    parse_s = time.perf_counter() - started
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (search, build_s) in (
            ("whoosh", whoosh_engine(Path(tmp), entries)),
            ("fts5", fts5_engine(entries)),
        ):
            figures[name] = {
                **quality(search, devset),
                **latency(search, devset),
                "build_s": build_s,
                "build_with_parse_s": build_s + parse_s,
            }
    if args.json:
        out = {"questions": len(devset), "entries": len(entries), "loadavg": os.getloadavg()}
        print(json.dumps({**out, **figures}, indent=1))
        return 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Search benchmark: {len(devset)} dev-set questions, {len(entries)} entries")
    print(f"(latencies are wall-clock on this machine; load average {load}, {os.cpu_count()} CPUs)")
    print(f"{'metric':<22}{'whoosh':>12}{'fts5 bm25':>12}{'ratio':>10}")
    for key, label in (
        ("recall_at_5", "Recall@5"),
        ("hit_at_5", "Hit@5"),
        ("mrr", "MRR"),
        ("p50_ms", "latency p50 (ms)"),
        ("p99_ms", "latency p99 (ms)"),
        ("build_s", "index build (s)"),
        ("build_with_parse_s", "parse + build (s)"),
    ):
        w, f = figures["whoosh"][key], figures["fts5"][key]
        ratio = f"{w / f:.2f}x" if f else "-"
        print(f"{label:<22}{w:>12.3f}{f:>12.3f}{ratio:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
