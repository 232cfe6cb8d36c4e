"""Highlighted snippets: the window of an entry's text that holds the most query words.

Cheaper than whoosh's highlighter (no re-analysis of the text): each query stem matches a word
starting with it (``retreat`` -> "retreats", "retreating"), case-insensitively.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

WIDTH = 220
BEFORE = 60


def term_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    words = sorted({t for t in terms if t}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")\w*", re.I)


def snippet(text: str, pattern: re.Pattern[str] | None, width: int = WIDTH) -> str:
    """The best window of ``text`` with matches wrapped in ``<mark>``; HTML-escaped."""
    text = " ".join(text.split())
    matches = list(pattern.finditer(text)) if pattern else []
    if not matches:
        return _escape_window(text, 0, width, [])
    best, best_count, j = 0, -1, 0
    for i, m in enumerate(matches):  # windows open BEFORE chars ahead of each match
        start = max(0, m.start() - BEFORE)
        j = max(j, i)
        while j + 1 < len(matches) and matches[j + 1].start() < start + width:
            j += 1
        count = len({x.group(0).lower() for x in matches[i : j + 1]})
        if count > best_count:
            best, best_count = start, count
    return _escape_window(text, best, width, matches)


def _escape_window(text: str, start: int, width: int, matches: list[re.Match[str]]) -> str:
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    out, pos = [], start
    for m in matches:
        if m.start() < start or m.end() > end:
            continue
        out.append(html.escape(text[pos : m.start()]))
        out.append(f"<mark>{html.escape(m.group(0))}</mark>")
        pos = m.end()
    out.append(html.escape(text[pos:end]))
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(text) else ""
    return prefix + "".join(out) + suffix
