"""Load the corpus into entries -- the FWtBT FAQ and the rulebooks the knowledge base is given --
count what was parsed, and hash it."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faq.conflicts import conflict_entries
from faq.expansions import ASKED_FILE, asked_or_none, attach
from faq.model import FAQ_DOCUMENT, FAQ_FILE, Entry
from faq.parse_fwtbt import FaqParse, parse_fwtbt
from faq.parse_rulebooks import parse_rulebook
from faq.topics import topics_for
from service.rules.base import Rulebook
from service.rules.rulebook import shipped_rulebooks

#: bump when parsing or indexing changes, so existing indexes are rebuilt
PARSER_VERSION = "6"
DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus"
#: names a rulebook's document may not take
RESERVED = frozenset({FAQ_DOCUMENT, "club"})


def rulebooks_or_shipped(rulebooks: Sequence[Rulebook] | None) -> list[Rulebook]:
    """The rulebooks given, checked (unique documents, none reserved); ``None``: the registry's."""
    found = shipped_rulebooks() if rulebooks is None else list(rulebooks)
    documents = [r.document for r in found]
    for document in documents:
        if document in RESERVED or document.startswith("club:") or documents.count(document) > 1:
            raise ValueError(f"rulebook document {document!r} is reserved or given twice")
    return found


def rulebook_path(corpus_dir: Path, rulebook: Rulebook) -> Path:
    """A rulebook's text: a name in the corpus directory, or the absolute path the game gives."""
    return Path(corpus_dir) / rulebook.corpus_file


def read(corpus_dir: Path, rulebook: Rulebook | None = None) -> str:
    """The text of a rulebook, or of the FWtBT FAQ (``rulebook=None``)."""
    path = rulebook_path(corpus_dir, rulebook) if rulebook else Path(corpus_dir) / FAQ_FILE
    return path.read_text(encoding="utf-8")


def corpus_hash(corpus_dir: Path = DEFAULT_CORPUS, rulebooks: Sequence[Rulebook] = ()) -> str:
    """What the index is built from: the corpus files, the rulebooks as their games declare them
    (document, file, heading spec, conflicts), the questions players ask of each entry
    (``faq.expansions``) and this package's own source (parsers, topics, synonyms), so any change
    to one of them rebuilds the index."""
    h = hashlib.sha256(f"parser {PARSER_VERSION}\n".encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        h.update(source.name.encode() + b"\n" + source.read_bytes())
    h.update(f"{FAQ_DOCUMENT} {FAQ_FILE}\n".encode())
    h.update((Path(corpus_dir) / FAQ_FILE).read_bytes())
    for rulebook in rulebooks:
        h.update(f"{rulebook!r}\n".encode())  # frozen dataclasses of tuples: a stable repr
        h.update(rulebook_path(corpus_dir, rulebook).read_bytes())
    h.update(b"asked\n" + (ASKED_FILE.read_bytes() if ASKED_FILE.exists() else b""))
    return h.hexdigest()


@dataclass
class Corpus:
    faq: FaqParse
    rulebooks: dict[str, list[Entry]]  # by document, in the order given
    conflicts: list[Entry]

    @property
    def entries(self) -> list[Entry]:
        out = list(self.faq.entries)
        for entries in self.rulebooks.values():
            out += entries
        return out + self.conflicts

    def stats(self) -> dict[str, dict[str, Any]]:
        """Counts per document: sections, questions, answers, authorities, refs."""
        out = {FAQ_DOCUMENT: self._faq_stats()}
        for document, entries in self.rulebooks.items():
            out[document] = self._rulebook_stats(document, entries)
        return out

    def _faq_stats(self) -> dict[str, Any]:
        faq = self.faq.entries
        answers = [a for e in faq for a in e.answers]
        authorities = Counter(a.authority for a in answers if a.authority)
        return {
            "sections": len(self.faq.sections),
            "questions": len(faq),
            "answers": len(answers),
            "signed_answers": sum(1 for a in answers if a.authority),
            "authorities": len(authorities),
            "by_authority": dict(authorities.most_common()),
            "refs": len({r for e in faq for r in e.rule_refs}),
            "sections_with_refs": sum(1 for s in self.faq.sections if s.refs),
        }

    def _rulebook_stats(self, document: str, entries: list[Entry]) -> dict[str, Any]:
        kinds = Counter(e.section_type for e in entries)
        return {
            "sections": len(entries),
            "numbered": sum(1 for e in entries if e.extra.get("numbered")),
            "subsections": sum(1 for e in entries if e.number and not e.extra.get("numbered")),
            "by_type": dict(sorted(kinds.items())),
            "refs": len({r for e in entries for r in e.rule_refs}),
            "conflicts": sum(1 for c in self.conflicts if c.document == document),
        }


def load_corpus(
    corpus_dir: Path = DEFAULT_CORPUS, rulebooks: Sequence[Rulebook] | None = None
) -> Corpus:
    """Parse the FWtBT FAQ and each rulebook (``None``: the registry's games' rulebooks)."""
    books = rulebooks_or_shipped(rulebooks)
    faq = parse_fwtbt(read(corpus_dir))
    for e in faq.entries:
        e.topics = topics_for(e.rule_refs, e.heading + "\n" + e.question, e.answer_text)
    parsed = {}
    for rulebook in books:
        entries = parse_rulebook(rulebook, read(corpus_dir, rulebook))
        for e in entries:
            e.topics = topics_for([], e.heading, e.text)
        parsed[rulebook.document] = entries
    corpus = Corpus(faq, parsed, conflict_entries(books))
    attach(corpus.entries, asked_or_none())
    return corpus
