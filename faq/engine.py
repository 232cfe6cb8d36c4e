"""Ranking over an open whoosh searcher, with what never changes between queries cached.

whoosh keeps the index: the lexicon, the postings and the BM25F statistics, scored by
:class:`faq.scoring.CachedBM25F` exactly as ``searcher.search`` would.  What this adds, per opened
searcher (a rebuild or a club-ruling change opens a new one, and so a new engine):

* each term's scored postings, read once (a query is then a sum of a few short lists, instead of
  whoosh building a matcher tree and scoring postings in Python for every query);
* each query's compiled terms (``Plan`` -> weighted terms), so a repeated question costs a lookup;
* the stored entries, parsed once, and the document filters as sets of document numbers.

A query's score is whoosh's ``Or`` of its terms: the sum of ``boost * BM25F`` over the terms a
document holds; ties go to the earlier document, as whoosh orders them.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from whoosh.searching import Searcher

from faq.analysis import GROUP_PREFIX
from faq.query import MAX_WORDS, TEXT_FIELDS, TOPIC_BOOST, Plan, Term, ref_terms, word_terms

#: words in more than this share of the entries are dropped when other words remain: they score
#: next to nothing and cost the most to match
COMMON_WORD_SHARE = 0.3
#: weight of a derived form (``defence`` for ``defend``) and of a spelling correction
VARIANT_BOOST = 0.6
FUZZY_BOOST = 0.8
_SUFFIXES = ("ations", "ation", "ments", "ment", "ives", "ive", "ions", "ion", "ers", "er", "ors",
             "or", "ing", "als", "al", "ances", "ance", "ences", "ence", "ity", "s", "e")  # fmt: skip


def root(stem: str) -> str:
    """A stem's derivational root: ``movement`` and ``move`` -> ``move``; ``defens``, ``defenc``
    and ``defend`` -> ``defend``."""
    r = stem
    if r.endswith(("ns", "nc")) and len(r) >= 5:
        r = r[:-1] + "d"
    for suffix in _SUFFIXES:
        if r.endswith(suffix) and len(r) - len(suffix) >= 4:
            return r[: -len(suffix)]
    return r


@dataclass(frozen=True)
class Compiled:
    terms: tuple[Term, ...]
    highlight: tuple[str, ...]
    dropped: tuple[str, ...] = ()  # words left out (common, or beyond the rarest MAX_WORDS)
    corrected: tuple[tuple[str, str], ...] = ()  # (word as asked, word found)


class Engine:
    """Ranking for one opened searcher."""

    def __init__(
        self, searcher: Searcher, text_fields: tuple[tuple[str, float], ...] = TEXT_FIELDS
    ) -> None:
        self.searcher = searcher
        #: the text fields a word is looked for in, with their weights (the benchmark's rows
        #: search some of them alone)
        self.text_fields = text_fields
        self.reader = searcher.reader()
        self._postings: dict[tuple[str, str], list[tuple[int, float]]] = {}
        self._compiled: dict[Plan, Compiled] = {}
        self._stored: dict[int, dict[str, Any]] | None = None
        self._entries: dict[int, dict[str, Any]] = {}
        self._allowed: dict[Any, frozenset[int]] = {}
        self._roots: dict[str, list[str]] | None = None
        self._fuzzy: dict[str, tuple[str, ...]] = {}

    # -- stored entries --------------------------------------------------------------------------
    @property
    def stored(self) -> dict[int, dict[str, Any]]:
        if self._stored is None:
            self._stored = dict(self.reader.iter_docs())
        return self._stored

    def entry(self, docnum: int) -> dict[str, Any]:
        found = self._entries.get(docnum)
        if found is None:
            found = self._entries[docnum] = json.loads(self.stored[docnum]["payload"])
        return found

    def allowed(
        self,
        document: str | None,
        key: str | None = None,
        keep: Callable[[dict[str, Any]], bool] | None = None,
    ) -> frozenset[int] | None:
        """The document numbers a filter lets through (``None``: all), cached by its key."""
        if document is None and keep is None:
            return None
        cache_key = (document, key)
        if cache_key not in self._allowed:
            docs = set()
            for d, f in self.stored.items():
                doc = f.get("document", "")
                if document == "club" and not doc.startswith("club:"):
                    continue
                if document not in (None, "club") and doc != document:
                    continue
                if keep is not None and not keep(f):
                    continue
                docs.add(d)
            self._allowed[cache_key] = frozenset(docs)
        return self._allowed[cache_key]

    # -- terms -------------------------------------------------------------------------------------
    def postings(self, field: str, text: str) -> list[tuple[int, float]]:
        key = (field, text)
        found = self._postings.get(key)
        if found is None:
            found = []
            if (field, text) in self.reader:
                m = self.searcher.postings(field, text)
                while m.is_active():
                    found.append((m.id(), m.score()))
                    m.next()
            self._postings[key] = found
        return found

    def df(self, word: str) -> int:
        """How many entries hold ``word`` in a text field (0: a word to correct): every text field
        the app searches, whichever :attr:`text_fields` a benchmark row searches (a word only
        players use is not "corrected" away)."""
        return sum(self.reader.doc_frequency(f, word) for f, _ in TEXT_FIELDS)

    def variants(self, word: str) -> list[str]:
        """Other stems in the index with the same root (derived forms)."""
        if self._roots is None:
            roots: dict[str, list[str]] = {}
            for raw in self.reader.lexicon("content"):
                term = raw.decode("utf-8") if isinstance(raw, bytes) else raw
                if term.isalpha() and len(term) >= 4:
                    roots.setdefault(root(term), []).append(term)
            self._roots = roots
        return [t for t in self._roots.get(root(word), ()) if t != word]

    def corrections(self, word: str) -> tuple[str, ...]:
        """Index words within one edit (two for long words) of a word no entry holds, the most
        frequent first (at most two)."""
        if word not in self._fuzzy:
            found: tuple[str, ...] = ()
            if word.isalpha() and len(word) >= 4:
                dist = 1 if len(word) <= 5 else 2
                near = [
                    t.decode("utf-8") if isinstance(t, bytes) else t
                    for t in self.reader.terms_within("content", word, dist)
                ]
                near = [t for t in near if t != word and t.isalpha()]
                near.sort(key=lambda t: (-self.df(t), t))
                found = tuple(near[:2])
            self._fuzzy[word] = found
        return self._fuzzy[word]

    def compile(self, plan: Plan) -> Compiled:
        found = self._compiled.get(plan)
        if found is None:
            found = self._compiled[plan] = self._compile(plan)
        return found

    def _compile(self, plan: Plan) -> Compiled:
        highlight = list(plan.terms)
        corrected: list[tuple[str, str]] = []
        words: list[tuple[str, int, list[Term]]] = []  # (word, df in content, terms)
        for w in plan.words:
            found = self._word(w, highlight, corrected)
            if found is not None:
                words.append(found)
        words, dropped = self._trimmed(words, plan)
        terms: list[Term] = [t for r in plan.refs for t in ref_terms(r)]
        for _, _, ts in words:
            terms += ts
        terms += [("topics", t, TOPIC_BOOST) for t in plan.topics]
        return Compiled(tuple(terms), tuple(dict.fromkeys(highlight)), tuple(dropped),
                        tuple(corrected))  # fmt: skip

    def _word(
        self, w: str, highlight: list[str], corrected: list[tuple[str, str]]
    ) -> tuple[str, int, list[Term]] | None:
        """A word's terms with its corrections (a word no document holds) or its variants, and
        its document frequency; None for a word nothing corrects.  What is added to the
        highlight and the corrections is appended to ``highlight`` and ``corrected``."""
        df = self.df(w)
        content_df = self.reader.doc_frequency("content", w)
        wterms = word_terms(w, fields=self.text_fields)
        if df == 0 and not w.startswith(GROUP_PREFIX):
            for fix in self.corrections(w):
                wterms += word_terms(fix, FUZZY_BOOST, self.text_fields)
                highlight.append(fix)
                corrected.append((w, fix))
                df += self.df(fix)
            if df == 0:
                return None
        elif not w.startswith(GROUP_PREFIX):
            for v in self.variants(w):
                wterms += word_terms(v, VARIANT_BOOST, self.text_fields)
                highlight.append(v)
        return w, content_df if content_df else df, wterms

    def _trimmed(
        self, words: list[tuple[str, int, list[Term]]], plan: Plan
    ) -> tuple[list[tuple[str, int, list[Term]]], list[str]]:
        """The words kept and those dropped: the common ones when something rarer is asked
        (another word, a reference, a topic), and past MAX_WORDS all but the rarest."""
        cutoff = COMMON_WORD_SHARE * self.searcher.doc_count()
        dropped: list[str] = []
        common = [x for x in words if x[1] > cutoff]
        if common and (len(common) < len(words) or plan.refs or plan.topics):
            dropped += [w for w, _, _ in common]
            words = [x for x in words if x[1] <= cutoff]
        if len(words) > MAX_WORDS:  # a long pasted question: its rarest words
            keep = {w for w, _, _ in sorted(words, key=lambda x: x[1])[:MAX_WORDS]}
            dropped += [w for w, _, _ in words if w not in keep]
            words = [x for x in words if x[0] in keep]
        return words, dropped

    # -- ranking -----------------------------------------------------------------------------------
    def scores(self, terms: Iterable[Term], allowed: frozenset[int] | None) -> dict[int, float]:
        acc: dict[int, float] = {}
        get = acc.get
        for field, text, boost in terms:
            for d, score in self.postings(field, text):
                acc[d] = get(d, 0.0) + score * boost
        if allowed is not None:
            acc = {d: s for d, s in acc.items() if d in allowed}
        return acc

    def top(
        self, terms: Iterable[Term], k: int, allowed: frozenset[int] | None
    ) -> list[tuple[int, float]]:
        acc = self.scores(terms, allowed)
        return heapq.nlargest(k, acc.items(), key=lambda x: (x[1], -x[0]))
