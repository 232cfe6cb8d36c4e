"""KnowledgeBase: search the rules corpus, FAQ rulings, conflicts and club rulings."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from whoosh import query as Q
from whoosh.searching import Searcher

from faq.corpus import DEFAULT_CORPUS, corpus_hash, load_corpus, rulebooks_or_shipped
from faq.errors import EntryNotFound, QueryError
from faq.index import IndexStore, Progress, club_ruling_of
from faq.model import CLUB_RULING, CONFLICT, FAQ_DOCUMENT, RULING, ClubRuling, club_entry_id
from faq.query import Plan, build_query, has_words
from faq.scoring import CachedBM25F
from faq.snippets import snippet, term_pattern
from service.rules.base import Rulebook

MAX_QUERY = 500
MAX_LIMIT = 100
COMMON_WORD_SHARE = 0.3
_CLUB_DOC = re.compile(r"^club(:[\w.\-]+)?$")

ClubSource = Callable[[], Iterable[ClubRuling]]


class KnowledgeBase:
    """Search over an on-disk index in ``index_dir`` (the app uses ``$ARBITER_VAR/index``).

    It indexes the FWtBT FAQ and the ``rulebooks`` it is given -- the games' own, as the
    composition root collects them from the registry (``None``: the registered games' rulebooks,
    :func:`service.rules.rulebook.shipped_rulebooks`).

    Construction is cheap when the index matches the corpus (content hash): nothing is parsed.
    Otherwise the corpus is parsed and the index rebuilt, re-adding club rulings from
    ``club_rulings`` (their true store; the index is only a cache).
    """

    def __init__(
        self,
        index_dir: Path | str,
        corpus_dir: Path | str = DEFAULT_CORPUS,
        club_rulings: ClubSource | None = None,
        rulebooks: Sequence[Rulebook] | None = None,
    ) -> None:
        self.store = IndexStore(Path(index_dir))
        self.corpus_dir = Path(corpus_dir)
        self.club_rulings = club_rulings
        self.rulebooks = rulebooks_or_shipped(rulebooks)
        #: the searchable documents: the FAQ, then each rulebook's
        self.documents = (FAQ_DOCUMENT, *(r.document for r in self.rulebooks))
        self.corpus_hash = corpus_hash(self.corpus_dir, self.rulebooks)
        self._searcher: Searcher | None = None
        self._stamp: tuple[int, int] | None = None
        self._rulebooks: dict[str, list[dict[str, Any]]] = {}  # per searcher: entries in order
        if not self.store.is_current(self.corpus_hash):
            with self.store.lock():
                if not self.store.is_current(self.corpus_hash):
                    self._build(None)
        self._open()

    # -- index lifecycle ---------------------------------------------------------------------------
    def _build(self, progress: Progress | None) -> dict[str, Any]:
        entries = load_corpus(self.corpus_dir, self.rulebooks).entries
        if self.club_rulings is not None:
            clubs = list(self.club_rulings())
        else:  # no true store given: carry over the club rulings already indexed
            clubs = self._indexed_club_rulings()
        return self.store.build(entries, self.corpus_hash, clubs, progress)

    def _indexed_club_rulings(self) -> list[ClubRuling]:
        if self.store.current() is None:
            return []
        with self.store.open().searcher() as searcher:
            payloads = [json.loads(f["payload"]) for f in searcher.documents(kind=CLUB_RULING)]
        return [club_ruling_of(p) for p in payloads]

    def rebuild(self, progress: Progress | None = None) -> dict[str, Any]:
        """Parse the corpus and write a fresh index (club rulings re-added from their store)."""
        with self.store.lock():
            meta = self._build(progress)
        self._open()
        return meta

    def meta(self) -> dict[str, Any]:
        return self.store.meta() or {}

    def _open(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
        self._stamp = self.store.pointer_stamp()
        self._searcher = self.store.open().searcher(weighting=CachedBM25F())
        self._rulebooks = {}

    def searcher(self) -> Searcher:
        """The searcher, refreshed if another process rebuilt the index or changed club rulings."""
        if (
            self._searcher is None
            or self.store.pointer_stamp() != self._stamp
            or not self._searcher.up_to_date()
        ):
            # reopen rather than Searcher.refresh(): refresh reuses segment readers and so
            # misses deletions made in a segment it already had open
            self._open()
        assert self._searcher is not None
        return self._searcher

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None

    # -- club rulings -----------------------------------------------------------------------------
    def add_club_ruling(self, ruling: ClubRuling) -> str:
        """Index (or replace) a club ruling now; returns its entry id (``club-ruling:<id>``)."""
        with self.store.lock():
            self.store.write_club(add=ruling)
        return ruling.entry_id

    def remove_club_ruling(self, ruling_id: str) -> bool:
        """Drop a club ruling (by its id or entry id); True if it was in the index."""
        with self.store.lock():
            return self.store.write_club(remove=club_entry_id(ruling_id))

    # -- reading ------------------------------------------------------------------------------------
    def get(self, entry_id: str) -> dict[str, Any]:
        fields = self.searcher().document(id=entry_id)
        if fields is None:
            raise EntryNotFound(entry_id)
        return json.loads(fields["payload"])

    def search(
        self, text: str, limit: int = 10, document: str | None = None
    ) -> list[dict[str, Any]]:
        """Results best first: id, kind, document, heading, rule_refs, snippet, score, and for
        rulings question and answers.  Raises :class:`QueryError` for a bad request."""
        text = validate(text, limit, document, self.documents)
        plan = build_query(text)
        if plan.query is None:
            raise QueryError("q", "the query has no searchable words (only stop words)")
        return self._run(plan, limit, _document_filter(document))

    def timed_search(
        self, text: str, limit: int = 10, document: str | None = None
    ) -> dict[str, Any]:
        started = time.perf_counter()
        results = self.search(text, limit, document)
        return {"results": results, "took_ms": round((time.perf_counter() - started) * 1000, 2)}

    def _run(self, plan: Plan, limit: int, flt: Q.Query | None) -> list[dict[str, Any]]:
        searcher = self.searcher()
        # words in most entries ("unit", "hex") score next to nothing but cost the most to match
        cutoff = COMMON_WORD_SHARE * searcher.doc_count()
        common = {w for w in plan.words if searcher.doc_frequency("content", w) > cutoff}
        hits = searcher.search(plan.without(common), limit=limit, filter=flt)
        pattern = term_pattern(plan.terms)
        out = []
        for hit in hits:
            entry = json.loads(hit["payload"])
            out.append(_result(entry, hit.score, _snippet(entry, pattern)))
        return out

    # -- events ----------------------------------------------------------------------------------
    def for_event(
        self,
        document: str,
        sections: Iterable[str] = (),
        topics: Iterable[str] = (),
        facts: Iterable[str] = (),
        limit: int = 5,
    ) -> dict[str, list[dict[str, Any]]]:
        """What governs an event: ``governing`` -- the rulebook's entries with those section
        numbers (and their sub-sections), in the order asked, then the conflicts that cite them;
        ``related`` -- FWtBT and club rulings ranked for the topics and fact words."""
        if document not in self.documents or document == FAQ_DOCUMENT:
            raise QueryError("document", f"unknown rulebook {document!r}")
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError("limit", f"must be between 1 and {MAX_LIMIT}")
        sections = [str(s) for s in sections]
        topics = [t for t in topics if t]
        governing = self._governing(document, sections)
        words = " ".join([*topics, *(str(f) for f in facts)])[:MAX_QUERY]
        plan = build_query(words, topics)
        flt = Q.Or(
            [
                Q.Term("document", FAQ_DOCUMENT),
                Q.And(
                    [
                        Q.Term("kind", CLUB_RULING),
                        Q.Or([Q.Term("applies_to", document), Q.Term("applies_to", "any")]),
                    ]
                ),
            ]
        )
        related = self._run(plan, limit, flt) if plan.query is not None else []
        return {"governing": governing, "related": related}

    def _rulebook(self, document: str) -> list[dict[str, Any]]:
        """A rulebook's entries in order, parsed once per opened searcher (not per event)."""
        searcher = self.searcher()
        if document not in self._rulebooks:
            entries = [json.loads(f["payload"]) for f in searcher.documents(document=document)]
            self._rulebooks[document] = sorted(entries, key=lambda e: e["order"])
        return self._rulebooks[document]

    def _governing(self, document: str, sections: list[str]) -> list[dict[str, Any]]:
        entries = self._rulebook(document)
        chosen: list[dict[str, Any]] = []
        for wanted in sections:
            for e in entries:
                if e["kind"] != CONFLICT and _section_matches(e, wanted) and e not in chosen:
                    chosen.append(e)
        for e in entries:
            if e["kind"] == CONFLICT and set(e["rule_refs"]) & set(sections):
                chosen.append(e)
        return [_result(e, None, snippet(_text(e), None)) for e in chosen]


def validate(text: str, limit: int, document: str | None, documents: Sequence[str]) -> str:
    if not isinstance(text, str) or not text.strip():
        raise QueryError("q", "must not be empty")
    if len(text) > MAX_QUERY:
        raise QueryError("q", f"longer than {MAX_QUERY} characters")
    if not has_words(text):
        raise QueryError("q", "has no letters or digits")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise QueryError("limit", f"must be an integer between 1 and {MAX_LIMIT}")
    if document is not None and document not in documents and not _CLUB_DOC.match(document):
        known = ", ".join([*documents, "club", "club:<id>"])
        raise QueryError("document", f"unknown document {document!r} (known: {known})")
    return text.strip()


def _document_filter(document: str | None) -> Q.Query | None:
    if document is None:
        return None
    if document == "club":
        return Q.Prefix("document", "club:")
    return Q.Term("document", document)


def _section_matches(entry: dict[str, Any], wanted: str) -> bool:
    number = entry.get("number") or ""
    title = (entry.get("title") or "").lower()
    return (
        number == wanted
        or number.startswith(wanted + ".")
        or title == wanted.lower()
        or entry["id"] == f"{entry['document']}:{wanted}"
    )


def _result(entry: dict[str, Any], score: float | None, snippet: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": entry["id"],
        "kind": entry["kind"],
        "document": entry["document"],
        "heading": entry["heading"],
        "rule_refs": entry["rule_refs"],
        "topics": entry["topics"],
        "snippet": snippet,
        "score": round(score, 4) if score is not None else None,
    }
    if entry["kind"] in (RULING, CLUB_RULING):
        out["question"] = entry["question"]
        out["answers"] = [
            {k: a.get(k) for k in ("text", "authority", "date", "source", "signed")}
            for a in entry["answers"]
        ]
    else:
        out["number"] = entry.get("number")
        out["title"] = entry.get("title")
        out["section_type"] = entry.get("section_type")
        out["text"] = entry.get("text", "")
    return out


def _text(entry: dict[str, Any]) -> str:
    answers = "\n".join(a["text"] for a in entry.get("answers", []))
    return "\n".join(t for t in (entry.get("question"), answers, entry.get("text")) if t)


def _snippet(entry: dict[str, Any], pattern: re.Pattern[str] | None) -> str:
    """From the answers first (what a player wants), else the question, else the section text."""
    answers = "\n".join(a["text"] for a in entry.get("answers", []))
    for text in (answers, entry.get("question", ""), entry.get("text", "")):
        if text and pattern and pattern.search(text):
            return snippet(text, pattern)
    return snippet(_text(entry) or entry["heading"], None)
