"""``arbiter projections status``, ``arbiter projections rebuild [NAME]`` and ``arbiter projections
parked retry|drop``: the persisted views (``service.views``), shown and rebuilt
while the server runs, and the events they parked (could not take) dealt with after a fix."""

from __future__ import annotations

import getpass
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
        """Each view's status, its ``parked`` events and those an operator ``dropped``."""
        rows = []
        for catalog in self.catalogs:
            dropped = catalog.parked(dropped=True)
            for row in catalog.status():
                rows.append(row | {"dropped": [e for e in dropped if e["view"] == row["name"]]})
        return rows

    def rebuild(self, name: str, progress: Any) -> int:
        return int(self.catalog(name).rebuild(name, progress))

    def catalog(self, name: str) -> Any:
        return next(c for c in self.catalogs if name in c.runners)

    def parked(self, name: str | None) -> list[dict[str, Any]]:
        """The events parked by ``name`` (default: every view)."""
        if name:
            return list(self.catalog(name).parked(name))
        return [event for c in self.catalogs for event in c.parked()]

    def known(self, name: str | None) -> None:
        if name is not None and name not in self.runners:
            raise CliError(f"no view {name!r}: one of {', '.join(self.runners)}")


@contextmanager
def _projections() -> Iterator[Any]:
    """The views of the store and of its notification process, over those stores alone (no
    other service is built)."""
    from service.application.schema import require_tables
    from service.bootstrap import build_ports, open_process, open_store
    from service.views.catalog import Projections

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
    click.echo(f"{'view':<12} {'position':>10} {'head':>10} {'lag':>8} {'rows':>8} {'parked':>6}")
    for row in rows:
        click.echo(
            f"{row['name']:<12} {row['position']:>10} {row['head']:>10} {row['lag']:>8} "
            f"{row['rows']:>8} {len(row['parked']):>6}"
        )
    parked = [event for row in rows for event in row["parked"]]
    if parked:
        click.echo("")
        click.echo(
            f"{len(parked)} event(s) parked (the view could not take them; after a fix: "
            "`arbiter projections parked retry`, or `... drop`):"
        )
        for event in parked:
            _echo_parked(event)


def _echo_parked(event: dict[str, Any], outcome: str = "") -> None:
    click.echo(
        f"  {event['view']} at position {event['position']}: {event['event']}{outcome}\n"
        f"    {event['error']}"
    )


@projections.command("rebuild")
@click.argument("name", required=False)
def rebuild(name: str | None) -> None:
    """Rebuild NAME (default: every view) from the log, while the server runs: built into new
    tables, then swapped in in one transaction (the worker carries on from there)."""
    from service.application.schema import migration_lock

    with _projections() as (config, views):
        names = [name] if name else list(views.runners)
        for each in names:
            views.known(each)
        for each in names:

            def progress(position: int, head: int, each: str = each) -> None:
                share = 100 * position // head if head else 100
                click.echo(f"\r{each}: {position}/{head} ({share}%)", nl=False, err=True)

            with migration_lock(config):  # PostgreSQL: new tables, like `arbiter db migrate`
                done = views.rebuild(each, progress)
            click.echo("", err=True)
            click.echo(f"{each}: rebuilt from {done} events")
            for event in views.parked(each):
                _echo_parked(event, " (parked: the view goes on without it)")


@projections.group("parked")
def parked() -> None:
    """The events a view could not take (parked, the view went on without them): retry them
    after a fix, or drop them."""


def _chosen(views: _Views, name: str | None, position: int | None) -> list[dict[str, Any]]:
    views.known(name)
    events = [e for e in views.parked(name) if position is None or e["position"] == position]
    if position is not None and not events:
        where = f"view {name!r}" if name else "any view"
        raise CliError(f"no event parked at position {position} by {where}")
    return events


@parked.command("retry")
@click.argument("name", required=False)
@click.option("--position", type=int, help="Only the event at this position of the log.")
def retry(name: str | None, position: int | None) -> None:
    """Apply the events NAME (default: every view) parked through the view again: one it takes
    is no longer parked; one that fails again stays parked with the new error (exit 1)."""
    with _projections() as (_, views):
        events = _chosen(views, name, position)
        failed = 0
        for event in events:
            error = views.runners[event["view"]].retry(event["position"])
            if error is None:
                click.echo(
                    f"{event['view']} at position {event['position']}: {event['event']}"
                    " taken, no longer parked"
                )
            else:
                failed += 1
                _echo_parked(event | {"error": error}, " still parked")
    if not events:
        click.echo("nothing is parked")
    elif failed:
        raise click.ClickException(f"{failed} of {len(events)} event(s) still parked")


def _system_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no name for this uid (a container's)
        return "unknown"


@parked.command("drop")
@click.argument("name")
@click.option("--position", type=int, help="Only the event at this position of the log.")
@click.option("--reason", required=True, help="Why the view does without the event(s).")
@click.option("--by", default=None, help="Who drops them (default: the system user).")
def drop(name: str, position: int | None, reason: str, by: str | None) -> None:
    """Drop the events NAME parked (or only the one at --position): the view does without
    them; each record is kept, saying who dropped it, when and why (status --json shows them)."""
    if not reason.strip():
        raise CliError("--reason: say why the view does without the event")
    who = by or _system_user()
    with _projections() as (_, views):
        events = _chosen(views, name, position)
        for event in events:
            views.runners[name].drop(event["position"], who, reason.strip())
            click.echo(f"{name} at position {event['position']}: {event['event']} dropped by {who}")
    if not events:
        click.echo(f"{name} has nothing parked")
