"""The knowledge base's entries: FWtBT rulings, rulebook sections, conflicts and club rulings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: entry kinds
RULING = "ruling"
RULE = "rule"
CLUB_RULING = "club-ruling"
CONFLICT = "conflict"
KINDS = (RULING, RULE, CLUB_RULING, CONFLICT)

#: the FWtBT FAQ, the knowledge base's own document; the games' rulebooks come from their packages
#: (``service.rules.base.Rulebook``) and are given to the knowledge base
FAQ_DOCUMENT = "fwtbt-faq"
FAQ_FILE = "fwtbt-faq.txt"
#: the game the FAQ belongs to (its first line: "For Whom the Bell Tolls´ FAQ"), a Europa series
#: game played on no board of this site: its rulings are persuasive, never binding, here
FAQ_GAME = "For Whom the Bell Tolls"


@dataclass(frozen=True)
class Answer:
    """One answer as signed: ``[AEG, Developer, 03-Mar-04]`` -> authority ``AEG, Developer``,
    initials ``AEG``, date ``03-Mar-04``; ``[Rules Court, TEM 62]`` -> source ``TEM 62``."""

    text: str
    authority: str | None = None
    initials: str | None = None
    date: str | None = None
    date_iso: str | None = None
    source: str | None = None
    note: str | None = None
    signed: str | None = None  # the signature line verbatim
    shared_signature: bool = False  # signed by one signature after a later answer
    overruled: bool = False  # its signature is noted "overruled later"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        values: dict[str, Any] = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**values)


@dataclass
class Entry:
    """One searchable entry.  ``number``/``title`` for rulebook sections, ``question``/``answers``
    for rulings, ``text`` for everything that is prose (a section's body, a conflict's statement)."""

    id: str
    kind: str
    document: str
    heading: str
    rule_refs: list[str] = field(default_factory=list)
    heading_refs: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    question: str = ""
    answers: list[Answer] = field(default_factory=list)
    text: str = ""
    number: str | None = None
    title: str | None = None
    section_type: str | None = None  # rule, chart, notes, errata, intro, example (rulebooks)
    section: str | None = None  # FWtBT section key
    group: str | None = None  # FWtBT group heading ("Orders Of Battle", "Rules")
    order: int = 0
    applies_to: str | None = None  # club rulings / conflicts: the rulebook concerned
    extra: dict[str, Any] = field(default_factory=dict)
    #: questions in players' words that the entry answers (``faq.expansions``), indexed with it
    asked: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["answers"] = [a.as_dict() for a in self.answers]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        values["answers"] = [Answer.from_dict(a) for a in data.get("answers", [])]
        return cls(**values)

    @property
    def answer_text(self) -> str:
        return "\n".join(a.text for a in self.answers)


@dataclass(frozen=True)
class ClubRuling:
    """A ruling a club made (e.g. settling a dispute).  Its true store is the lead's event log;
    the index only caches it.  ``applies_to`` names the rulebook it concerns (``merida`` ...)."""

    id: str
    club: str
    question: str
    answer: str
    authority: str | None = None
    date: str | None = None
    heading: str = ""
    rule_refs: tuple[str, ...] = ()
    applies_to: str | None = None
    topics: tuple[str, ...] = ()

    @property
    def entry_id(self) -> str:
        return club_entry_id(self.id)


def club_entry_id(ruling_id: str) -> str:
    return ruling_id if ruling_id.startswith("club-ruling:") else f"club-ruling:{ruling_id}"
