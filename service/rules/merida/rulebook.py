"""Closing the Merida Pocket's rulebook for the knowledge base: where its sections start and the
conflicts between its rules, with the reading this module applies."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Conflict, Heading, Reading, RulebookSpec, headings

SPEC = RulebookSpec(
    numbered=re.compile(r"^(\d{1,2})\. (\S.*)$"),
    headings=(
        Heading("Closing the Merida Pocket - Extremadura, 1938", "intro"),
        Heading("Types of movement:"),
        *headings("Retreats", "Advances", "Automatic victory"),
        Heading("Recommended reading:", "reference"),
        *headings(
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

STRATEGIC_MOVEMENT_MODIFIER = Conflict(
    key="strategic-movement-modifier",
    heading="Conflict: rules 5 and 8 -- die-roll modifier against a unit that moved strategically",
    refs=("5", "8"),
    readings=(
        Reading(
            "5",
            "If they are attacked in the next players phase, the attacker subtracts 2 from the "
            "combat die roll.",
        ),
        Reading("8", "+2 if defender moved by strategic movement in previous phase"),
    ),
    engine_reading="rule 8's +2 by default. When a unit that used strategic movement is attacked "
    "in the next player's phase, the attacker adds 2 to the combat die roll. On the Merida CRT "
    "high rolls favour the attacker, and strategic movement trades safety for speed (a doubled "
    "allowance, no attacking, no entering enemy ZOCs), so a rules judge reads the modifier as a "
    "penalty for the unit that moved; rule 5's 'subtracts' would reward it. The modifier is "
    "reported with the rule it came from.",
    option="rule 5's literal text (the attacker subtracts 2): scenario option "
    "strategic_modifier = -2.",
    topics=("combat", "movement"),
)

ZOC_TO_ZOC = Conflict(
    key="zoc-to-zoc",
    heading="Conflict: rules 5 and 7 -- moving from one enemy ZOC to another",
    refs=("5", "7"),
    readings=(
        Reading(
            "5", "Units may not move directly from one ZOC to another ZOC of the same enemy unit."
        ),
        Reading("7", "Units may never move directly from one ZOC to another."),
    ),
    engine_reading="rule 5's reading by default: a unit may not move directly from one ZOC hex "
    "to another ZOC hex of the same enemy unit (for stacks: of any exerting stack in common). "
    "Rule 5 is the movement rule and the more specific statement; since units stop on entering "
    "an enemy ZOC (rule 7), the question only arises for a unit leaving its start hex.",
    option="rule 7's stricter reading (never from one enemy ZOC hex to another, whoever exerts "
    "them): scenario option zoc_to_zoc = 'any'.",
    topics=("zoc", "movement"),
)

RULEBOOK = Rulebook(
    document="merida",
    corpus_file="closing-the-merida-pocket.txt",
    spec=SPEC,
    conflicts=(STRATEGIC_MOVEMENT_MODIFIER, ZOC_TO_ZOC),
)
