"""Search quality and speed on the development set (and quality on issue 49's frozen sets, which
are never tuned on): whoosh KnowledgeBase vs a SQLite FTS5 baseline,
event links on the event set, and ``GET /api/rules/search`` over HTTP.

Prints Recall@5 (share of each question's relevant entries found in the top 5, averaged), Hit@5
(a relevant entry in the top 5), MRR (first relevant rank, top 10), query latency p50/p99 and
index build time, side by side; then issue 49's rows on every set: BM25 alone, the asked
questions alone, the static vectors alone, the sentence model alone, the app before the model,
all fused (what the app searches) and FTS5, with the signals' sizes on disk and build times; each
timed search embeds its question afresh; then precision@5 and recall@5 of the links of each event of
``bench/data/eventset.json`` (governing entries, related rulings); then the HTTP search latency
against a real ``arbiter serve``.  Run: ``python bench/bench_search.py [--json] [--no-http]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faq.corpus import DEFAULT_CORPUS, corpus_hash, load_corpus  # noqa: E402
from faq.fusion import Fusion  # noqa: E402
from faq.index import HEADING_BOOST, IndexStore  # noqa: E402
from faq.model import ClubRuling, Entry  # noqa: E402
from faq.search import KnowledgeBase  # noqa: E402
from faq.semantic import DATA_DIR, TOKENS_FILE, VOCAB_FILE, Embedder, load_embedder  # noqa: E402
from faq.semantic.model import MODEL_FILE, SHIPPED_FILE, ModelPassages, load_model  # noqa: E402
from faq.semantic.passages import Passages  # noqa: E402
from faq.semantic.tokenizer import WordPiece  # noqa: E402
from service.rules.registry import build_registry  # noqa: E402
from service.rules.rulebook import shipped_rulebooks  # noqa: E402

DEVSET = ROOT / "bench" / "data" / "devset.json"
#: issue 49's frozen sets: questions in players' words, never used for tuning (only reported);
#: the first was read (its misses) while the static signal was tuned, the second was written and
#: committed before the asked questions (faq/expansions) were indexed
FROZENSET = ROOT / "bench" / "data" / "frozenset.json"
FROZENSET_2 = ROOT / "bench" / "data" / "frozenset-2.json"
#: written and committed before the sentence model (faq/semantic/model.py) was run on it
FROZENSET_3 = ROOT / "bench" / "data" / "frozenset-3.json"
#: the text fields of the rows: the entries' texts alone (BM25 as before issue 49's expansions),
#: the asked questions alone (the new signal alone), and all of them (the app)
TEXTS_ONLY = (("heading", 1.0), ("content", 1.0))
ASKED_ONLY = (("asked", 1.0),)
EVENTSET = ROOT / "bench" / "data" / "eventset.json"
HTTP_QUERIES = 400
ROUNDS = 5
Searcher = Callable[[str, int], list[str]]


def load_devset() -> list[dict]:
    return json.loads(DEVSET.read_text(encoding="utf-8"))["questions"]


def load_frozenset(path: Path = FROZENSET) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["questions"]


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


def _forget_questions() -> None:
    """Empty the signals' caches of question vectors: each timed search embeds its question, as
    a question a player types for the first time (the entries' vectors stay built)."""
    for signal in (load_embedder(), load_model()):
        if signal is not None:
            signal._cached.cache_clear()


def latency(search: Searcher, devset: list[dict]) -> dict[str, float]:
    for item in devset:  # warm up
        search(item["q"], 10)
    times, cpu = [], []
    for _ in range(ROUNDS):
        for item in devset:
            _forget_questions()
            started, started_cpu = time.perf_counter(), time.thread_time()
            search(item["q"], 10)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
    times.sort()
    cpu.sort()
    n99 = int(len(times) * 0.99) - 1
    return {
        "p50_ms": times[len(times) // 2],
        "p99_ms": times[n99],
        # CPU time of the searching thread: what a query costs, whatever else the machine runs
        "cpu_p50_ms": cpu[len(cpu) // 2],
        "cpu_p99_ms": cpu[n99],
    }


# -- whoosh -----------------------------------------------------------------------------------------
def whoosh_engine(tmp: Path, entries: list[Entry]) -> tuple[Searcher, float]:
    """BM25 fused with the semantic signal (issue 49), as the app searches."""
    store = IndexStore(tmp / "index")
    with store.lock():
        meta = store.build(entries, corpus_hash(DEFAULT_CORPUS, shipped_rulebooks()))
    kb = KnowledgeBase(tmp / "index")
    started = time.perf_counter()
    kb.fusion.passages(kb._engine())  # the entries' vectors: built with the index, timed with it
    kb.fusion.model_passages(kb._engine())
    build = meta["build_seconds"] + time.perf_counter() - started

    def search(q: str, limit: int) -> list[str]:
        return [r["id"] for r in kb.search(q, limit=limit)]

    return search, build


def bm25_engine(
    tmp: Path,
    fields: tuple[tuple[str, float], ...] | None = None,
    semantic: bool = False,
    model: bool = False,
) -> tuple[Searcher, float]:
    """The same index searched by BM25 over ``fields`` (None: the app's), with the static
    vectors or without them (as without numpy), with the sentence model or without it (as
    without ONNX Runtime)."""
    kb = KnowledgeBase(tmp / "index")
    if fields is not None:
        kb.text_fields = fields
    kb.fusion = Fusion(
        load_embedder if semantic else None,
        kept=kb.fusion.kept,
        model=load_model if model else None,
    )

    def search(q: str, limit: int) -> list[str]:
        return [r["id"] for r in kb.search(q, limit=limit)]

    return search, 0.0


def semantic_engine(entries: list[Entry]) -> tuple[Searcher, float]:
    """The semantic signal alone: each entry's closeness to the question, nothing lexical."""
    shared = load_embedder()
    if shared is None:
        raise RuntimeError("the semantic signal is off (numpy or faq/semantic data missing)")
    # a fresh embedder: its cache of texts empty, so the build is timed cold
    embedder = Embedder(shared.table, WordPiece(shared.tokenizer.vocab))
    started = time.perf_counter()
    passages = Passages(embedder, ((n, e.as_dict()) for n, e in enumerate(entries)))
    build = time.perf_counter() - started

    return _by_closeness(entries, passages, embedder), build


def model_engine(entries: list[Entry]) -> tuple[Searcher, float]:
    """The sentence model alone: each entry's closeness to the question, nothing lexical; its
    build time is the model embedding every entry and asked question (no shipped vectors)."""
    model = load_model()
    if model is None:
        raise RuntimeError("the sentence model is off (onnxruntime or faq/semantic data missing)")
    started = time.perf_counter()
    passages = ModelPassages(model, ((n, e.as_dict()) for n, e in enumerate(entries)))
    build = time.perf_counter() - started

    return _by_closeness(entries, passages, model), build


def _by_closeness(entries: list[Entry], passages: Any, signal: Any) -> Searcher:
    """Search ``entries`` by ``passages``' closeness to the question's vector (from ``signal``)."""

    def search(q: str, limit: int) -> list[str]:
        close = passages.closeness(signal.vector(q))
        best = sorted(close, key=lambda d: -close[d])[:limit]
        return [entries[d].id for d in best]

    return search


def _package_mb(name: str) -> float:
    """A package's installed size (its directory), in MB; 0 when absent."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return 0.0
    return sum(f.stat().st_size for f in Path(spec.origin).parent.rglob("*") if f.is_file()) / 1e6


# -- event links ----------------------------------------------------------------------------------
def _pr(found: list[str], wanted: list[str]) -> tuple[float, float | None]:
    """precision@5 (of what is shown; nothing shown is right only when nothing is wanted) and
    recall@5 (``None`` when nothing is wanted)."""
    top = found[:5]
    hit = len(set(top) & set(wanted))
    precision = hit / len(top) if top else (0.0 if wanted else 1.0)
    recall = hit / min(len(wanted), 5) if wanted else None
    return precision, recall


def event_links(tmp: Path) -> dict[str, float]:
    """Precision@5 / recall@5 of each event's links against the set's judgements."""
    data = json.loads(EVENTSET.read_text(encoding="utf-8"))
    clubs = [
        ClubRuling(**{**c, "rule_refs": tuple(c["rule_refs"]), "topics": tuple(c["topics"])})
        for c in data["club_rulings"]
    ]
    kb = KnowledgeBase(tmp / "events-index", club_rulings=lambda: clubs)
    systems = {s.name: s for s in build_registry()}
    gp, gr, rp, rr, abstained = [], [], [], [], 0
    times = []
    for ev in data["events"]:
        system = systems[ev["game"]]
        declared = system.governing(ev["type"])
        started = time.perf_counter()
        out = kb.for_event(
            system.document or system.name,
            declared.sections,
            declared.topics,
            ev["facts"],
            limit=5,
            event_type=ev["type"],
        )
        times.append((time.perf_counter() - started) * 1000)
        p, r = _pr([g["id"] for g in out["governing"]], ev["governing"])
        gp.append(p)
        gr.append(r if r is not None else 1.0)
        p, r = _pr([x["id"] for x in out["related"]], ev["related"])
        rp.append(p)
        if r is not None:
            rr.append(r)
        abstained += 1 if not out["related"] and not ev["related"] else 0
    kb.close()
    times.sort()
    return {
        "events": len(data["events"]),
        "governing_p_at_5": statistics.mean(gp),
        "governing_r_at_5": statistics.mean(gr),
        "related_p_at_5": statistics.mean(rp),
        "related_r_at_5": statistics.mean(rr) if rr else 1.0,
        "events_with_related": len(rr),
        "right_no_ruling_is_close": abstained,
        "for_event_p50_ms": times[len(times) // 2],
    }


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds used by a process and its descendants (its workers), from
    /proc: ``utime`` and ``stime`` of each."""
    stats: dict[int, tuple[int, int]] = {}  # pid -> (parent, ticks)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(stat.parent.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    tree, grew = {pid}, True
    while grew:
        more = {p for p, (parent, _) in stats.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(stats[p][1] for p in tree if p in stats) / os.sysconf("SC_CLK_TCK")


# -- HTTP -----------------------------------------------------------------------------------------
def http_latency(devset: list[dict]) -> dict[str, float] | str:
    """``GET /api/rules/search`` p50/p99 against a real ``arbiter serve`` over loopback."""
    import requests

    from bench.serve import arbiter_serve

    try:
        with arbiter_serve() as (base, server):
            session = requests.Session()
            url = base + "/api/rules/search"
            games = ("merida", "backbone", "bizkaya", "barcelona", None)
            for item in devset:  # warm up: the index is built on first use
                session.get(url, params={"q": item["q"]}, timeout=120).raise_for_status()
            times = []
            cpu_before = _process_cpu(server.pid)
            for n in range(HTTP_QUERIES):
                item = devset[n % len(devset)]
                params = {"q": item["q"]}
                game = games[n % len(games)]
                if game:
                    params["game"] = game
                started = time.perf_counter()
                session.get(url, params=params, timeout=10).raise_for_status()
                times.append((time.perf_counter() - started) * 1000)
            cpu = (_process_cpu(server.pid) - cpu_before) / HTTP_QUERIES * 1000
            times.sort()
            return {
                "p50_ms": times[len(times) // 2],
                "p99_ms": times[int(len(times) * 0.99) - 1],
                "server_cpu_ms_per_request": cpu,
            }
    except RuntimeError as exc:  # the server did not start
        return str(exc)


# -- FTS5 baseline ------------------------------------------------------------------------------------
_FIRST_SEARCH = """
import sys, time
from faq.search import KnowledgeBase
kb = KnowledgeBase(sys.argv[1])
if sys.argv[2] == "embed":
    kb.fusion.kept = lambda: None  # as before the vectors were kept: every entry embedded
started = time.process_time()
kb.search("can my tanks go over the river")
print(time.process_time() - started)
"""


def first_search(tmp: Path) -> dict[str, float]:
    """CPU seconds of a new process's first search (the median of three processes each),
    reading the entries' vectors kept with the index, and embedding them all as before."""
    index_dir = tmp / "first-search-index"
    KnowledgeBase(index_dir).close()
    out = {}
    for way in ("kept", "embed"):
        runs = [
            float(
                subprocess.run(
                    [sys.executable, "-c", _FIRST_SEARCH, str(index_dir), way],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()[-1]
            )
            for _ in range(3)
        ]
        out[way] = statistics.median(runs)
    return out


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
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP measurement")
    args = parser.parse_args(argv or [])
    devset = load_devset()
    frozen = load_frozenset()
    frozen_2 = load_frozenset(FROZENSET_2)
    frozen_3 = load_frozenset(FROZENSET_3)
    started = time.perf_counter()
    entries = load_corpus(DEFAULT_CORPUS).entries
    parse_s = time.perf_counter() - started
    figures: dict[str, dict[str, float]] = {}
    subsets: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (search, build_s) in (
            ("whoosh", whoosh_engine(Path(tmp), entries)),
            ("texts", bm25_engine(Path(tmp), TEXTS_ONLY)),
            ("asked", bm25_engine(Path(tmp), ASKED_ONLY)),
            ("bm25", bm25_engine(Path(tmp))),
            ("before", bm25_engine(Path(tmp), semantic=True)),
            ("semantic", semantic_engine(entries)),
            ("model", model_engine(entries)),
            ("fts5", fts5_engine(entries)),
        ):
            subsets[name] = {
                label: quality(search, [q for q in devset if (q.get("set") == "issue-15") == new])
                for label, new in (("earlier", False), ("issue-15", True))
            }
            subsets[name]["frozen"] = quality(search, frozen)
            subsets[name]["frozen-2"] = quality(search, frozen_2)
            subsets[name]["frozen-3"] = quality(search, frozen_3)
            figures[name] = {
                **quality(search, devset),
                **latency(search, devset),
                "build_s": build_s,
                "build_with_parse_s": build_s + parse_s,
            }
        links = event_links(Path(tmp))
        first = first_search(Path(tmp))
    http: dict[str, float] | str = "skipped (--no-http)"
    if not args.no_http:
        try:
            http = http_latency(devset)
        except Exception as exc:  # noqa: BLE001 - the search figures stand without it
            http = f"not measured: {exc!r}"
    if args.json:
        out = {"questions": len(devset), "entries": len(entries), "loadavg": os.getloadavg()}
        extra = {"subsets": subsets, "event_links": links, "http": http, "first_search_s": first}
        print(json.dumps({**out, **figures, **extra}, indent=1))
        return 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Search benchmark: {len(devset)} dev-set questions, {len(entries)} entries")
    print(f"(latencies are wall-clock on this machine; load average {load}, {os.cpu_count()} CPUs)")
    print(f"{'metric':<22}{'fused':>12}{'fts5 bm25':>12}{'ratio':>10}")
    for key, label in (
        ("recall_at_5", "Recall@5"),
        ("hit_at_5", "Hit@5"),
        ("mrr", "MRR"),
        ("p50_ms", "latency p50 (ms)"),
        ("p99_ms", "latency p99 (ms)"),
        ("cpu_p50_ms", "CPU per query p50"),
        ("cpu_p99_ms", "CPU per query p99"),
        ("build_s", "index build (s)"),
        ("build_with_parse_s", "parse + build (s)"),
    ):
        w, f = figures["whoosh"][key], figures["fts5"][key]
        ratio = f"{w / f:.2f}x" if f else "-"
        print(f"{label:<22}{w:>12.3f}{f:>12.3f}{ratio:>10}")
    for label in ("earlier", "issue-15"):
        w, f = subsets["whoosh"][label], subsets["fts5"][label]
        print(
            f"  {label} questions: Recall@5 {w['recall_at_5']:.3f} vs {f['recall_at_5']:.3f}, "
            f"MRR {w['mrr']:.3f} vs {f['mrr']:.3f}"
        )
    print(
        f"\nSignals (issue 49): development set ({len(devset)} questions) and three frozen sets "
        f"({len(frozen)}, {len(frozen_2)}, {len(frozen_3)}) in players' words, never tuned on "
        "(the first's misses were read in stop 64); each: Recall@5, Hit@5, MRR"
    )
    print(f"{'search':<30}{'dev':>20}{'frozen':>20}{'frozen-2':>20}{'frozen-3':>20}")
    for name, label in (
        ("texts", "BM25 alone (texts)"),
        ("asked", "asked questions alone"),
        ("bm25", "texts + asked (BM25F)"),
        ("semantic", "static vectors alone"),
        ("model", "sentence model alone"),
        ("before", "BM25F + static (before)"),
        ("whoosh", "fused (the app)"),
        ("fts5", "SQLite FTS5"),
    ):
        cells = [figures[name], *(subsets[name][s] for s in ("frozen", "frozen-2", "frozen-3"))]
        print(
            f"{label:<30}"
            + "".join(
                f"{c['recall_at_5']:>8.3f}{c['hit_at_5']:>6.3f}{c['mrr']:>6.3f}" for c in cells
            )
        )
    size = sum((DATA_DIR / f).stat().st_size for f in (TOKENS_FILE, VOCAB_FILE)) / 1e6
    model_size = sum((DATA_DIR / f).stat().st_size for f in (MODEL_FILE, SHIPPED_FILE)) / 1e6
    print(
        f"on disk: static vectors {size:.1f} MB, sentence model and its shipped vectors "
        f"{model_size:.1f} MB (ONNX Runtime {_package_mb('onnxruntime'):.0f} MB installed); "
        f"index build with the entries' vectors {figures['whoosh']['build_s']:.2f} s (the static "
        f"vectors alone {figures['semantic']['build_s']:.2f} s; the sentence model embedding "
        f"every text without its shipped vectors {figures['model']['build_s']:.2f} s)"
    )
    print(
        f"a new process's first search: {first['kept']:.3f} s of CPU with the entries' vectors "
        f"kept with the index, {first['embed']:.3f} s embedding them "
        f"({first['embed'] / first['kept']:.1f}x)"
    )
    print(
        f"\nEvent links: {links['events']} events of bench/data/eventset.json "
        f"({links['events_with_related']} with related rulings wanted)"
    )
    print(f"{'links':<22}{'P@5':>12}{'R@5':>12}")
    print(f"{'governing':<22}{links['governing_p_at_5']:>12.3f}{links['governing_r_at_5']:>12.3f}")
    print(
        f"{'related rulings':<22}{links['related_p_at_5']:>12.3f}{links['related_r_at_5']:>12.3f}"
    )
    print(
        f"'no FWtBT ruling is close' and right: {links['right_no_ruling_is_close']} events; "
        f"for_event p50 {links['for_event_p50_ms']:.2f} ms"
    )
    if isinstance(http, dict):
        print(
            f"\nGET /api/rules/search over HTTP ({HTTP_QUERIES} requests, a real arbiter serve): "
            f"p50 {http['p50_ms']:.2f} ms, p99 {http['p99_ms']:.2f} ms; "
            f"server CPU {http['server_cpu_ms_per_request']:.2f} ms per request"
        )
    else:
        print(f"\nGET /api/rules/search over HTTP: {http}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
