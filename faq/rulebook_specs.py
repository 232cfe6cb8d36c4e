"""Where each rulebook's sections start.

Numbered sections are found by a pattern per rulebook; the unnumbered headings (sub-sections,
charts, examples, designer's notes, errata) are listed here in document order, as the exact line
(or line prefix) that opens them, so a change in the corpus text fails loudly instead of silently
merging sections.  ``title`` is given only where the opening line is body text, not a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
    line: str
    kind: str = "rule"  # rule, chart, example, notes, errata, intro, reference
    title: str | None = None
    prefix: bool = False
    number: str | None = None  # an explicit number (``Operations Phase 14. Amphibious Invasion``)
    body_line: bool = False  # the opening line is body text: keep it in the section's text


@dataclass(frozen=True)
class RulebookSpec:
    document: str
    numbered: re.Pattern[str]  # groups: number, rest
    headings: tuple[Heading, ...]
    number_kinds: tuple[tuple[str, str], ...] = ()  # numbered sections of another kind


def _h(*names: str, kind: str = "rule") -> tuple[Heading, ...]:
    return tuple(Heading(n, kind) for n in names)


MERIDA = RulebookSpec(
    document="merida",
    numbered=re.compile(r"^(\d{1,2})\. (\S.*)$"),
    headings=(
        Heading("Closing the Merida Pocket - Extremadura, 1938", "intro"),
        Heading("Types of movement:"),
        *_h("Retreats", "Advances", "Automatic victory"),
        Heading("Recommended reading:", "reference"),
        *_h(
            "Movement points available:",
            "Terrain Effects:",
            "Combat Results:",
            "Victory Points:",
            "Air Point availability:",
            "Set up table:",
            "Reinforcements:",
            kind="chart",
        ),
    ),
    number_kinds=(("13", "errata"),),
)

BACKBONE = RulebookSpec(
    document="backbone",
    numbered=re.compile(r"^(\d{1,2})\. ([A-Z][^.]*)$|^(\d{1,2}\.\d{1,2})\.? (.*)$"),
    headings=(
        Heading("Operation Backbone rules", "intro"),
        Heading("Example, Zone of Control and combat", "example"),
        Heading(
            "Operations Phase 14. Amphibious Invasion",
            number="14",
            title="Amphibious Invasion",
            body_line=True,  # keeps the phase label in the text
        ),
        Heading("Example of Amphibious Landing.", "example"),
        Heading("COMBAT RESULTS TABLE", "chart"),
        Heading("Allied Strategic Victory if:"),
        Heading("Combat example. The assault of Larache.", "example"),
        Heading("List of acronyms used", "reference"),
        Heading("Credits", "reference"),
        Heading(
            "The first thing that comes to mind when writing these design notes",
            "notes",
            title="Designer's notes",
            prefix=True,
            body_line=True,
        ),
        Heading("Errata. Backbone operation", "errata"),
    ),
)

BIZKAYA = RulebookSpec(
    document="bizkaya",
    numbered=re.compile(r"^(\d{1,2})\.\s?([A-Z][^.]*)\.?$"),
    headings=(
        *_h(
            "The Fall of the North Historical Intro",
            "The Plans",
            "The Nationalist Offensive",
            kind="intro",
        ),
        Heading("Bizcaya The Spring 1937 Nationalist Offensive.", "intro"),
        Heading("Game Index", "reference"),
        *_h("Introduction.", "Scales."),
        *_h("The Counters.", "Definition of terms included in the Units.", "The Map."),
        *_h("Geographical Peculiarities.", "Initial Segment.", "Administrative Segment."),
        *_h("Operations Segment.", "Stacking Limits.", "Overstacking.", "Placement of Units"),
        *_h("Second Echelon.", "Restrictions.", "Effects of ZoC", "Demoralization.", "Euphoria."),
        *_h("Morale Check.", "Artillery Types.", "Artillery in Combat.", "Artillery Barrages."),
        *_h("Procedure.", "Barrage Results.", "Movement Procedure.", "Movement Sequence."),
        *_h("Combat.", "Procedure.", "Combat Results.", "Step Reduction.", "Retreats."),
        *_h("Supply Sources.", "The Iron Belt", "Bilbao.", "Nationalist.", "Republican"),
        *_h("Credits", "Suggested Bibliography", "Historical Designations.", kind="reference"),
        *_h("Designer Notes", "The Orders of Battle", "Basic Estructures.", kind="notes"),
        *_h("The Special Rules", "Other Considerations", kind="notes"),
    ),
)

BARCELONA = RulebookSpec(
    document="barcelona",
    numbered=re.compile(r"^(?!)"),  # headings only
    headings=(
        *_h("SEQUENCE OF PLAY", "MOVEMENT", "SHOOTING", "CLOSE COMBAT", "MORALE"),
        *_h("WEAPONS LIST", "AFVs", "Troop Type", "Attribute Costs", kind="chart"),
        Heading("GENERATING A COLUMN", "chart"),
    ),
)

SPECS = {s.document: s for s in (MERIDA, BACKBONE, BIZKAYA, BARCELONA)}
