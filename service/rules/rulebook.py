"""A game's rulebook as the knowledge base reads it: plain data a game package declares (in its
``rulebook.py``) and ``faq`` parses and indexes, so that adding a game touches neither.

* :class:`RulebookSpec` -- where the rulebook's sections start.  Numbered sections are found by a
  pattern; the unnumbered headings (sub-sections, charts, examples, designer's notes, errata) are
  listed in document order, as the exact line (or line prefix) that opens them, so a change in the
  corpus text fails loudly instead of silently merging sections.  A :class:`Heading`'s ``title`` is
  given only where the opening line is body text, not a heading.
* :class:`Conflict` -- where the rulebook contradicts itself and which reading the rules module
  applies, quoting the passages verbatim (a test checks every quote is in the corpus text).

The game's :class:`~service.rules.base.Rulebook` (its ``rulebook`` capability) bundles them with the
document name and the text file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.rules.base import Rulebook, RulesSystem

#: section kinds of a rulebook entry
SECTION_KINDS = ("rule", "chart", "example", "notes", "errata", "intro", "reference")


@dataclass(frozen=True)
class Heading:
    line: str
    kind: str = "rule"  # one of SECTION_KINDS
    title: str | None = None
    prefix: bool = False
    number: str | None = None  # an explicit number (``Operations Phase 14. Amphibious Invasion``)
    body_line: bool = False  # the opening line is body text: keep it in the section's text


@dataclass(frozen=True)
class RulebookSpec:
    numbered: re.Pattern[str]  # groups: number, rest (several alternatives: the first matched)
    headings: tuple[Heading, ...]
    number_kinds: tuple[tuple[str, str], ...] = ()  # numbered sections of another kind


def headings(*lines: str, kind: str = "rule") -> tuple[Heading, ...]:
    """Several plain headings of one kind, in document order."""
    return tuple(Heading(line, kind) for line in lines)


#: a pattern that matches no line: a rulebook with headings only
NO_NUMBERS = re.compile(r"^(?!)")


@dataclass(frozen=True)
class Reading:
    """One passage of a conflict, verbatim, with the rule (or chart) it is printed in."""

    rule: str
    quote: str


@dataclass(frozen=True)
class Conflict:
    """Passages of a rulebook that contradict each other and the reading the engine applies.
    Its knowledge-base id is ``<document>:conflict-<key>``."""

    key: str
    heading: str
    refs: tuple[str, ...]
    readings: tuple[Reading, ...]
    engine_reading: str
    option: str | None = None  # the scenario option giving the other reading, if any
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class Link:
    """An entry of the rulebook that events of the given types link to.

    ``entry`` is the entry's key in its document: a section number (``16.6``), a sub-section or
    chart key (``8-retreats``, ``chart-combat-results``) or a conflict (``conflict-zoc-to-zoc``).
    ``when``: words one of the event's facts must contain for the link to hold (none: always);
    ``why``: what the link says to a player, in words ("the combat results table: the die roll
    and odds give the result").  Links come first among an event's governing entries, in the
    order declared."""

    entry: str
    events: tuple[str, ...]
    why: str
    when: tuple[str, ...] = ()

    def holds(self, event_type: str | None, facts: Iterable[str]) -> str | None:
        """Whether the link holds for an event of ``event_type`` with ``facts`` (its sentences):
        None if not; else the first fact holding one of ``when`` (whole words, any case), or ""
        for a link with no ``when``."""
        if event_type not in self.events:
            return None
        if not self.when:
            return ""
        for fact in facts:
            for word in self.when:
                if re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", fact.lower()):
                    return fact
        return None


def rulebooks_of(systems: Iterable[RulesSystem]) -> list[Rulebook]:
    """The rulebooks of the given systems (a registry): each system's ``rulebook`` capability, or,
    until a system declares it, the ``RULEBOOK`` of its package's ``rulebook`` module."""
    found: list[Rulebook] = []
    for system in systems:
        rulebook = system.rulebook or _package_rulebook(type(system).__module__)
        if rulebook is not None and rulebook.document not in {r.document for r in found}:
            found.append(rulebook)
    return found


def _package_rulebook(module: str) -> Rulebook | None:
    import importlib

    package = module.rpartition(".")[0]
    if not package:
        return None
    try:
        found = importlib.import_module(f"{package}.rulebook")
    except ModuleNotFoundError as exc:
        if exc.name == f"{package}.rulebook":
            return None
        raise
    rulebook: Rulebook | None = getattr(found, "RULEBOOK", None)
    return rulebook


def shipped_rulebooks() -> list[Rulebook]:
    """The rulebooks of the games in the registry (shipped ones and ``ARBITER_PLUGINS``' not
    included: a composition root passes its own registry to :func:`rulebooks_of`)."""
    from service.rules.registry import build_registry

    return rulebooks_of(build_registry())
