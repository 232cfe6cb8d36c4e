"""A rulebook's conflicts as knowledge-base entries (kind ``conflict``).

The conflicts are the games' own (:class:`service.rules.rulebook.Conflict`, in each game's
``rulebook.py``): each quotes the passages verbatim from the corpus and states the reading the
rules module applies.  Tests check that every quoted passage is really in the corpus text.
"""

from __future__ import annotations

from collections.abc import Iterable

from faq.model import CONFLICT, Entry
from service.rules.base import Rulebook
from service.rules.rulebook import Conflict


def conflict_entry(document: str, conflict: Conflict) -> Entry:
    readings = [{"rule": r.rule, "quote": r.quote} for r in conflict.readings]
    quoted = "\n".join(f'Rule {r.rule}: "{r.quote}"' for r in conflict.readings)
    text = f"{quoted}\nThe engine applies: {conflict.engine_reading}"
    if conflict.option:
        text += f"\nScenario option: {conflict.option}"
    refs = list(conflict.refs)
    return Entry(
        id=f"{document}:conflict-{conflict.key}",
        kind=CONFLICT,
        document=document,
        heading=conflict.heading,
        rule_refs=refs,
        heading_refs=list(refs),
        topics=list(conflict.topics),
        text=text,
        section_type="conflict",
        applies_to=document,
        extra={
            "readings": readings,
            "engine_reading": conflict.engine_reading,
            "option": conflict.option,
        },
    )


def conflict_entries(rulebooks: Iterable[Rulebook]) -> list[Entry]:
    """Every conflict of the given rulebooks, rulebook by rulebook, in their declared order."""
    return [conflict_entry(r.document, c) for r in rulebooks for c in r.conflicts]
