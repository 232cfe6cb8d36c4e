"""``arbiter rules``: parse report, index rebuild, search.  Attach with ``cli.add_command(rules)``.

The index lives in ``$ARBITER_VAR/index`` (``ARBITER_VAR`` defaults to ``./var``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from faq.corpus import DEFAULT_CORPUS, load_corpus
from faq.errors import QueryError
from faq.search import ClubSource, KnowledgeBase
from service.rules.base import Rulebook

#: where club rulings come from on a rebuild; the lead sets it (see :func:`configure`)
_club_source: ClubSource | None = None
#: the games' rulebooks to index (``None``: the registry's games')
_rulebooks: list[Rulebook] | None = None


def configure(club_rulings: ClubSource | None, rulebooks: Sequence[Rulebook] | None = None) -> None:
    """Give the CLI the club rulings' true store, used when ``rules index`` rebuilds, and the
    rulebooks of the composition root's registry."""
    global _club_source, _rulebooks
    _club_source = club_rulings
    _rulebooks = list(rulebooks) if rulebooks is not None else None


def index_dir() -> Path:
    return Path(os.environ.get("ARBITER_VAR", "./var")) / "index"


def knowledge_base() -> KnowledgeBase:
    return KnowledgeBase(index_dir(), club_rulings=_club_source, rulebooks=_rulebooks)


@click.group()
def rules() -> None:
    """The rules knowledge base: FWtBT FAQ rulings, rulebooks, conflicts, club rulings."""


@rules.command()
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.option("--corpus", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=DEFAULT_CORPUS, show_default=False, help="Corpus directory.")  # fmt: skip
def stats(as_json: bool, corpus: Path) -> None:
    """Parse the corpus and count sections, questions, answers, authorities and refs."""
    counts = load_corpus(corpus, _rulebooks).stats()
    if as_json:
        click.echo(json.dumps(counts, indent=1))
        return
    for document, figures in counts.items():
        click.echo(document)
        for key, value in figures.items():
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v}" for k, v in value.items())
            click.echo(f"  {key:<20} {value}")


@rules.command("index")
def index_cmd() -> None:
    """Rebuild the search index from the corpus (and the club rulings)."""
    kb = knowledge_base()
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label="indexing entries")
            bar.__enter__()
        bar.update(1)

    meta = kb.rebuild(progress)
    if bar is not None:
        bar.__exit__(None, None, None)
    click.echo(
        f"indexed {meta['entries']} entries ({meta['club_rulings']} club rulings) "
        f"in {meta['build_seconds']:.2f}s -> {index_dir()}"
    )


@rules.command()
@click.argument("query")
@click.option("--limit", default=10, show_default=True, type=int, help="Results (1..100).")
@click.option("--document", default=None, help="fwtbt-faq, a game's rulebook (its system name), "
              "club or club:<id>.")  # fmt: skip
@click.option("--game", default=None, help="Scope to a game (its system name): its rulebook "
              "first, then club rulings, then the FWtBT FAQ and other games.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array, best first.")
def search(query: str, limit: int, document: str | None, game: str | None, as_json: bool) -> None:
    """Search rulings and rules."""
    try:
        results = knowledge_base().search(query, limit=limit, document=document, game=game)
    except QueryError as exc:
        if as_json:
            click.echo(json.dumps({"error": {"field": exc.field, "reason": exc.reason}}), err=True)
        else:
            click.echo(f"error: {exc.field}: {exc.reason}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(results, indent=1, ensure_ascii=False))
        return
    for r in results:
        click.echo(f"{r['score']:>8.2f}  {r['id']}  ({r['source']})\n          {r['heading']}")
