"""Operation Backbone's rulebook for the knowledge base: where its sections start and the conflict
between its Combat Results Table and the errata, with the reading this module applies."""

from __future__ import annotations

import re

from service.rules.base import Rulebook
from service.rules.rulebook import Conflict, Heading, Reading, RulebookSpec

SPEC = RulebookSpec(
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

CRT_ERRATA = Conflict(
    key="crt-errata",
    heading="Conflict: Combat Results Table and its errata -- 6:1 column, modified rolls 7 and 8",
    refs=("16.6", "16.3", "16"),
    readings=(
        Reading("CRT (printed)", "7\t2/2\t1/1R\t-/1R\t1/2R\t-/2R\t-/3R\t-/4R"),
        Reading("CRT (printed)", "8\t1/1R\t-/1R\t1/2R\t-/2R\t1/3R\t-/3R\t-/4R"),
        Reading(
            "Errata",
            "Substitute: the last two values, (with a modified roll of 7 or 8) in the column "
            "from 6 to 1, must be - / 4.",
        ),
        Reading(
            "Errata",
            "In the procedure for assigning cancellations, the text included in the rules is "
            "better expressed than that which appears under the table.",
        ),
    ),
    engine_reading="the errata. In the 6:1 column a modified roll of 7 or 8 gives -/4: the "
    "defender loses 4 steps and the attacker nothing, with no retreat (the printed -/4R is "
    "replaced). Losses are assigned by the procedure in the text of rule 16.6, not the summary "
    "under the table.",
    topics=("combat", "retreat"),
)

RULEBOOK = Rulebook(
    document="backbone",
    corpus_file="operation-backbone.txt",
    spec=SPEC,
    conflicts=(CRT_ERRATA,),
)
