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


def flat(text: str) -> str:
    """The text on one line, blanks collapsed (what :func:`snippet` windows)."""
    return " ".join(text.split())


def snippet(
    text: str, pattern: re.Pattern[str] | None, width: int = WIDTH, best: bool = True
) -> str:
    """The best window of ``text`` (already :func:`flat` or not) with matches wrapped in
    ``<mark>``; HTML-escaped.  ``best=False``: the window at the first match (cheaper, for the
    results below the top ones)."""
    if "\n" in text or "  " in text:
        text = flat(text)
    if pattern is not None and not best:  # only the matches inside the first match's window
        first = pattern.search(text)
        if first is None:
            return _escape_window(text, 0, width, [])
        start = max(0, first.start() - BEFORE)
        inside = list(pattern.finditer(text, start, min(len(text), start + width + 40)))
        return _escape_window(text, start, width, inside)
    matches = list(pattern.finditer(text)) if pattern else []
    if not matches:
        return _escape_window(text, 0, width, [])
    words = [m.group(0).lower() for m in matches]
    start_at, best_count, j = 0, -1, 0
    seen: dict[str, int] = {}  # distinct words in matches[i..j]
    for i, m in enumerate(matches):  # windows open BEFORE chars ahead of each match
        start = max(0, m.start() - BEFORE)
        if j < i:
            j, seen = i, {}
        if not seen:
            seen[words[i]] = 1
        while j + 1 < len(matches) and matches[j + 1].start() < start + width:
            j += 1
            seen[words[j]] = seen.get(words[j], 0) + 1
        if len(seen) > best_count:
            start_at, best_count = start, len(seen)
        left = seen.get(words[i], 0) - 1  # slide: drop match i
        if left > 0:
            seen[words[i]] = left
        else:
            seen.pop(words[i], None)
    return _escape_window(text, start_at, width, matches)


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
