"""Turn a player's question into a whoosh query: words (stemmed), synonym groups, rule refs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from whoosh import query as Q

from faq.analysis import GROUP_PREFIX, group_stems, query_tokens
from faq.refs import query_refs

TEXT_FIELDS = ("heading", "content")
TOPIC_BOOST = 2.0
REF_FIELDS = (("refs", 6.0), ("refs_text", 2.0), ("ref_tree", 1.5))
_RULE_WORDS = {"rule", "section", "point"}


@dataclass(frozen=True)
class Plan:
    """A parsed query: sub-queries for refs, words and topics, and every stem to highlight."""

    refs: list[str]
    words: list[str]
    parts: list[Q.Query]  # refs, then one per word (same order as ``words``), then topics
    terms: list[str]

    @property
    def query(self) -> Q.Query | None:
        return Q.Or(self.parts) if self.parts else None

    def without(self, common: set[str]) -> Q.Query | None:
        """The query minus the words in ``common`` (unless nothing else would be left)."""
        n = len(self.refs)
        kept = [
            p for i, p in enumerate(self.parts)
            if not (n <= i < n + len(self.words) and self.words[i - n] in common)
        ]  # fmt: skip
        return Q.Or(kept) if kept and len(kept) < len(self.parts) else self.query


def word_query(token: str) -> Q.Query:
    return Q.Or([Q.Term(f, token) for f in TEXT_FIELDS])


def ref_query(ref: str) -> Q.Query:
    r = ref.lower()
    return Q.Or([Q.Term(f, r, boost=b) for f, b in REF_FIELDS])


def build_query(text: str, topics: list[str] | None = None) -> Plan:
    """The whoosh query for ``text`` (and optional topics)."""
    refs = query_refs(text)
    ref_tokens = {r.lower() for r in refs}
    tokens = list(dict.fromkeys(t for t in query_tokens(text) if t not in ref_tokens))
    if refs:
        tokens = [t for t in tokens if t not in _RULE_WORDS]
    parts: list[Q.Query] = [ref_query(r) for r in refs]
    parts += [word_query(t) for t in tokens]
    for topic in topics or []:
        parts.append(Q.Term("topics", topic.lower(), boost=TOPIC_BOOST))
    terms = list(refs)
    for t in tokens:
        terms += group_stems()[t] if t.startswith(GROUP_PREFIX) else [t]
    return Plan(refs, tokens, parts, terms)


def has_words(text: str) -> bool:
    return bool(re.search(r"\w", text))
