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
_TITLE_MAX = 60  # a first clause followed by more text
_LINE_TITLE_MAX = 80  # a line that is only a title (``16.7. Withdrawals (or Retreats), ...``)


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
    A first clause too long to be a title is no title: ``("", rest)``, the whole line kept as
    text (the section then takes its title from its parent's, see :func:`_sub_title`)."""
    m = _TITLE_END.search(rest)
    title, body = (rest[: m.start()], rest[m.end() :]) if m else (rest, "")
    title, body = title.strip(), body.strip()
    if len(title) > (_TITLE_MAX if body else _LINE_TITLE_MAX):
        return "", rest
    return title, body


def _sub_title(number: str, parent: _Section | None) -> str:
    """A numbered sub-section without a title of its own: its part of the parent's title when the
    parent lists one per sub-section (``13 Reinforcements, Replacements, Fortifications``:
    13.2 -> ``Replacements``), else the parent's title."""
    if parent is None:
        return ""
    parts = [p.strip() for p in re.split(r",\s*|\s+and\s+", parent.title) if p.strip()]
    k = int(number.rsplit(".", 1)[1]) if "." in number else 0
    if 1 <= k <= len(parts) and len(parts) > 1:
        return parts[k - 1][:1].upper() + parts[k - 1][1:]
    return parent.title


def _match(heading: Heading, line: str) -> bool:
    return line.startswith(heading.line) if heading.prefix else line == heading.line


def _heading_section(
    h: Heading, s: str, line: str, lineno: int, top: _Section | None
) -> tuple[_Section, bool]:
    """The section a spec's heading opens at ``line`` (``s`` stripped), and whether it is a
    top section (numbered) that the next unnumbered rules fall under."""
    title = h.title or s.rstrip(":. ")
    parent = top if h.kind == "rule" and not h.number else None
    number = h.number or (parent.number if parent else None)
    sec = _Section(h.kind, number, title, parent, lineno, numbered=bool(h.number))
    if h.body_line:
        sec.lines.append(line)
    return sec, bool(h.number)


def _numbered_section(
    m: re.Match[str], lineno: int, top: _Section | None, number_kinds: dict[str, str]
) -> tuple[_Section, bool]:
    """The section a numbered line (``m``) opens, and whether it is a top section (no dot in
    its number)."""
    groups = [g for g in m.groups() if g is not None]
    number, rest = groups[0], groups[1]
    title, body = split_title(rest.strip())
    parent = top if "." in number else None
    kind = number_kinds.get(number, RULE)
    if not title:
        title = _sub_title(number, parent)
    sec = _Section(kind, number, title.rstrip("."), parent, lineno, numbered=True)
    if body:
        sec.lines.append(body)
    return sec, "." not in number


def _split(document: str, spec: RulebookSpec, text: str) -> list[_Section]:
    sections: list[_Section] = []
    expected = list(spec.headings)
    top: _Section | None = None
    number_kinds = dict(spec.number_kinds)
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = clean(raw)
        s = line.strip()
        sec: _Section | None = None
        if expected and s and _match(expected[0], s):
            sec, opens = _heading_section(expected.pop(0), s, line, lineno, top)
        elif m := spec.numbered.match(s):
            sec, opens = _numbered_section(m, lineno, top, number_kinds)
        if sec is not None:
            top = sec if opens else top
            sections.append(sec)
            continue
        if sections:
            sections[-1].lines.append(line)
    if expected:
        raise RulebookParseError(f"{document}: heading not found: {expected[0].line!r}")
    return sections


def _contents(text: str, first_line: int) -> list[tuple[str, str]]:
    """A rulebook's own table of contents or index, before its first section: ``- 4. Weather.``
    (Bizkaya's index) or ``15. Land movement.`` (Backbone's contents), as (number, title) in
    order; an entry without a title (``- 3.``) is kept with an empty one."""
    head = "\n".join(text.split("\n")[: first_line - 1])
    pattern = r"^(?:- )?(\d{1,2})\.(?:[ \t]+([^\n]*?))?\.?[ \t]*$"
    return [(m.group(1), (m.group(2) or "").strip()) for m in re.finditer(pattern, head, re.M)]


def _alt_titles(sections: list[_Section], text: str) -> dict[str, tuple[str, str]]:
    """Top-level section number -> (the contents' number, the contents' title).  Matched by
    title where they agree and otherwise by position: Bizkaya's index has an untitled ``3.``
    more than its body, so its numbers run one ahead from there (body 3 Weather = index 4)."""
    tops = [s for s in sections if s.numbered and s.number and "." not in s.number]
    if not tops:
        return {}
    listed = [(n, t) for n, t in _contents(text, tops[0].line) if t]
    if not listed:
        return {}
    out: dict[str, tuple[str, str]] = {}
    if len(listed) == len(tops):  # one line per section: pair them in order
        for sec, (n, t) in zip(tops, listed, strict=True):
            out[sec.number or ""] = (n, t)
        return out
    by_title = {t.lower(): (n, t) for n, t in listed}
    for sec in tops:
        if sec.title.lower() in by_title:
            out[sec.number or ""] = by_title[sec.title.lower()]
    return out


def parse_rulebook(rulebook: Rulebook, text: str) -> list[Entry]:
    """The entries of ``rulebook``'s text, in document order, with ids ``<document>:<key>``."""
    document = rulebook.document
    keys = SlugRegistry()
    sections = _split(document, rulebook.spec, text)
    alt = _alt_titles(sections, text)
    entries: list[Entry] = []
    for order, sec in enumerate(sections, start=1):
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
        if sec.numbered and sec.number in alt:
            idx, idx_title = alt[sec.number]
            if idx != sec.number:
                extra["index_number"] = idx
            if idx_title.lower() != sec.title.lower():
                extra["contents_title"] = idx_title  # searchable: "Land movement" -> 15
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
