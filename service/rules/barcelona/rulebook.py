"""Back to Barcelona's rules sheet for the knowledge base: headings only, no numbers."""

from __future__ import annotations

from service.rules.base import Rulebook
from service.rules.rulebook import NO_NUMBERS, Heading, Link, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=NO_NUMBERS,
    headings=(
        *headings("SEQUENCE OF PLAY", "MOVEMENT", "SHOOTING", "CLOSE COMBAT", "MORALE"),
        *headings("WEAPONS LIST", "AFVs", "Troop Type", "Attribute Costs", kind="chart"),
        Heading("GENERATING A COLUMN", "chart"),
    ),
)

#: what each event links to beside the sections its declaration names (the sheet's tables)
LINKS = (
    Link("shooting", ("ShotResolved",), "the shooting rules"),
    Link("chart-weapons-list", ("ShotResolved",), "the weapons list: ranges and effects"),
    Link("close-combat", ("CloseCombatResolved",), "the close combat rules"),
    Link("morale", ("MoraleTested", "Rallied", "CloseCombatResolved"), "the morale rules"),
    Link("chart-troop-type", ("MoraleTested",), "the troop type table"),
    Link("movement", ("MovementRolled", "UnitMoved", "UnitHeld"), "the movement rules"),
    Link("chart-generating-a-column", ("ColumnGenerated",), "generating a column"),
    Link("chart-attribute-costs", ("UnitBought", "MusterEnded"), "the cost of each attribute"),
)  # fmt: skip

RULEBOOK = Rulebook(
    document="barcelona", corpus_file="back-to-barcelona.txt", spec=SPEC, links=LINKS
)
