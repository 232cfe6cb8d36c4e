"""``arbiter fuzz``: random legal play of whole games through the application service."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from service.fuzz.runner import GameOutcome


def _plugins() -> tuple[str, ...]:
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # plug-ins named relative to the working directory
    return tuple(p.strip() for p in os.environ.get("ARBITER_PLUGINS", "").split(",") if p.strip())


@click.command()
@click.option(
    "--system", "systems", multiple=True, help="A rules system (repeat; default: every one)."
)
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Game i of each system plays seed+i."
)
@click.option(
    "--max-commands",
    type=click.IntRange(min=1),
    default=500,
    show_default=True,
    help="Stop a game after this many commands (reported apart from failures).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("var/fuzz"),
    show_default=True,
    help="Where a failing game's events export is written.",
)
@click.option(
    "--record",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write every game that ends as a golden game in this directory.",
)
@click.option(
    "--replay",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Replay a failing game's export (or a golden game) with every check.",
)
def fuzz(
    systems: tuple[str, ...],
    games: int,
    seed: int,
    max_commands: int,
    out: Path,
    record: Path | None,
    replay: Path | None,
) -> None:
    """Play random legal games of each SYSTEM through the application service, checking the
    rules contract after every command and the audit and dice after every game.  Exit 1 on any
    failure (its game is exported to --out as NDJSON, which --replay plays again)."""
    from service.fuzz import session

    plugins = _plugins()
    if replay is not None:
        _replay(replay, plugins)
        return
    report = session.fuzz(
        list(systems),
        games,
        seed,
        max_commands=max_commands,
        out_dir=out,
        plugins=plugins,
        record_dir=record,
        progress=_progress,
    )
    click.echo(report.summary())
    if report.failures:
        click.echo(
            f"{len(report.failures)} failing game(s) above; replay one with "
            "`arbiter fuzz --replay FILE` or `arbiter fuzz --system S --games 1 --seed K`",
            err=True,
        )
        sys.exit(1)


def _progress(outcome: GameOutcome) -> None:
    click.echo(f"{'FAIL' if outcome.failed else 'BOUND'} {outcome.line()}", err=True)


def _replay(path: Path, plugins: tuple[str, ...]) -> None:
    from service.fuzz import session

    first = path.read_text(encoding="utf-8").lstrip()[:20]
    if first.startswith('{"golden"'):
        outcome = session.check_golden(path, plugins)
    else:
        outcome = session.replay_export(path, plugins)
    click.echo(outcome.line())
    for problem in outcome.problems[1:]:
        click.echo(f"  {problem}", err=True)
    if outcome.failed:
        sys.exit(1)
