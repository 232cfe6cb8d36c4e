"""The questions players ask that each entry answers, indexed beside the entry (issue 49).

A player asks in their own words ("can my tanks go over the river"); an entry says it in the
rulebook's ("armor ... prohibited ... except along road").  ``asked.jsonl`` holds, for each
shipped entry, a few questions in players' words that the entry answers -- written offline for
the shipped corpus (see ``README.md`` here: how, by whom, and how a club replaces them).  The
index holds them in the ``asked`` field, which BM25F scores beside the heading and the text
(``faq.query.TEXT_FIELDS``), so a question worded as players word it finds its entry by theirs.

One JSON object per line: ``{"id": "<entry id>", "asked": ["question", ...]}``.  A line not of
that shape is refused by :func:`load_asked` with the line's number, and :func:`asked_or_none`
then leaves the whole file unused (logged: the index is built from the texts alone, the search
goes on); an id that names no entry is left out by :func:`attach` (logged).  Without the file the
search is the texts' alone."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from faq.model import Entry

log = logging.getLogger(__name__)

ASKED_FILE = Path(__file__).resolve().parent / "asked.jsonl"
#: at most this many questions an entry, each at most this long (a hand-edited file stays sane)
MAX_ASKED = 12
MAX_CHARS = 300


class AskedError(ValueError):
    """A line of the asked questions' file that is not what it must be."""


def load_asked(path: Path = ASKED_FILE) -> dict[str, tuple[str, ...]]:
    """Entry id -> the questions players ask it answers; :class:`AskedError` naming the line
    for a bad one.  An absent file: none."""
    if not path.exists():
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AskedError(f"{path.name} line {number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise AskedError(f'{path.name} line {number}: an object with an "id" is expected')
        asked = row.get("asked")
        if (
            not isinstance(asked, list)
            or not asked
            or len(asked) > MAX_ASKED
            or not all(isinstance(q, str) and q.strip() and len(q) <= MAX_CHARS for q in asked)
        ):
            raise AskedError(
                f'{path.name} line {number}: "asked" must be 1 to {MAX_ASKED} questions of at '
                f"most {MAX_CHARS} characters"
            )
        if row["id"] in out:
            raise AskedError(f"{path.name} line {number}: {row['id']} is given twice")
        out[row["id"]] = tuple(q.strip() for q in asked)
    return out


def attach(entries: Iterable[Entry], asked: dict[str, tuple[str, ...]]) -> None:
    """Give each entry its asked questions; those naming no entry are logged and left out."""
    known = set()
    for entry in entries:
        known.add(entry.id)
        entry.asked = list(asked.get(entry.id, ()))
    unknown = sorted(set(asked) - known)
    if unknown:
        log.warning(
            "%d asked questions' entries are not in the corpus (left out): %s",
            len(unknown),
            ", ".join(unknown[:5]),
        )


def asked_or_none(path: Path = ASKED_FILE) -> dict[str, tuple[str, ...]]:
    """:func:`load_asked`, or none (logged) where the file is not what it must be: the index is
    then built from the texts alone, and the search goes on."""
    try:
        return load_asked(path)
    except (AskedError, OSError, UnicodeDecodeError) as exc:
        log.error("the asked questions are not used: %s", exc)
        return {}
