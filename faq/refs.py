"""Rule references: Europa rule numbers (``12C1b``) in the FAQ, section numbers (``16.5``) in the
rulebooks, and the references a search query names.

Normal forms: ``Rules 12C1 and 7A`` -> ``12C1``, ``7A``; ``Rule 12A/B`` -> ``12A``, ``12B``;
``30A2/3`` -> ``30A2``, ``30A3``; ``38D1-4`` -> ``38D1`` ... ``38D4``; ``7A4ac`` -> ``7A4a``,
``7A4c``; ``12C1b, 1st bullet`` -> ``12C1b``.  A bare number (``Rule 40``) is a reference only
right after the word *rule(s)* or inside the list that follows it.
"""

from __future__ import annotations

import re

# NUM LETTER [DIGITS] [lower letters] [/LETTER | /DIGITS] [-DIGITS]
_ATOM = (
    r"(?P<num>[1-9]\d?)(?:(?P<let>[A-K])(?P<dig>\d+)?(?P<low>[a-z]{1,3})?)?"
    r"(?:/(?P<alt>[A-K]|\d+))?(?:-(?P<to>\d+))?"
)
_BOUND_L = r"(?<![\w:/.\-])"
_BOUND_R = r"(?![\w:]|/\w|-\w)"
_LETTERED = re.compile(_BOUND_L + _ATOM + _BOUND_R)
_RULE_WORD = re.compile(r"\bRules?\s+", re.IGNORECASE)
_LIST_ATOM = re.compile(_ATOM + _BOUND_R)
_LIST_SEP = re.compile(r"\s*(?:,|;|&|\band\b)\s*")
_RULEBOOK_REF = re.compile(r"\b(?:rules?|point|section)\s+(\d{1,2}(?:\.\d{1,2})?)(?!\.?\d)", re.I)
_QUERY_EUROPA = re.compile(r"(?<![\w.])([1-9]\d?)([A-Ka-k])(\d+)?([a-z]{1,3})?(?![\w.])")
_QUERY_NUMBERED = re.compile(r"\b(?:rules?|section|§)\s*(\d{1,2}(?:\.\d{1,2})?)\b", re.I)
_QUERY_DOTTED = re.compile(r"(?<![\w.])(\d{1,2}\.\d{1,2})(?![\w.])")


def _expand(m: re.Match[str]) -> list[str]:
    num, let, dig, low = m.group("num"), m.group("let"), m.group("dig"), m.group("low")
    alt, to = m.group("alt"), m.group("to")
    if not let:
        return [num]
    base = f"{num}{let}"
    if alt and alt.isalpha():  # 12A/B
        return [base, f"{num}{alt}"]
    if dig is None:
        return [base]
    if to and not low:  # 38D1-4
        start, end = int(dig), int(to)
        if start < end <= start + 9:
            return [f"{base}{i}" for i in range(start, end + 1)]
    refs = [f"{base}{dig}{c}" for c in low] if low else [f"{base}{dig}"]
    if alt and alt.isdigit():  # 30A2/3
        refs.append(f"{base}{alt}")
    return refs


def _add(out: list[str], refs: list[str]) -> None:
    for r in refs:
        if r not in out:
            out.append(r)


def europa_refs(text: str) -> list[str]:
    """The Europa rule references in ``text``, normalised, in order of first mention."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for word in _RULE_WORD.finditer(text):
        pos = word.end()
        while True:
            m = _LIST_ATOM.match(text, pos)
            if not m:
                break
            _add(out, _expand(m))
            spans.append(m.span())
            sep = _LIST_SEP.match(text, m.end())
            if not sep:
                break
            pos = sep.end()
    for m in _LETTERED.finditer(text):
        if not m.group("let") or any(a <= m.start() < b for a, b in spans):
            continue
        if m.group("num") == "1":  # air-unit ratings such as 1A1 1/9, never a cited rule here
            continue
        _add(out, _expand(m))
    return _order(text, out)


def _order(text: str, refs: list[str]) -> list[str]:
    """Keep refs in order of first appearance in the text (list refs and lettered refs merged)."""

    def first(ref: str) -> int:
        root = re.match(r"\d+[A-K]?", ref)
        idx = text.find(root.group(0)) if root else -1
        return idx if idx >= 0 else len(text)

    return sorted(refs, key=lambda r: (first(r), refs.index(r)))


def rulebook_refs(text: str) -> list[str]:
    """Section numbers a rulebook's text cites: ``rule 8``, ``point 12``, ``section 16.5``."""
    out: list[str] = []
    for m in _RULEBOOK_REF.finditer(text):
        _add(out, [m.group(1)])
    return out


def query_refs(query: str) -> list[str]:
    """References a query names: ``12C1``, ``rule 39A``, ``rule 5``, ``16.5``."""
    out: list[str] = []
    for m in _QUERY_EUROPA.finditer(query):
        num, let, dig, low = m.groups()
        _add(out, [f"{num}{let.upper()}{dig or ''}{(low or '').lower()}"])
    for m in _QUERY_NUMBERED.finditer(query):
        _add(out, [m.group(1)])
    for m in _QUERY_DOTTED.finditer(query):
        _add(out, [m.group(1)])
    return out


def ancestors(ref: str) -> list[str]:
    """``12C1b`` -> ``12``, ``12C``, ``12C1``, ``12C1b``; ``16.5`` -> ``16``, ``16.5``."""
    if "." in ref:
        head, _ = ref.split(".", 1)
        return [head, ref]
    m = re.fullmatch(r"(\d+)([A-K])?(\d+)?([a-z]*)", ref)
    if not m:
        return [ref]
    num, let, dig, low = m.groups()
    out = [num]
    if let:
        out.append(num + let)
    if dig:
        out.append(num + let + dig)
    if low:
        out.append(ref)
    return out
