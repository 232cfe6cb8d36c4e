"""Load the whole corpus into entries, count what was parsed, and hash it."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faq.conflicts import CONFLICTS
from faq.model import DOCUMENTS, RULEBOOKS, Entry
from faq.parse_fwtbt import DOCUMENT as FAQ
from faq.parse_fwtbt import FaqParse, parse_fwtbt
from faq.parse_rulebooks import parse_rulebook
from faq.topics import topics_for

#: bump when parsing or indexing changes, so existing indexes are rebuilt
PARSER_VERSION = "5"
DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus"


def read(corpus_dir: Path, document: str) -> str:
    return (corpus_dir / DOCUMENTS[document]).read_text(encoding="utf-8")


def corpus_hash(corpus_dir: Path = DEFAULT_CORPUS) -> str:
    """What the index is built from: the corpus files and this package's own source (parsers,
    conflicts, topics, synonyms), so any change to either rebuilds the index."""
    h = hashlib.sha256(f"parser {PARSER_VERSION}\n".encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        h.update(source.name.encode() + b"\n" + source.read_bytes())
    for document, name in sorted(DOCUMENTS.items()):
        h.update(f"{document} {name}\n".encode())
        h.update((corpus_dir / name).read_bytes())
    return h.hexdigest()


@dataclass
class Corpus:
    faq: FaqParse
    rulebooks: dict[str, list[Entry]]
    conflicts: list[Entry]

    @property
    def entries(self) -> list[Entry]:
        out = list(self.faq.entries)
        for document in RULEBOOKS:
            out += self.rulebooks[document]
        return out + self.conflicts

    def stats(self) -> dict[str, dict[str, Any]]:
        """Counts per document: sections, questions, answers, authorities, refs."""
        faq = self.faq.entries
        answers = [a for e in faq for a in e.answers]
        authorities = Counter(a.authority for a in answers if a.authority)
        out: dict[str, dict[str, Any]] = {
            FAQ: {
                "sections": len(self.faq.sections),
                "questions": len(faq),
                "answers": len(answers),
                "signed_answers": sum(1 for a in answers if a.authority),
                "authorities": len(authorities),
                "by_authority": dict(authorities.most_common()),
                "refs": len({r for e in faq for r in e.rule_refs}),
                "sections_with_refs": sum(1 for s in self.faq.sections if s.refs),
            }
        }
        for document in RULEBOOKS:
            entries = self.rulebooks[document]
            kinds = Counter(e.section_type for e in entries)
            out[document] = {
                "sections": len(entries),
                "numbered": sum(1 for e in entries if e.extra.get("numbered")),
                "subsections": sum(1 for e in entries if e.number and not e.extra.get("numbered")),
                "by_type": dict(sorted(kinds.items())),
                "refs": len({r for e in entries for r in e.rule_refs}),
                "conflicts": sum(1 for c in self.conflicts if c.document == document),
            }
        return out


def load_corpus(corpus_dir: Path = DEFAULT_CORPUS) -> Corpus:
    faq = parse_fwtbt(read(corpus_dir, FAQ))
    for e in faq.entries:
        e.topics = topics_for(e.rule_refs, e.heading + "\n" + e.question, e.answer_text)
    rulebooks = {}
    for document in RULEBOOKS:
        entries = parse_rulebook(document, read(corpus_dir, document))
        for e in entries:
            e.topics = topics_for([], e.heading, e.text)
        rulebooks[document] = entries
    return Corpus(faq, rulebooks, [Entry.from_dict(c.as_dict()) for c in CONFLICTS])
