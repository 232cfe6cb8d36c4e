"""Bizkaya, the Fall of the North's rulebook for the knowledge base: where its sections start."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Heading, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=re.compile(r"^(\d{1,2})\.\s?([A-Z][^.]*)\.?$"),
    headings=(
        *headings(
            "The Fall of the North Historical Intro",
            "The Plans",
            "The Nationalist Offensive",
            kind="intro",
        ),
        Heading("Bizcaya The Spring 1937 Nationalist Offensive.", "intro"),
        Heading("Game Index", "reference"),
        *headings("Introduction.", "Scales."),
        *headings("The Counters.", "Definition of terms included in the Units.", "The Map."),
        *headings("Geographical Peculiarities.", "Initial Segment.", "Administrative Segment."),
        *headings("Operations Segment.", "Stacking Limits.", "Overstacking.", "Placement of Units"),
        *headings(
            "Second Echelon.", "Restrictions.", "Effects of ZoC", "Demoralization.", "Euphoria."
        ),
        *headings(
            "Morale Check.", "Artillery Types.", "Artillery in Combat.", "Artillery Barrages."
        ),
        *headings("Procedure.", "Barrage Results.", "Movement Procedure.", "Movement Sequence."),
        *headings("Combat.", "Procedure.", "Combat Results.", "Step Reduction.", "Retreats."),
        *headings("Supply Sources.", "The Iron Belt", "Bilbao.", "Nationalist.", "Republican"),
        *headings(
            "Credits", "Suggested Bibliography", "Historical Designations.", kind="reference"
        ),
        *headings("Designer Notes", "The Orders of Battle", "Basic Estructures.", kind="notes"),
        *headings("The Special Rules", "Other Considerations", kind="notes"),
    ),
)

RULEBOOK = Rulebook(document="bizkaya", corpus_file="bizkaya-fall-of-the-north.txt", spec=SPEC)
