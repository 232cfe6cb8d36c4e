"""``arbiter scenarios import|export|list|show``: the club scenario library from the command line
(docs/scenario-library.md).  The operator acts for a club admin (``--as``, default: the club's
first admin), with the same checks as the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from service.cli_support import _json, _services, domain_errors
from service.domain.errors import NotFound


def _admin(svc: Any, club: str, as_user: str | None) -> Any:
    if as_user:
        return svc.users.by_name(as_user)
    found = svc.clubs.get(club)
    admins = [uid for uid, roles in found.members.items() if "admin" in roles]
    if not admins:
        raise NotFound("the club has no admin", {"club": ["no admin"]})
    return svc.users.by_name(svc.users.username(admins[0]))


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--club", required=True, help="The club (id or name) that keeps it.")
@click.option("--as", "as_user", default=None, help="The admin who acts (default: the first).")
@click.option("--title", default=None, help="Its title in the library (default: the file's).")
@click.option("--publish", is_flag=True, help="Publish it as version 1 (refused with errors).")
@click.pass_context
@domain_errors
def scenarios_import(
    ctx: click.Context, file: str, club: str, as_user: str | None, title: str | None, publish: bool
) -> None:
    """Add FILE (a scenario file) to a club's library; its errors and placeholders are listed."""
    svc = _services(ctx)
    try:
        document = json.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"{file} is not a JSON file: {exc}") from None
    user = _admin(svc, club, as_user)
    scenario = svc.scenarios.import_document(club, user, document, title=title, publish=publish)
    view = svc.scenarios.view(scenario, user)
    for error in view["errors"]:
        click.echo(f"error   {error['place']}: {error['reason']}")
    click.echo(
        f"imported {scenario.title!r} as {scenario.id} ({view['completeness']}% complete, "
        f"{len(view['placeholders'])} placeholder(s), {len(view['errors'])} error(s))"
    )
    if scenario.versions:
        latest = scenario.versions[-1]
        click.echo(f"published version {latest['version']} {latest['hash']}")


@click.command("export")
@click.argument("scenario")
@click.option("--version", "version", type=int, default=None, help="A version (default: latest).")
@click.option("--draft", is_flag=True, help="The draft instead of a version.")
@click.option("--csv", "as_csv", is_flag=True, help="The counter list as CSV.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
@click.pass_context
@domain_errors
def scenarios_export(
    ctx: click.Context,
    scenario: str,
    version: int | None,
    draft: bool,
    as_csv: bool,
    output: str | None,
) -> None:
    """A club SCENARIO (its id) as a scenario file (or its counter list as CSV)."""
    from service.application.counter_list import units_csv

    document = _services(ctx).scenarios.operator_document(
        scenario, None if draft else version, draft
    )
    text = units_csv(document) if as_csv else json.dumps(document, indent=1, ensure_ascii=False)
    if output:
        Path(output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        click.echo(f"wrote {output}")
    else:
        click.echo(text.rstrip("\n"))


@click.command("list")
@click.option("--club", required=True, help="The club (id or name).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@domain_errors
def scenarios_list(ctx: click.Context, club: str, as_json: bool) -> None:
    """A club's scenarios with their versions and hashes."""
    svc = _services(ctx)
    rows = [svc.scenarios.summary(s) for s in svc.scenarios.of_club(club)]
    if as_json:
        _json(rows)
        return
    for row in rows:
        hashed = f"v{row['latest']} {row['hash']}" if row["latest"] else "unpublished"
        click.echo(f"{row['id']}  {row['system']:9} {row['sharing']:7} {hashed}  {row['title']}")
    if not rows:
        click.echo("no scenarios")


def attach(group: click.Group) -> None:
    for command in (scenarios_import, scenarios_export, scenarios_list):
        group.add_command(command)
