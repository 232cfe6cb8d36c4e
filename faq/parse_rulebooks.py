"""Split a rulebook into its numbered sections, sub-sections, charts, notes and errata, after the
spec its game declares (:class:`service.rules.rulebook.RulebookSpec`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from faq.model import RULE, Entry
from faq.refs import rulebook_refs
from faq.text import SlugRegistry, clean, join_lines
from service.rules.base import Rulebook
from service.rules.rulebook import Heading, RulebookSpec

_TITLE_END = re.compile(r"\.\s|:\s|:$|\s-\s|\.$")
_TITLE_MAX = 60


class RulebookParseError(ValueError):
    """The text no longer matches the rulebook's heading list."""


@dataclass
class _Section:
    kind: str
    number: str | None
    title: str
    parent: _Section | None
    line: int
    numbered: bool
    lines: list[str] = field(default_factory=list)


def split_title(rest: str) -> tuple[str, str]:
    """``Last Stand Defense. The defender ...`` -> (``Last Stand Defense``, ``The defender ...``).
    A first clause too long to be a title is cut at a word and the whole line kept as text."""
    m = _TITLE_END.search(rest)
    title, body = (rest[: m.start()], rest[m.end() :]) if m else (rest, "")
    title = title.strip()
    if len(title) > _TITLE_MAX:
        cut = title[:_TITLE_MAX].rsplit(" ", 1)[0]
        return cut + "…", rest
    return title, body.strip()


def _match(heading: Heading, line: str) -> bool:
    return line.startswith(heading.line) if heading.prefix else line == heading.line


def _split(document: str, spec: RulebookSpec, text: str) -> list[_Section]:
    sections: list[_Section] = []
    expected = list(spec.headings)
    top: _Section | None = None
    number_kinds = dict(spec.number_kinds)
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = clean(raw)
        s = line.strip()
        if expected and s and _match(expected[0], s):
            h = expected.pop(0)
            title = h.title or s.rstrip(":. ")
            parent = top if h.kind == "rule" and not h.number else None
            number = h.number or (parent.number if parent else None)
            sec = _Section(h.kind, number, title, parent, lineno, numbered=bool(h.number))
            if h.number:
                top = sec
            if h.body_line:
                sec.lines.append(line)
            sections.append(sec)
            continue
        m = spec.numbered.match(s)
        if m:
            groups = [g for g in m.groups() if g is not None]
            number, rest = groups[0], groups[1]
            title, body = split_title(rest.strip())
            parent = top if "." in number else None
            kind = number_kinds.get(number, RULE)
            sec = _Section(kind, number, title.rstrip("."), parent, lineno, numbered=True)
            if "." not in number:
                top = sec
            if body:
                sec.lines.append(body)
            sections.append(sec)
            continue
        if sections:
            sections[-1].lines.append(line)
    if expected:
        raise RulebookParseError(f"{document}: heading not found: {expected[0].line!r}")
    return sections


def _index_numbers(text: str) -> dict[str, str]:
    """The numbers a rulebook's own index gives (``- 4. Weather.``), by lower-case title."""
    out = {}
    for m in re.finditer(r"^- (\d{1,2})\. ([^\n]+?)\.?\s*$", text, re.M):
        out[m.group(2).strip().lower()] = m.group(1)
    return out


def parse_rulebook(rulebook: Rulebook, text: str) -> list[Entry]:
    """The entries of ``rulebook``'s text, in document order, with ids ``<document>:<key>``."""
    document = rulebook.document
    keys = SlugRegistry()
    index = _index_numbers(text)
    entries: list[Entry] = []
    for order, sec in enumerate(_split(document, rulebook.spec, text), start=1):
        body = join_lines(sec.lines)
        if sec.numbered:
            key = keys.key(sec.number or "")
            heading = f"{sec.number} {sec.title}"
        elif sec.parent is not None:  # an unnumbered sub-section: ``8 Combat: Retreats``
            key = keys.key(f"{sec.number}-{sec.title}")
            heading = f"{sec.parent.number} {sec.parent.title}: {sec.title}"
        else:
            key = keys.key(f"chart-{sec.title}" if sec.kind == "chart" else sec.title)
            heading = sec.title
        refs = [sec.number] if sec.number else []
        refs += [r for r in rulebook_refs(body) if r not in refs]
        extra: dict[str, object] = {"line": sec.line, "numbered": sec.numbered}
        idx = index.get(sec.title.lower())
        if sec.number and idx and idx != sec.number:
            extra["index_number"] = idx
        entries.append(
            Entry(
                id=f"{document}:{key}",
                kind=RULE,
                document=document,
                heading=heading,
                rule_refs=refs,
                heading_refs=[sec.number] if sec.number else [],
                text=body,
                number=sec.number,
                title=sec.title,
                section_type=sec.kind,
                order=order,
                extra=extra,
            )
        )
    return entries
