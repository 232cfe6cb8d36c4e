"""Turn a player's question into weighted index terms: words (stemmed), synonym groups, rule refs,
topics -- and the game the question names, if any.

A :class:`Plan` is what the text says; :class:`faq.search.KnowledgeBase` then compiles it against
the index (drops words most entries hold, corrects words no entry holds, adds derived forms) and
caches the result per query text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from faq.analysis import GROUP_PREFIX, group_stems, query_tokens
from faq.refs import query_refs

#: the questions players ask of an entry (``faq.expansions``), against the texts' 1.0: chosen on
#: the development set only (MRR 0.859 without them; 0.884, 0.897, 0.927 at 0.25, 0.5, 1 to 3)
ASKED_WEIGHT = 1.5
TEXT_FIELDS = (("heading", 1.0), ("content", 1.0), ("asked", ASKED_WEIGHT))
TOPIC_BOOST = 2.0
REF_FIELDS = (("refs", 6.0), ("refs_text", 2.0), ("ref_tree", 1.5))
_RULE_WORDS = {"rule", "section", "point"}
#: words kept from a long pasted question (the rarest ones)
MAX_WORDS = 12

#: one weighted term: (field, text, boost)
Term = tuple[str, str, float]

#: topic names the games use -> the index's topic keywords (``faq.topics.TOPICS``)
TOPIC_ALIASES = {
    "zone of control": "zoc", "zones of control": "zoc", "zoc": "zoc",
    "air units": "air", "air points": "air", "air power": "air", "air support": "air",
    "set up": "setup", "deployment": "setup", "set-up": "setup", "orders of battle": "setup",
    "victory points": "victory", "victory conditions": "victory",
    "reinforcements": "reinforcement", "replacements": "replacement",
    "advance after combat": "advance", "retreat": "retreat", "withdrawal": "retreat",
    "movement points": "movement", "amphibious invasion": "amphibious", "beachhead": "amphibious",
    "automatic victory": "combat", "overrun": "combat", "combat results table": "combat",
    "trenches": "construction", "fortifications": "construction", "barrage": "artillery",
    "morale check": "morale", "demoralization": "morale", "euphoria": "morale",
    "leaders": "command", "headquarters": "command", "naval support": "naval",
    "paratrooper assault": "air", "overstacking": "stacking", "echelons": "stacking",
}  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """A parsed query: rule refs, words (stems or group tokens, in order), topics, the game it
    names (``None``) and every stem to highlight."""

    refs: tuple[str, ...]
    words: tuple[str, ...]
    topics: tuple[str, ...]
    terms: tuple[str, ...]
    game: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.refs or self.words or self.topics)


def word_terms(
    token: str, boost: float = 1.0, fields: tuple[tuple[str, float], ...] = TEXT_FIELDS
) -> list[Term]:
    return [(f, token, b * boost) for f, b in fields]


def ref_terms(ref: str) -> list[Term]:
    r = ref.lower()
    return [(f, r, b) for f, b in REF_FIELDS]


def topic_keyword(topic: str) -> str:
    """A game's topic name in the index's keywords (``zone of control`` -> ``zoc``)."""
    t = topic.strip().lower()
    return TOPIC_ALIASES.get(t, t)


@lru_cache(maxsize=64)
def _game_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(
        rf"(?:\b(?:in|for|of|on|under|with|from|at)\s+)?(?:the\s+)?\b(?:{names})\b"
        r"(?:\s+(?:game|rules?|rulebook)\b)?",
        re.I,
    )


def find_game(text: str, names: Mapping[str, Iterable[str]]) -> tuple[str | None, str]:
    """The game a question names (``in Merida, ...`` -> ``merida``) and the text without that
    name.  ``names`` maps each game's document to the phrases that name it."""
    for document, phrases in names.items():
        m = _game_pattern(tuple(phrases)).search(text)
        if m:
            rest = (text[: m.start()] + " " + text[m.end() :]).strip(" ,:;-")
            return document, " ".join(rest.split())
    return None, text


@lru_cache(maxsize=2048)
def parse(text: str, topics: tuple[str, ...] = ()) -> Plan:
    """What ``text`` asks: refs, words and synonym groups, and ``topics`` (index keywords)."""
    refs = query_refs(text)
    ref_tokens = {r.lower() for r in refs}
    tokens = list(dict.fromkeys(t for t in query_tokens(text) if t not in ref_tokens))
    if refs:
        tokens = [t for t in tokens if t not in _RULE_WORDS]
    terms: list[str] = list(refs)
    for t in tokens:
        terms += group_stems()[t] if t.startswith(GROUP_PREFIX) else [t]
    keywords = tuple(dict.fromkeys(topic_keyword(t) for t in topics if t))
    return Plan(tuple(refs), tuple(tokens), keywords, tuple(terms))


def has_words(text: str) -> bool:
    return bool(re.search(r"\w", text))
