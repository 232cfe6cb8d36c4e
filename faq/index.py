"""The on-disk whoosh index: schema, build, generations and the writer lock.

Layout of ``index_dir``::

    CURRENT            name of the generation in use (replaced atomically)
    .lock              flock: one process at a time builds or changes club rulings
    gen-<hash>-<n>/    a whoosh index and meta.json (corpus hash, counts, build time)

A rebuild writes a new generation and then switches ``CURRENT``; readers notice the switch and
reopen.  Club rulings are written into the current generation under the lock (and whoosh's own
writer lock); other processes' searchers see them on their next refresh.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from whoosh import fields, index

from faq.analysis import index_analyzer
from faq.model import CLUB_RULING, Answer, ClubRuling, Entry
from faq.refs import ancestors
from faq.topics import topics_for

SCHEMA_VERSION = "4"
WRITER_TIMEOUT = 30.0
HEADING_BOOST = 1.5

Progress = Callable[[int, int], None]


def schema() -> fields.Schema:
    text = index_analyzer()
    kw = {"lowercase": True, "commas": True, "scorable": True}
    return fields.Schema(
        id=fields.ID(stored=True, unique=True),
        kind=fields.ID(stored=True),
        document=fields.ID(stored=True),
        applies_to=fields.ID(stored=True),
        number=fields.ID(stored=True),
        order=fields.NUMERIC(stored=True, sortable=True),
        heading=fields.TEXT(analyzer=text, field_boost=HEADING_BOOST),
        content=fields.TEXT(analyzer=text),
        asked=fields.TEXT(analyzer=text),  # the questions players ask it answers (faq.expansions)
        refs=fields.KEYWORD(**kw),
        refs_text=fields.KEYWORD(**kw),
        ref_tree=fields.KEYWORD(**kw),
        topics=fields.KEYWORD(**kw),
        authority=fields.KEYWORD(stored=True, lowercase=True, commas=True),
        date=fields.ID(stored=True),
        payload=fields.STORED(),
    )


#: answer and question part markers at a line's start (``A1:``, ``Q.a)``, ``a3.1)``): not words
_MARKERS = re.compile(r"^[QqAa](?:\d+(?:\.\d+)?[a-z]?|\.[a-z])?(?:[:.]|(?<=[\da-z])\))[ \t]*", re.M)


def strip_markers(text: str) -> str:
    return _MARKERS.sub("", text)


def document_fields(entry: Entry) -> dict[str, Any]:
    tree = {a for r in entry.rule_refs for a in ancestors(r)}
    text_refs = [r for r in entry.rule_refs if r not in entry.heading_refs]
    authorities = [a.authority for a in entry.answers if a.authority]
    return {
        "id": entry.id,
        "kind": entry.kind,
        "document": entry.document,
        "applies_to": entry.applies_to or "any",
        "number": entry.number or "",
        "order": entry.order,
        "heading": "\n".join(
            t
            for t in (
                entry.heading,
                entry.extra.get("parent_heading"),
                entry.extra.get("contents_title"),
                entry.group,
            )
            if t
        ),
        "content": strip_markers(
            "\n".join(t for t in (entry.question, entry.answer_text, entry.text) if t)
        ),
        "asked": "\n".join(entry.asked),
        "refs": ",".join(entry.heading_refs),
        "refs_text": ",".join(text_refs),
        "ref_tree": ",".join(sorted(tree)),
        "topics": ",".join(entry.topics),
        "authority": ",".join(dict.fromkeys(authorities)),
        "date": next((a.date_iso for a in entry.answers if a.date_iso), "") or "",
        "payload": json.dumps(entry.as_dict(), ensure_ascii=False),
    }


def club_entry(ruling: ClubRuling) -> Entry:
    """The searchable entry of a club ruling (document ``club:<club>``)."""
    for name in ("id", "club", "question", "answer"):
        if not str(getattr(ruling, name) or "").strip():
            raise ValueError(f"club ruling {name} must not be empty")
    refs = list(dict.fromkeys(ruling.rule_refs))
    heading = ruling.heading or f"Club ruling: {ruling.question[:80]}"
    return Entry(
        id=ruling.entry_id,
        kind=CLUB_RULING,
        document=f"club:{ruling.club}",
        heading=heading,
        rule_refs=refs,
        heading_refs=refs,
        topics=list(ruling.topics)
        or topics_for([], heading + "\n" + ruling.question, ruling.answer),
        question=ruling.question,
        answers=[Answer(text=ruling.answer, authority=ruling.authority, date=ruling.date)],
        applies_to=ruling.applies_to,
        extra={"club": ruling.club},
    )


def club_ruling_of(entry: dict[str, Any]) -> ClubRuling:
    """The club ruling an indexed entry (as a dict) was made from."""
    answer = entry["answers"][0] if entry["answers"] else {}
    return ClubRuling(
        id=entry["id"].removeprefix("club-ruling:"),
        club=entry["extra"]["club"],
        question=entry["question"],
        answer=answer.get("text", ""),
        authority=answer.get("authority"),
        date=answer.get("date"),
        heading=entry["heading"],
        rule_refs=tuple(entry["rule_refs"]),
        applies_to=entry.get("applies_to"),
        topics=tuple(entry["topics"]),
    )


class IndexStore:
    """Generations of the index under ``index_dir``."""

    def __init__(self, index_dir: Path) -> None:
        self.dir = Path(index_dir)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / ".lock", "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # -- generations ------------------------------------------------------------------------
    @property
    def pointer(self) -> Path:
        return self.dir / "CURRENT"

    def pointer_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.pointer.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns)

    def current(self) -> Path | None:
        try:
            name = self.pointer.read_text().strip()
        except FileNotFoundError:
            return None
        path = self.dir / name
        return path if name and (path / "meta.json").exists() else None

    def meta(self, gen: Path | None = None) -> dict[str, Any] | None:
        gen = gen or self.current()
        if gen is None:
            return None
        return json.loads((gen / "meta.json").read_text())

    def is_current(self, corpus_hash: str) -> bool:
        meta = self.meta()
        return bool(
            meta and meta.get("corpus_hash") == corpus_hash and meta.get("schema") == SCHEMA_VERSION
        )

    def open(self, gen: Path | None = None) -> index.Index:
        gen = gen or self.current()
        if gen is None:
            raise FileNotFoundError(f"no index in {self.dir}")
        return index.open_dir(str(gen))

    # -- writing (call under lock()) -------------------------------------------------------------
    def build(
        self,
        entries: list[Entry],
        corpus_hash: str,
        club_rulings: Iterable[ClubRuling] = (),
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Write a new generation holding ``entries`` and the club rulings, then switch to it."""
        started = time.perf_counter()
        all_entries = entries + [club_entry(r) for r in club_rulings]
        gen = self.dir / f"gen-{corpus_hash[:12]}-{time.time_ns()}"
        gen.mkdir(parents=True)
        ix = index.create_in(str(gen), schema())
        writer = ix.writer(limitmb=256)
        for n, entry in enumerate(all_entries, start=1):
            writer.add_document(**document_fields(entry))
            if progress:
                progress(n, len(all_entries))
        writer.commit()
        meta = {
            "corpus_hash": corpus_hash,
            "schema": SCHEMA_VERSION,
            "entries": len(all_entries),
            "club_rulings": len(all_entries) - len(entries),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_seconds": round(time.perf_counter() - started, 3),
        }
        (gen / "meta.json").write_text(json.dumps(meta, indent=1))
        tmp = self.dir / f"CURRENT.{os.getpid()}"
        tmp.write_text(gen.name)
        os.replace(tmp, self.pointer)
        self._prune(keep={gen.name})
        return meta

    def _prune(self, keep: set[str]) -> None:
        """Drop generations older than the previous one (a reader may still hold the previous)."""
        gens = sorted(
            (p for p in self.dir.glob("gen-*") if p.is_dir()), key=lambda p: p.stat().st_mtime_ns
        )
        for old in gens[:-2]:
            if old.name not in keep:
                shutil.rmtree(old, ignore_errors=True)

    def write_club(self, add: ClubRuling | None = None, remove: str | None = None) -> bool:
        """Add (or replace) one club ruling, or remove one by entry id; True if the index changed."""
        return self.write_clubs([add] if add is not None else [], [remove] if remove else []) > 0

    def write_clubs(self, add: Iterable[ClubRuling], remove: Iterable[str]) -> int:
        """Add (or replace) club rulings and remove others by entry id, in one commit; how many
        documents changed."""
        ix = self.open()
        writer = ix.writer(timeout=WRITER_TIMEOUT)
        try:
            changed = 0
            for ruling in add:
                writer.update_document(**document_fields(club_entry(ruling)))
                changed += 1
            for entry_id in remove:
                changed += writer.delete_by_term("id", entry_id)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        return changed
