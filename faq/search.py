"""KnowledgeBase: search the rules corpus, FAQ rulings, conflicts and club rulings."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from whoosh.searching import Searcher

from faq.analysis import GROUP_PREFIX, base_stems, group_stems
from faq.corpus import DEFAULT_CORPUS, corpus_hash, load_corpus, rulebooks_or_shipped
from faq.engine import Engine
from faq.errors import EntryNotFound, QueryError
from faq.fusion import Fusion
from faq.index import IndexStore, Progress, club_ruling_of
from faq.model import (
    CLUB_RULING,
    CONFLICT,
    FAQ_DOCUMENT,
    FAQ_FILE,
    FAQ_GAME,
    KINDS,
    RULING,
    ClubRuling,
    club_entry_id,
)
from faq.query import TEXT_FIELDS, Plan, find_game, has_words, parse, topic_keyword
from faq.scoring import CachedBM25F
from faq.snippets import flat, snippet, term_pattern
from faq.topics import topics_for
from service.rules.base import Rulebook
from service.rules.rulebook import Link

log = logging.getLogger(__name__)

MAX_QUERY = 500
MAX_LIMIT = 100
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
        titles: Mapping[str, str] | None = None,
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
        self._engine_obj: Engine | None = None
        self._engine_for: Searcher | None = None
        #: the text fields a question's words are looked for in, with their weights
        self.text_fields = TEXT_FIELDS
        #: games' short titles by document, for labels (None: the registry's, when first needed)
        self._titles: dict[str, str] | None = dict(titles) if titles is not None else None
        self._names: dict[str, tuple[str, ...]] | None = None
        #: the semantic signal beside BM25 (off without numpy or its data: BM25 alone)
        self.fusion = Fusion(kept=self.store.current)
        if not self.store.is_current(self.corpus_hash) or not self._vectors_kept():
            with self.store.lock():
                if not self.store.is_current(self.corpus_hash):
                    self._build(None)
                elif not self._vectors_kept():  # an index of a release that kept none
                    self._keep_vectors()
        self._open()

    # -- index lifecycle ---------------------------------------------------------------------------
    def _build(self, progress: Progress | None) -> dict[str, Any]:
        entries = load_corpus(self.corpus_dir, self.rulebooks).entries
        if self.club_rulings is not None:
            clubs = list(self.club_rulings())
        else:  # no true store given: carry over the club rulings already indexed
            clubs = self._indexed_club_rulings()
        meta = self.store.build(entries, self.corpus_hash, clubs, progress)
        self._keep_vectors()
        return meta

    def _vectors_kept(self) -> bool:
        """The semantic signal is off, or the index in use keeps its entries' vectors."""
        gen = self.store.current()
        files = self.fusion.files
        return not files or (gen is not None and all((gen / f).exists() for f in files))

    def _keep_vectors(self) -> None:
        """(Under the lock, after the index changed.)  Its entries' vectors kept beside it, for
        the first search of every process that opens it (:mod:`faq.semantic.kept`)."""
        gen = self.store.current()
        if gen is None or not self.fusion.on:
            return
        try:
            with self.store.open(gen).searcher(weighting=CachedBM25F()) as searcher:
                self.fusion.keep(Engine(searcher), gen)
        except OSError as exc:  # the search goes on, embedding the entries in each process
            log.warning("the entries' vectors could not be kept with the index: %s", exc)

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
            self._keep_vectors()
        return ruling.entry_id

    def remove_club_ruling(self, ruling_id: str) -> bool:
        """Drop a club ruling (by its id or entry id); True if it was in the index."""
        with self.store.lock():
            changed = self.store.write_club(remove=club_entry_id(ruling_id))
            if changed:
                self._keep_vectors()
            return changed

    def sync_club_rulings(
        self, in_force: Iterable[ClubRuling], withdrawn: Iterable[str]
    ) -> tuple[int, int]:
        """Bring the index's club rulings up to their true store, which another host may have
        changed: index those ``in_force`` that are missing, drop those ``withdrawn`` (ruling
        ids) that are there, in one commit under the lock; returns (added, removed).  A ruling
        is never changed once made, so its entry id says whether it is indexed; one indexed
        here that the store does not name yet (made on this host, its view not yet caught up)
        stays."""
        wanted = {r.entry_id: r for r in in_force}
        gone = {club_entry_id(r) for r in withdrawn}
        with self.store.lock():
            have = {r.entry_id for r in self._indexed_club_rulings()}
            add = [r for entry_id, r in wanted.items() if entry_id not in have]
            drop = sorted(have & gone)
            if add or drop:
                self.store.write_clubs(add, drop)
                self._keep_vectors()
        return len(add), len(drop)

    # -- reading ------------------------------------------------------------------------------------
    def get(self, entry_id: str) -> dict[str, Any]:
        fields = self.searcher().document(id=entry_id)
        if fields is None:
            raise EntryNotFound(entry_id)
        return json.loads(fields["payload"])

    def search(
        self,
        text: str,
        limit: int = 10,
        document: str | None = None,
        game: str | None = None,
        kind: str | None = None,
    ) -> list[dict[str, Any]]:
        """Results best first: id, kind, document, heading, rule_refs, snippet, score, ``scope``,
        ``source``, ``binding`` and ``belongs_to``, and for rulings question and answers.
        ``game`` (a rulebook's document, or named in the text: "in Merida ...") puts that game's
        rulebook (its sections and conflicts) first, then the club's rulings, then what binds
        it not -- another game's rulings (the FWtBT FAQ), persuasive only, and other games'
        rulebooks.  ``kind`` keeps the entries of one kind.  Raises :class:`QueryError`."""
        text = validate(text, limit, document, self.documents)
        check_kind(kind)
        if game is not None and game not in self.games:
            known = ", ".join(self.games)
            raise QueryError("game", f"unknown game {game!r} (known: {known})")
        named, rest = find_game(text, self._game_names())
        if named is not None and has_words(rest):
            text, game = rest, game or named
        plan = parse(text)
        if plan.empty:
            raise QueryError("q", "the query has no searchable words (only stop words)")
        return self._run(plan, limit, document, game, kind, text)

    def timed_search(
        self,
        text: str,
        limit: int = 10,
        document: str | None = None,
        game: str | None = None,
        kind: str | None = None,
    ) -> dict[str, Any]:
        started = time.perf_counter()
        results = self.search(text, limit, document, game, kind)
        return {"results": results, "took_ms": round((time.perf_counter() - started) * 1000, 2)}

    def conflicts(self, game: str | None = None) -> list[dict[str, Any]]:
        """Every conflict entry -- the readings the games settle in the open -- rulebook by
        rulebook in the order declared (``game``: that game's only), each with its ``readings``
        (rule and quote), ``engine_reading`` and ``option`` besides the usual result fields."""
        if game is not None and game not in self.games:
            known = ", ".join(self.games)
            raise QueryError("game", f"unknown game {game!r} (known: {known})")
        out = []
        for document in [game] if game is not None else self.games:
            for entry in self._rulebook(document):
                if entry["kind"] != CONFLICT:
                    continue
                extra = entry.get("extra") or {}
                out.append(
                    {
                        **_result(entry, None, snippet(_text(entry), None)),
                        **self._label(entry, game),
                        "readings": list(extra.get("readings", [])),
                        "engine_reading": extra.get("engine_reading", ""),
                        "option": extra.get("option"),
                    }
                )
        return out

    @property
    def games(self) -> tuple[str, ...]:
        """The rulebooks' documents: the games a search can be scoped to."""
        return tuple(r.document for r in self.rulebooks)

    def title(self, document: str) -> str:
        """A game's short title for labels (``Closing the Merida Pocket``)."""
        titles = self._titles
        if titles is None:
            titles = self._titles = _registry_titles()
        return titles.get(document) or document.capitalize()

    def _game_names(self) -> dict[str, tuple[str, ...]]:
        """Phrases that name each game in a question: its short title, and its document name
        unless that word also occurs in the FWtBT FAQ (Barcelona is a city there)."""
        if self._names is None:
            faq_text = (self.corpus_dir / FAQ_FILE).read_text(encoding="utf-8").lower()
            names: dict[str, tuple[str, ...]] = {}
            for document in self.games:
                phrases = [self.title(document).lower()]
                if not re.search(rf"\b{re.escape(document)}\b", faq_text):
                    phrases.append(document)
                names[document] = tuple(dict.fromkeys(phrases))
            self._names = names
        return self._names

    def _run(
        self,
        plan: Plan,
        limit: int,
        document: str | None,
        game: str | None,
        kind: str | None = None,
        text: str | None = None,
    ) -> list[dict[str, Any]]:
        engine = self._engine()
        compiled = engine.compile(plan)
        if kind is None:
            allowed = engine.allowed(document)
        else:
            allowed = engine.allowed(document, f"kind:{kind}", lambda f: f.get("kind") == kind)
        # a few more than asked: the score factors (conflicts, overruled) may reorder the edge
        fetch = limit + 5 if game is None else max(limit * 4, 40)
        text = self.fusion.asked(plan, text) if text is not None else None
        hits = self.fusion.top(engine, compiled.terms, text, fetch, allowed)
        scored = [(engine.entry(d), score) for d, score in hits]
        scored = _overruled_below(scored)  # (also re-sorts by the adjusted scores)
        if game is not None:  # stable: each bucket keeps the score order
            scored = sorted(scored, key=lambda x: _bucket(x[0], game))
        pattern = term_pattern(compiled.highlight)
        return [
            {
                **_result(e, score, _snippet(e, pattern, n < BEST_SNIPPETS)),
                **self._label(e, game),
                "why": self.fusion.why(engine, e, text, pattern),
            }
            for n, (e, score) in enumerate(scored[:limit])
        ]

    def _label(self, entry: dict[str, Any], game: str | None) -> dict[str, Any]:
        """``scope`` (game, club, fwtbt, other-game), ``binding`` (False: another game's, at most
        persuasive in ``game``), ``belongs_to`` (the title of the game it is of; None: a club's
        ruling for any game) and ``source``: a label for people, in words (game titles, no ids)."""
        doc = entry["document"]
        here = f" in {self.title(game)}" if game is not None else ""
        if doc == FAQ_DOCUMENT:  # the FAQ of a game played on no board here: never binding
            return {
                "scope": "fwtbt",
                "binding": False,
                "belongs_to": FAQ_GAME,
                "source": f"{FAQ_GAME} FAQ — another game's ruling: persuasive, not binding{here}",
            }
        if entry["kind"] == CLUB_RULING:
            applies = entry.get("applies_to")
            if game is not None and applies not in (None, "any", game):
                other = self.title(applies)
                return {
                    "scope": "other-game",
                    "binding": False,
                    "belongs_to": other,
                    "source": f"Club ruling for {other} (another game): persuasive, not "
                    f"binding{here}",
                }
            title = self.title(applies) if applies not in (None, "any") else None
            return {"scope": "club", "binding": True, "belongs_to": title, "source": "Club ruling"}
        if game is not None and doc != game:
            other = self.title(doc)
            return {
                "scope": "other-game",
                "binding": False,
                "belongs_to": other,
                "source": f"{other} rulebook (another game)",
            }
        title = self.title(doc)
        return {
            "scope": "game",
            "binding": True,
            "belongs_to": title,
            "source": f"{title} rulebook",
        }

    def _engine(self) -> Engine:
        searcher = self.searcher()
        if self._engine_for is not searcher:
            self._engine_obj = Engine(searcher, self.text_fields)
            self._engine_for = searcher
        assert self._engine_obj is not None
        return self._engine_obj

    # -- events ----------------------------------------------------------------------------------
    def for_event(
        self,
        document: str,
        sections: Iterable[str] = (),
        topics: Iterable[str] = (),
        facts: Iterable[str] = (),
        limit: int = 5,
        event_type: str | None = None,
    ) -> dict[str, Any]:
        """What governs an event, each link with ``why`` (the fact or declaration that matched):

        ``governing`` -- the rulebook's links declared for ``event_type`` (charts, sub-sections,
        and conflicts only when one of the event's facts triggers them), then the sections the
        event declares (a number and its numbered sub-sections), in the order asked;
        ``related`` -- club rulings for this rulebook, then FWtBT rulings above a relevance
        floor; ``note`` says "no FWtBT ruling is close" when none is."""
        if document not in self.documents or document == FAQ_DOCUMENT:
            raise QueryError("document", f"unknown rulebook {document!r}")
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError("limit", f"must be between 1 and {MAX_LIMIT}")
        facts = [str(f) for f in facts if f]
        topics = [t for t in topics if t]
        governing = self._governing(document, [str(s) for s in sections], event_type, facts)
        related, note = self._related(document, topics, facts, limit)
        return {"governing": governing, "related": related, "note": note}

    def _rulebook(self, document: str) -> list[dict[str, Any]]:
        """A rulebook's entries in order, parsed once per opened searcher (not per event)."""
        searcher = self.searcher()
        if document not in self._rulebooks:
            entries = [json.loads(f["payload"]) for f in searcher.documents(document=document)]
            self._rulebooks[document] = sorted(entries, key=lambda e: e["order"])
        return self._rulebooks[document]

    def _links(self, document: str) -> tuple[Link, ...]:
        book = next((r for r in self.rulebooks if r.document == document), None)
        return book.links if book is not None else ()

    def _governing(
        self, document: str, sections: list[str], event_type: str | None, facts: list[str]
    ) -> list[dict[str, Any]]:
        entries = self._rulebook(document)
        by_id = {e["id"]: e for e in entries}
        chosen: dict[str, str] = {}  # id -> why
        lowered = [f.lower() for f in facts]
        for link in self._links(document):
            hit = link.holds(event_type, lowered)
            if hit is None:
                continue
            entry_id = f"{document}:{link.entry.replace('.', '-')}"
            if entry_id in by_id and entry_id not in chosen:
                chosen[entry_id] = link.why + (f" (the event records: {hit})" if hit else "")
        strict = bool(self._links(document))
        _choose_declared(chosen, entries, sections, strict)
        if not strict:  # a rulebook without links: its conflicts by the rules they cite
            _choose_cited(chosen, entries, sections)
        return [
            {**_result(by_id[i], None, snippet(_text(by_id[i]), None)), "why": why,
             **self._label(by_id[i], document)}
            for i, why in chosen.items()
        ]  # fmt: skip

    def _related(
        self, document: str, topics: list[str], facts: list[str], limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        keywords = tuple(dict.fromkeys(topic_keyword(t) for t in topics))
        words = " ".join([*topics, *(f for f in facts if not _RESULT_CODE.match(f))])[:MAX_QUERY]
        plan = parse(words, tuple(topics))
        if plan.empty:
            return [], NO_FAQ_NOTE
        engine = self._engine()
        compiled = engine.compile(plan)
        pattern = term_pattern(compiled.highlight)
        # what the event's own facts say, beyond its type's topics and words every event has
        generic = set(base_stems(GENERIC_FACT_WORDS))
        fact_plan = parse(" ".join(f for f in facts if not _RESULT_CODE.match(f))[:MAX_QUERY])
        specific = term_pattern(_specific_terms(fact_plan, generic))

        def clubs(f: dict[str, Any]) -> bool:
            return f.get("kind") == CLUB_RULING and f.get("applies_to") in (document, "any")

        def faq(f: dict[str, Any]) -> bool:
            return f.get("document") == FAQ_DOCUMENT

        out: list[dict[str, Any]] = []
        for key, keep, floor in (("club", clubs, 0.0), ("faq", faq, RELATED_FLOOR)):
            allowed = engine.allowed(None, f"{key}:{document}", keep)
            for d, score in engine.top(compiled.terms, limit, allowed):
                entry = engine.entry(d)
                if key == "faq" and not _faq_fits(entry, score, floor, keywords, specific):
                    continue
                why = _why(entry, keywords, pattern)
                out.append(
                    {**_result(entry, score, _snippet(entry, pattern)), "why": why,
                     **self._label(entry, document)}
                )  # fmt: skip
        ranked = _overruled_below([(r, r["score"]) for r in out])
        # the club's rulings first, then another game's (persuasive only), each by score
        results = sorted((r for r, _ in ranked), key=lambda r: not r["binding"])[:limit]
        note = None if any(r["document"] == FAQ_DOCUMENT for r in results) else NO_FAQ_NOTE
        return results, note


def check_kind(kind: str | None) -> None:
    if kind is not None and kind not in KINDS:
        raise QueryError("kind", f"unknown kind {kind!r} (known: {', '.join(KINDS)})")


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


def _choose_declared(
    chosen: dict[str, str], entries: list[dict[str, Any]], sections: list[str], strict: bool
) -> None:
    """Add to ``chosen`` the entries (not conflicts) that the rules the game declares name."""
    for wanted in sections:
        for e in entries:
            if e["kind"] == CONFLICT or e["id"] in chosen:
                continue
            if _section_matches(e, wanted, strict):
                what = e.get("title") or e["heading"]
                chosen[e["id"]] = f"the game declares rule {wanted} ({what}) for this event"


def _choose_cited(
    chosen: dict[str, str], entries: list[dict[str, Any]], sections: list[str]
) -> None:
    """Add to ``chosen`` the conflicts that cite one of the rules the game declares."""
    for e in entries:
        if e["kind"] == CONFLICT and e["id"] not in chosen:
            cited = [r for r in e["rule_refs"] if r in sections]
            if cited:
                chosen[e["id"]] = f"cites rule {', '.join(cited)}, which governs this event"


def _faq_fits(
    entry: dict[str, Any],
    score: float,
    floor: float,
    keywords: tuple[str, ...],
    specific: re.Pattern[str] | None,
) -> bool:
    """Whether another game's ruling is related enough to show: above the floor, its own subject
    (its heading's rules and words) one of the event's topics -- a naval gunfire ruling is not
    about a land combat -- and its question naming what the event's own facts say."""
    subject = topics_for(entry.get("heading_refs", []), entry["heading"])
    asked = entry["heading"] + "\n" + entry.get("question", "")
    return not (
        score < floor
        or (keywords and not set(keywords) & set(subject))
        or specific is None
        or not specific.search(asked)
    )


def _why(entry: dict[str, Any], keywords: tuple[str, ...], pattern: re.Pattern[str] | None) -> str:
    """Why a related entry is shown: the event's topics it is about, the words it mentions."""
    on_topic = [t for t in keywords if t in entry.get("topics", [])]
    matched = _matched_words(entry, pattern)
    why = "about " + ", ".join(on_topic) if on_topic else ""
    if matched:
        why += ("; " if why else "") + "mentions " + ", ".join(matched)
    return why


def _section_matches(entry: dict[str, Any], wanted: str, numbered_only: bool = False) -> bool:
    """``wanted`` names the entry: its number or a numbered sub-section of it (``16`` -> 16.1),
    its title or its key.  An unnumbered sub-section (``8 Combat: Retreats``) goes with its
    parent's number unless ``numbered_only`` (the rulebook then links it where it applies)."""
    number = entry.get("number") or ""
    title = (entry.get("title") or "").lower()
    if numbered_only and not (entry.get("extra") or {}).get("numbered", True):
        number = ""
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
        keys = ("text", "authority", "date", "source", "signed", "note", "overruled")
        out["answers"] = [{k: a.get(k) for k in keys} for a in entry["answers"]]
        extra = entry.get("extra") or {}
        out["overruled"] = bool(extra.get("overruled"))
        if extra.get("overruled_by"):
            out["overruled_by"] = extra["overruled_by"]
    else:
        out["number"] = entry.get("number")
        out["title"] = entry.get("title")
        out["section_type"] = entry.get("section_type")
        out["text"] = entry.get("text", "")
    return out


def _text(entry: dict[str, Any]) -> str:
    answers = "\n".join(a["text"] for a in entry.get("answers", []))
    return "\n".join(t for t in (entry.get("question"), answers, entry.get("text")) if t)


def _flat_texts(entry: dict[str, Any]) -> tuple[str, str, str, str]:
    """The entry's answers, question, section text and all of it, each on one line -- kept on
    the (cached) entry, so a snippet does not re-join and re-split them for every query."""
    found = entry.get("_flat")
    if found is None:
        answers = flat("\n".join(a["text"] for a in entry.get("answers", [])))
        found = (
            answers,
            flat(entry.get("question", "")),
            flat(entry.get("text", "")),
            flat(_text(entry) or entry["heading"]),
        )
        entry["_flat"] = found
    return found  # type: ignore[no-any-return]


def _snippet(entry: dict[str, Any], pattern: re.Pattern[str] | None, best: bool = True) -> str:
    """From the answers first (what a player wants), else the question, else the section text.
    ``best=False`` (results below the top ones): the window at the first match."""
    answers, question, text, whole = _flat_texts(entry)
    if pattern is not None:
        for part in (answers, question, text):
            if part and pattern.search(part):
                return snippet(part, pattern, best=best)
    return snippet(whole, None)


#: the results whose snippet is the best window (the rest: the window at the first match)
BEST_SNIPPETS = 3

#: words most events' facts hold: they say nothing about which ruling applies
GENERIC_FACT_WORDS = (
    "attacker defender result odds unit units infantry cavalry clear movement tactical hex "
    "hexes side turn phase enemy entered column attack defend weather change none across moved "
    "move points step steps echelon level"
)
#: a FWtBT ruling is linked to an event only above this score (BM25F, topic boost included)
RELATED_FLOOR = 9.0
NO_FAQ_NOTE = "no FWtBT ruling is close"
#: result codes ("A1", "DR", "-/4R", "1/2") are not words to search for
_RESULT_CODE = re.compile(r"^(?:[A-Z]{1,2}\d?|[\d\-]+/[\dA-Z\-]+R?|odds .*)$")


def _specific_terms(plan: Plan, generic: set[str]) -> list[str]:
    """A fact's words that single a ruling out: no numbers, no generic words, no synonym group
    that holds a generic word (``3 movement points`` says nothing a ruling would be about)."""
    out: list[str] = []
    for word in plan.words:
        stems = group_stems()[word] if word.startswith(GROUP_PREFIX) else (word,)
        if set(stems) & generic:
            continue
        out += [t for t in stems if t.isalpha() and len(t) >= 3]
    return out


def _matched_words(entry: dict[str, Any], pattern: re.Pattern[str] | None) -> list[str]:
    if pattern is None:
        return []
    text = " ".join([entry["heading"], _text(entry)])
    return list(dict.fromkeys(m.group(0).lower() for m in pattern.finditer(text)))[:4]


def _bucket(entry: dict[str, Any], game: str) -> int:
    """Scoped order: the game's rulebook (its sections and conflicts), club rulings (for it or
    any game), then what does not bind it: another game's rulings and rulebooks."""
    if entry["document"] == game:
        return 0
    if entry["kind"] == CLUB_RULING and entry.get("applies_to") in (None, "any", game):
        return 1
    return 2


def _overruled_below(
    scored: list[tuple[dict[str, Any], float]],
) -> list[tuple[dict[str, Any], float]]:
    """An overruled ruling goes right below the ruling that replaced it (when both are found)."""
    out = sorted(((e, s * _factor(e)) for e, s in scored), key=lambda x: -x[1])
    for entry, _ in list(out):
        by = _overruled_by(entry)
        if not by:
            continue
        ids = [e["id"] for e, _ in out]
        if by in ids and ids.index(entry["id"]) < ids.index(by):
            item = out.pop(ids.index(entry["id"]))
            out.insert(ids.index(by), item)
    return out


#: an overruled ruling's score is scaled by this (it also goes below its replacement)
OVERRULED_FACTOR = 0.8
CONFLICT_FACTOR = 0.8


def _factor(entry: dict[str, Any]) -> float:
    """Scores scaled after ranking: an overruled ruling, and a conflict (a long text quoting two
    rules and the engine's reading, which matches many words of many questions)."""
    factor = OVERRULED_FACTOR if _overruled_by(entry) else 1.0
    return factor * (CONFLICT_FACTOR if entry["kind"] == CONFLICT else 1.0)


def _overruled_by(entry: dict[str, Any]) -> str | None:
    by = entry.get("overruled_by") or (entry.get("extra") or {}).get("overruled_by")
    return str(by) if by else None


def _registry_titles() -> dict[str, str]:
    """Short titles of the registry's games (``Closing the Merida Pocket``), by document."""
    from service.rules.registry import build_registry

    out = {}
    for system in build_registry():
        out[system.document or system.name] = system.title.split(" - ")[0].strip()
    return out
