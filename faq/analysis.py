"""The text analysis shared by indexing and queries.

``LanguageAnalyzer("en")`` (lower case, English stop words, Snowball stems: running -> run) with a
tokenizer that keeps ``c/m`` and ``a/c`` whole, followed by :class:`SynonymFilter`, which adds a
group token (``~zoc``) wherever any form of a synonym group occurs ("ZOC", "zones of control").
Indexing keeps the words and adds the group token; queries replace the words by it, so a query
in either form finds text in either form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from whoosh.analysis import Analyzer, Filter, LanguageAnalyzer, Token

from faq.synonyms import SYNONYM_GROUPS

#: ``c/m`` and ``a/c`` stay whole, and so do ``re-`` words: "re-enter" is not the unit size RE
TOKEN_PATTERN = re.compile(r"(?i:\b[a-z]/[a-z]\b)|(?i:\bre-[a-z]+)|\w+(?:\.?\w+)*")
GROUP_PREFIX = "~"


@lru_cache(maxsize=1)
def base_analyzer() -> Analyzer:
    return LanguageAnalyzer("en", expression=TOKEN_PATTERN)


def base_stems(text: str) -> tuple[str, ...]:
    return tuple(t.text for t in base_analyzer()(text))


@lru_cache(maxsize=1)
def synonym_forms() -> dict[tuple[str, ...], str]:
    """Analysed form -> its group token (``("zone", "control")`` -> ``~zoc``)."""
    table: dict[tuple[str, ...], str] = {}
    for group in SYNONYM_GROUPS:
        token = GROUP_PREFIX + group[0]
        for form in group:
            stems = base_stems(form)
            if len(form.split()) > 1 and len(stems) < 2:
                raise ValueError(f"synonym form {form!r} loses its words to stop words: {stems}")
            if stems:
                table.setdefault(stems, token)
            if len(stems) == 1 and form.isalpha() and len(form) <= 4:  # CDs, RPs, NTs
                table.setdefault(base_stems(form + "s"), token)
    return table


@lru_cache(maxsize=1)
def group_stems() -> dict[str, tuple[str, ...]]:
    """Group token -> every stem of every form (for highlighting)."""
    out: dict[str, list[str]] = {}
    for form, token in synonym_forms().items():
        out.setdefault(token, [])
        out[token] += [s for s in form if s not in out[token]]
    return {k: tuple(v) for k, v in out.items()}


class SynonymFilter(Filter):
    """Adds (``keep=True``) or substitutes (``keep=False``) the group token of synonym forms."""

    def __init__(self, keep: bool) -> None:
        self.keep = keep

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SynonymFilter) and other.keep == self.keep

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        table = synonym_forms()
        longest = max(len(k) for k in table)
        buf = [t.copy() for t in tokens]
        texts = [t.text for t in buf]
        i = 0
        while i < len(buf):
            for n in range(min(longest, len(buf) - i), 0, -1):
                group = table.get(tuple(texts[i : i + n]))
                if group:
                    extra = buf[i].copy()
                    extra.text = group
                    if hasattr(extra, "endchar") and hasattr(buf[i + n - 1], "endchar"):
                        extra.endchar = buf[i + n - 1].endchar
                    yield extra
                    if self.keep:
                        yield from buf[i : i + n]
                    i += n
                    break
            else:
                yield buf[i]
                i += 1


def index_analyzer() -> Analyzer:
    return base_analyzer() | SynonymFilter(keep=True)


@lru_cache(maxsize=1)
def query_analyzer() -> Analyzer:
    return base_analyzer() | SynonymFilter(keep=False)


def query_tokens(text: str) -> list[str]:
    return [t.text for t in query_analyzer()(text)]
