"""Where a rulebook contradicts itself, and which reading the engine applies.

Each conflict quotes the passages verbatim from the corpus; ``engine_reading`` states what the
rules module does.  Tests check that every quoted passage is really in the corpus text.
"""

from __future__ import annotations

from faq.model import CONFLICT, Entry


def _entry(
    id_: str, document: str, heading: str, refs: list[str], readings: list[dict[str, str]],
    engine: str, option: str | None, topics: list[str],
) -> Entry:  # fmt: skip
    quoted = "\n".join(f'Rule {r["rule"]}: "{r["quote"]}"' for r in readings)
    text = f"{quoted}\nThe engine applies: {engine}"
    if option:
        text += f"\nScenario option: {option}"
    return Entry(
        id=id_,
        kind=CONFLICT,
        document=document,
        heading=heading,
        rule_refs=refs,
        heading_refs=refs,
        topics=topics,
        text=text,
        section_type="conflict",
        applies_to=document,
        extra={"readings": readings, "engine_reading": engine, "option": option},
    )


CONFLICTS: tuple[Entry, ...] = (
    _entry(
        "merida:conflict-strategic-movement-modifier",
        "merida",
        "Conflict: rules 5 and 8 -- die-roll modifier against a unit that moved strategically",
        ["5", "8"],
        [
            {
                "rule": "5",
                "quote": "If they are attacked in the next players phase, the attacker subtracts 2 "
                "from the combat die roll.",
            },
            {"rule": "8", "quote": "+2 if defender moved by strategic movement in previous phase"},
        ],
        "rule 8's +2 by default. When a unit that used strategic movement is attacked in the next "
        "player's phase, the attacker adds 2 to the combat die roll. On the Merida CRT high rolls "
        "favour the attacker, and strategic movement trades safety for speed (a doubled allowance, "
        "no attacking, no entering enemy ZOCs), so a rules judge reads the modifier as a penalty "
        "for the unit that moved; rule 5's 'subtracts' would reward it. The modifier is reported "
        "with the rule it came from.",
        "rule 5's literal text (the attacker subtracts 2): scenario option strategic_modifier = -2.",
        ["combat", "movement"],
    ),
    _entry(
        "merida:conflict-zoc-to-zoc",
        "merida",
        "Conflict: rules 5 and 7 -- moving from one enemy ZOC to another",
        ["5", "7"],
        [
            {
                "rule": "5",
                "quote": "Units may not move directly from one ZOC to another ZOC of the same enemy unit.",
            },
            {"rule": "7", "quote": "Units may never move directly from one ZOC to another."},
        ],
        "rule 5's reading by default: a unit may not move directly from one ZOC hex to another ZOC "
        "hex of the same enemy unit (for stacks: of any exerting stack in common). Rule 5 is the "
        "movement rule and the more specific statement; since units stop on entering an enemy ZOC "
        "(rule 7), the question only arises for a unit leaving its start hex.",
        "rule 7's stricter reading (never from one enemy ZOC hex to another, whoever exerts them): "
        "scenario option zoc_to_zoc = 'any'.",
        ["zoc", "movement"],
    ),
    _entry(
        "backbone:conflict-crt-errata",
        "backbone",
        "Conflict: Combat Results Table and its errata -- 6:1 column, modified rolls 7 and 8",
        ["16.6", "16.3", "16"],
        [
            {"rule": "CRT (printed)", "quote": "7\t2/2\t1/1R\t-/1R\t1/2R\t-/2R\t-/3R\t-/4R"},
            {"rule": "CRT (printed)", "quote": "8\t1/1R\t-/1R\t1/2R\t-/2R\t1/3R\t-/3R\t-/4R"},
            {
                "rule": "Errata",
                "quote": "Substitute: the last two values, (with a modified roll of 7 or 8) in the "
                "column from 6 to 1, must be - / 4.",
            },
            {
                "rule": "Errata",
                "quote": "In the procedure for assigning cancellations, the text included in the "
                "rules is better expressed than that which appears under the table.",
            },
        ],
        "the errata. In the 6:1 column a modified roll of 7 or 8 gives -/4: the defender loses "
        "4 steps and the attacker nothing, with no retreat (the printed -/4R is replaced). Losses "
        "are assigned by the procedure in the text of rule 16.6, not the summary under the table.",
        None,
        ["combat", "retreat"],
    ),
)
