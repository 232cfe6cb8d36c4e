"""``arbiter projections status`` and ``arbiter projections rebuild [NAME]``: the persisted views
(``service.application.projections``), shown and rebuilt while the server runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from service.cli_support import CliError
from service.config import Config, ConfigError


class _Views:
    """The main store's views and the notification process's, as one catalog."""

    def __init__(self, *catalogs: Any) -> None:
        self.catalogs = catalogs
        self.runners = {name: r for c in catalogs for name, r in c.runners.items()}

    def status(self) -> list[dict[str, Any]]:
        return [row for c in self.catalogs for row in c.status()]

    def rebuild(self, name: str, progress: Any) -> int:
        catalog = next(c for c in self.catalogs if name in c.runners)
        return int(catalog.rebuild(name, progress))


@contextmanager
def _projections() -> Iterator[Any]:
    """The views of the store and of its notification process, over those stores alone (no
    other service is built)."""
    from service.application.projections.catalog import Projections
    from service.application.schema import require_tables
    from service.application.store import open_store
    from service.application.worker import open_process
    from service.bootstrap import build_ports

    try:
        config = Config.from_env()
        store = open_store(config, build_ports(config))
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    try:
        try:
            require_tables(store, config, views=Projections.TABLES)
        except ConfigError as exc:
            raise CliError(str(exc)) from None
        process = open_process(config, store)
        try:
            main = Projections(store, create_tables=config.store == "sqlite")
            yield config, _Views(main, process.views)
        finally:
            process.close()
    finally:
        store.close()


@click.group()
def projections() -> None:
    """The persisted views of the log (issue 27's read side)."""


@projections.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(as_json: bool) -> None:
    """Each view: its position in the log, the log's head, how far behind it is, its rows."""
    with _projections() as (_, views):
        rows = views.status()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(f"{'view':<12} {'position':>10} {'head':>10} {'lag':>8} {'rows':>8}")
    for row in rows:
        click.echo(
            f"{row['name']:<12} {row['position']:>10} {row['head']:>10} {row['lag']:>8} "
            f"{row['rows']:>8}"
        )


@projections.command("rebuild")
@click.argument("name", required=False)
def rebuild(name: str | None) -> None:
    """Rebuild NAME (default: every view) from the log, while the server runs: built into new
    tables, then swapped in in one transaction (the worker carries on from there)."""
    from service.application.schema import migration_lock

    with _projections() as (config, views):
        names = [name] if name else list(views.runners)
        unknown = [n for n in names if n not in views.runners]
        if unknown:
            raise CliError(f"no view {unknown[0]!r}: one of {', '.join(views.runners)}")
        for each in names:

            def progress(position: int, head: int, each: str = each) -> None:
                share = 100 * position // head if head else 100
                click.echo(f"\r{each}: {position}/{head} ({share}%)", nl=False, err=True)

            with migration_lock(config):  # PostgreSQL: new tables, like `arbiter db migrate`
                done = views.rebuild(each, progress)
            click.echo("", err=True)
            click.echo(f"{each}: rebuilt from {done} events")
