"""Small text helpers shared by the parsers."""

from __future__ import annotations

import re
import unicodedata


def clean(line: str) -> str:
    """A line without trailing blanks; non-breaking spaces become spaces."""
    return line.replace("\xa0", " ").rstrip()


def slug(text: str, limit: int = 60) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    s = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return s[:limit].rstrip("-") or "x"


class SlugRegistry:
    """Stable, unique keys in document order: a repeated slug gets ``-2``, ``-3`` ..."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def key(self, text: str) -> str:
        base = slug(text)
        n = self._seen.get(base, 0) + 1
        self._seen[base] = n
        return base if n == 1 else f"{base}-{n}"


def join_lines(lines: list[str]) -> str:
    """Lines joined with newlines, blank runs collapsed, tabs kept as table separators."""
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1] != "":
                out.append("")
            continue
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)
