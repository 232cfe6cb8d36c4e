"""Parse the FWtBT FAQ into sections, questions and signed answers, losing nothing.

Layout of the text: sections are separated by lines of dashes; the line after a separator is the
section heading (``Rules`` and ``Orders Of Battle`` are group titles over the sections that follow).
Inside a separator block, a short line right after a signature and right before a question opens a
sub-section (``Narrow Straits``, ``Loyalist OB - Calculating ARP Rates``).  Questions start with
``Q:``, ``Q1.``, ``Q.a)`` ...; answers with ``A:``, ``A2:``, ``A.b)``, ``A1a.`` ...; a signature line
``[AEG, Developer, 03-Mar-04]`` signs every unsigned answer before it.  Text before a question
(quoted rule text) is kept as part of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from faq.model import FAQ_DOCUMENT, RULING, Answer, Entry
from faq.refs import europa_refs
from faq.text import SlugRegistry, clean, join_lines

DOCUMENT = FAQ_DOCUMENT
GROUP_HEADINGS = ("Rules", "Orders Of Battle")

_SEP = re.compile(r"^-{5,}\s*$")
_PART = r"\d+(?:\.\d+)?[a-z]?"
_MARK = re.compile(
    rf"^(?:(?P<k>[QA])(?P<part>{_PART}|\.[a-z])?|(?P<lk>[qa])(?P<lpart>{_PART}))"
    r"(?:[:.]|(?<=[\da-z])\))\s*"
)
_SIG = re.compile(r"\[([^\]]{1,80})\]")
_SIG_LINE = re.compile(r"^(?:\[[^\]]{1,80}\]\s*&?\s*)+.{0,80}$")
_DATE = re.compile(
    r"^\d{1,2}-[A-Z][a-z]{2}-\d{2}(?: and \d{1,2}-[A-Z][a-z]{2}-\d{2})?$|^(19|20)\d{2}$"
)
_SOURCE = re.compile(r"^TEM \d+$")
_INITIALS = re.compile(r"^[A-Z]{2,4}$")
_FOOTER = re.compile(r"©\s*Copyright|^Belli Ludi\b")
_OVERRULED = re.compile(r"overruled", re.I)
#: an authority's full name, by initials: answers signed "[RCV]" and "[RCV, Rules Guru]" are one
#: authority ("RCV, Rules Guru"); the most complete form the FAQ uses is kept
AUTHORITY_NAMES = {
    "AEG": "AEG, Developer",
    "JAM": "JAM, Designer",
    "RCV": "RCV, Rules Guru",
    "DAT": "DAT, Rules Judge",
    "DPS": "DPS, Rules Judge",
}


@dataclass
class Section:
    key: str
    heading: str
    group: str | None
    line: int
    refs: list[str]
    questions: list[Entry] = field(default_factory=list)
    #: a sub-section's parent (``also 27B1 & port arrivals`` under ``Rule 34F -- Danger Zones``)
    parent: Section | None = None


@dataclass
class FaqParse:
    sections: list[Section]
    footer: str = ""  # the publisher's copyright lines, kept out of every ruling

    @property
    def entries(self) -> list[Entry]:
        return [q for s in self.sections for q in s.questions]


def parse_signature(line: str) -> Answer:
    """``[AEG, Developer, 03-Mar-04] -- Note`` -> an empty Answer carrying the signature."""
    sigs = _SIG.findall(line)
    note = _SIG.sub("", line).strip(" -–&*") or None
    if note and set(note) <= set(" &"):
        note = None
    if len(sigs) > 1:  # [RCV] & [JAM]
        initials = " & ".join(s.strip() for s in sigs)
        names = " & ".join(AUTHORITY_NAMES.get(s.strip(), s.strip()) for s in sigs)
        return Answer(text="", authority=names, initials=initials, signed=line.strip())
    parts = [p.strip() for p in sigs[0].split(",")]
    date = next((p for p in parts if _DATE.match(p)), None)
    source = next((p for p in parts if _SOURCE.match(p)), None)
    who = [p for p in parts if p not in (date, source)]
    authority = ", ".join(who) or None
    if who and _INITIALS.match(who[0]):
        authority = AUTHORITY_NAMES.get(who[0], authority)
    return Answer(
        text="",
        authority=authority,
        initials=who[0] if who and _INITIALS.match(who[0]) else None,
        date=date,
        date_iso=_iso(date),
        source=source,
        note=note,
        signed=line.strip(),
    )


def _iso(date: str | None) -> str | None:
    if not date:
        return None
    if re.fullmatch(r"\d{4}", date):
        return date
    first = date.split(" and ")[0]
    return datetime.strptime(first, "%d-%b-%y").date().isoformat()


def _kind(line: str) -> str:
    if not line:
        return "blank"
    if _SEP.match(line):
        return "sep"
    if _SIG_LINE.match(line):
        return "sig"
    m = _MARK.match(line)
    if not m:
        return "text"
    return (m.group("k") or m.group("lk")).upper()


def _strip_plain_marker(line: str) -> str:
    """``Q: text`` -> ``text``; part markers (``Q1.``, ``A.b)``) are kept: answers refer to them."""
    m = _MARK.match(line)
    if m and m.group("k") and not m.group("part"):
        return line[m.end() :]
    return line


def _heading_like(line: str) -> bool:
    return len(line) <= 120 and not line.endswith((".", "?", "!", '"', "”"))


@dataclass
class _RawAnswer:
    lines: list[str]
    sig: Answer | None = None
    shared: bool = False  # signed by a signature placed after a later answer


@dataclass
class _RawQuestion:
    section: Section
    lines: list[str]
    answers: list[_RawAnswer] = field(default_factory=list)
    signed: Answer | None = None  # a signature right after the question, before any answer


class _Builder:
    """Collects raw questions; a signature signs every unsigned answer of the section before it."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.raw: list[_RawQuestion] = []
        self.keys = SlugRegistry()
        self.group: str | None = None
        self.current: _RawQuestion | None = None
        self.unsigned: list[_RawAnswer] = []
        self.pending: list[str] = []
        self.answer_open = False
        #: a separator was read and no section opened since: the next text line is a heading
        self.after_sep = False

    def section(self, heading: str, line: int, sub: bool = False) -> None:
        """Open a section; a sub-section (``sub``) keeps its parent's refs ahead of its own."""
        self.close_question()
        self.unsigned = []
        parent = None
        if sub and self.sections:
            last = self.sections[-1]
            parent = last.parent or last
        refs = europa_refs(heading)
        if parent is not None:
            refs = list(parent.refs) + [r for r in refs if r not in parent.refs]
        self.sections.append(
            Section(self.keys.key(heading), heading, self.group, line, refs, parent=parent)
        )

    def _open(self, lines: list[str]) -> _RawQuestion:
        self.pending = []  # consumed by the new question
        self.close_question()
        self.current = _RawQuestion(self.sections[-1], lines)
        self.raw.append(self.current)
        return self.current

    def question_line(self, line: str) -> None:
        q = self.current
        if q is None or q.answers or q.signed:
            self._open(self.pending + [_strip_plain_marker(line)])
        else:
            q.lines.append(line)
        self.answer_open = False

    def answer_line(self, line: str) -> None:
        q = self.current
        if q is None or (self.pending and q.answers):
            q = self._open(self.pending)
        answer = _RawAnswer([_strip_plain_marker(line)])
        q.answers.append(answer)
        self.unsigned.append(answer)
        self.answer_open = True

    def text_line(self, line: str) -> None:
        q = self.current
        if self.answer_open and q is not None:
            q.answers[-1].lines.append(line)
        elif q is not None and not q.answers:
            q.lines.append(line)
        else:
            self.pending.append(line)

    def signature(self, line: str) -> None:
        sig = parse_signature(line)
        q = self.current
        if q is None:
            if not self.pending:
                raise ValueError(f"signature without a question: {line!r}")
            q = self._open(self.pending)
        if self.pending:  # text after a signed answer, then a signature: an answer of its own
            # ("Further elaboration: ..." answering the same question, not a new question)
            answer = _RawAnswer(list(self.pending))
            q.answers.append(answer)
            self.unsigned.append(answer)
            self.pending = []
        if not self.unsigned and not q.answers:
            q.signed = sig
        for n, answer in enumerate(self.unsigned):
            answer.sig = sig
            # a signature after several answers signs the earlier ones too: say so
            answer.shared = len(self.unsigned) > 1 and n < len(self.unsigned) - 1
        self.unsigned = []
        self.answer_open = False

    def close_question(self) -> None:
        q = self.current
        if q is not None and self.pending and q.answers:  # a note after the last signature
            q.answers[-1].lines += [""] + self.pending
            self.pending = []
        self.current, self.answer_open = None, False

    def entries(self) -> None:
        for n, q in enumerate(self.raw, start=1):
            sec = q.section
            answers = [
                Answer(
                    **{
                        **(a.sig.as_dict() if a.sig else {}),
                        "text": join_lines(a.lines),
                        "shared_signature": a.shared,
                        "overruled": bool(a.sig and a.sig.note and _OVERRULED.search(a.sig.note)),
                    }
                )
                for a in q.answers
            ]
            question = join_lines(q.lines)
            body = question + "\n" + "\n".join(a.text for a in answers)
            refs = list(sec.refs) + [r for r in europa_refs(body) if r not in sec.refs]
            sec.questions.append(
                Entry(
                    id=f"{DOCUMENT}:{sec.key}:q{len(sec.questions) + 1}",
                    kind=RULING,
                    document=DOCUMENT,
                    heading=sec.heading,
                    rule_refs=refs,
                    heading_refs=list(sec.refs),
                    question=question,
                    answers=answers,
                    section=sec.key,
                    group=sec.group,
                    order=n,
                    extra=_extra(q, sec),
                )
            )
        _link_overruled([e for s in self.sections for e in s.questions])


def _extra(q: _RawQuestion, sec: Section) -> dict[str, object]:
    extra: dict[str, object] = {}
    if q.signed:
        extra["question_signed"] = q.signed.as_dict()
    if sec.parent is not None:
        extra["parent_heading"] = sec.parent.heading
    return extra


def _link_overruled(entries: list[Entry]) -> None:
    """A ruling whose every answer is noted "overruled later" is marked ``overruled``, with the
    ruling that replaced it when the FAQ shows it: the next ruling of its section (the same
    question answered again).  Elsewhere the FAQ does not say which ruling overruled it."""
    for i, e in enumerate(entries):
        if not e.answers or not all(a.overruled for a in e.answers):
            continue
        later = entries[i + 1 :]
        same = [x for x in later if x.section == e.section]
        by = same[0] if same else None
        e.extra["overruled"] = True
        if by is not None:
            e.extra["overruled_by"] = by.id
            by.extra.setdefault("overrules", []).append(e.id)


def parse_fwtbt(text: str) -> FaqParse:
    raw = [clean(line) for line in text.split("\n")]
    footer_at = next((i for i, line in enumerate(raw) if _FOOTER.search(line)), len(raw))
    footer = join_lines(raw[footer_at:])
    raw = raw[:footer_at]
    items = [(i + 1, line) for i, line in enumerate(raw) if line.strip()]
    kinds = [_kind(line.strip()) for _, line in items]
    b = _Builder()
    for n, ((lineno, line), kind) in enumerate(zip(items, kinds, strict=True)):
        nxt = kinds[n + 1] if n + 1 < len(kinds) else None
        prev = kinds[n - 1] if n else None
        _read_line(b, kind, line, lineno, prev, nxt)
    b.close_question()
    b.entries()
    return FaqParse(b.sections, footer)


def _read_line(
    b: _Builder, kind: str, line: str, lineno: int, prev: str | None, nxt: str | None
) -> None:
    """One non-blank line of ``kind`` (its neighbours' kinds ``prev`` and ``nxt``) into ``b``."""
    s = line.strip()
    if kind == "sep":
        b.close_question()
        b.after_sep = True
    elif b.after_sep and kind == "text":
        if s in GROUP_HEADINGS:
            b.group = s
        else:
            b.section(s, lineno)
            b.after_sep = False
    elif not b.sections:  # the title page, up to the first heading
        if kind == "text" and nxt == "Q":
            b.section(s, lineno)
    elif kind == "text" and prev == "sig" and nxt == "Q" and _heading_like(s):
        b.section(s, lineno, sub=True)
    elif kind == "Q":
        b.question_line(s)
    elif kind == "A":
        b.answer_line(s)
    elif kind == "sig":
        b.signature(s)
    else:
        b.text_line(line)
