"""Back to Barcelona's rules sheet for the knowledge base: headings only, no numbers."""

from __future__ import annotations

from service.rules.base import Rulebook
from service.rules.rulebook import NO_NUMBERS, Heading, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=NO_NUMBERS,
    headings=(
        *headings("SEQUENCE OF PLAY", "MOVEMENT", "SHOOTING", "CLOSE COMBAT", "MORALE"),
        *headings("WEAPONS LIST", "AFVs", "Troop Type", "Attribute Costs", kind="chart"),
        Heading("GENERATING A COLUMN", "chart"),
    ),
)

RULEBOOK = Rulebook(document="barcelona", corpus_file="back-to-barcelona.txt", spec=SPEC)
