"""The ``arbiter events`` command group: club events (tournaments), as the API has them
(docs/events.md).  Commands that act for someone name them with ``--as USERNAME``; the same
permission checks apply as in the API."""

from __future__ import annotations

import json
from typing import Any

import click

from service.cli_support import _json, _services, domain_errors
from service.domain.game import ADJUDICATIONS
from service.domain.tournaments import FORMATS

as_option = click.option("--as", "as_user", required=True, help="The user who acts.")


def _user(ctx: click.Context, username: str) -> Any:
    return _services(ctx).users.by_name(username)


def _show(ctx: click.Context, event: str) -> None:
    svc = _services(ctx)
    svc.projections["tournaments"].run()  # the operator's: the view brought up to the log
    _json(svc.tournaments.view(event))


@click.group()
def events() -> None:
    """Club events: round robins and Swiss events with sides balanced."""


@events.command("create")
@click.argument("club")
@click.option("--name", required=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option("--system", required=True)
@click.option("--scenario", required=True)
@click.option("--rounds", type=int, default=None, help="A Swiss's number of rounds.")
@click.option("--double", is_flag=True, help="A round robin where each pair plays both sides.")
@click.option("--round-days", type=int, default=7, show_default=True)
@click.option("--options", default="{}", help="The games' options as JSON.")
@click.option("--clock", default=None, help="The games' clock as JSON.")
@click.option("--scoring", default=None, help='JSON, e.g. {"win": 2, "draw": 1, "loss": 0}.')
@as_option
@click.pass_context
@domain_errors
def events_create(
    ctx: click.Context,
    club: str,
    name: str,
    fmt: str,
    system: str,
    scenario: str,
    rounds: int | None,
    double: bool,
    round_days: int,
    options: str,
    clock: str | None,
    scoring: str | None,
    as_user: str,
) -> None:
    """Create an event in CLUB (a club admin)."""
    try:
        spec = {
            "name": name,
            "format": fmt,
            "system": system,
            "scenario": scenario,
            "rounds": rounds,
            "double": double,
            "round_days": round_days,
            "options": json.loads(options),
            "clock": json.loads(clock) if clock else None,
            "scoring": json.loads(scoring) if scoring else {},
        }
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}") from None
    event = _services(ctx).tournaments.create(club, _user(ctx, as_user), spec)
    click.echo(f"created event {event.name} ({event.id})")


@events.command("list")
@click.argument("club")
@click.option("--limit", type=click.IntRange(1, 100), default=50, show_default=True)
@click.pass_context
@domain_errors
def events_list(ctx: click.Context, club: str, limit: int) -> None:
    """CLUB's events, oldest first (the first LIMIT)."""
    rows, more = _services(ctx).tournaments.of_club(club, limit=limit)
    for row in rows:
        click.echo(f"{row['id']}  {row['name']}  {row['format']}  {row['status']}")
    if not rows:
        click.echo("no events")
    elif more is not None:
        click.echo(f"(more: raise --limit, at most 100; {len(rows)} shown)")


@events.command("show")
@click.argument("event")
@click.pass_context
@domain_errors
def events_show(ctx: click.Context, event: str) -> None:
    """Print EVENT with its rounds and standings as JSON."""
    _show(ctx, event)


@events.command("join")
@click.argument("event")
@as_option
@click.pass_context
@domain_errors
def events_join(ctx: click.Context, event: str, as_user: str) -> None:
    """Join EVENT (a member of its club, before it starts)."""
    _services(ctx).tournaments.join(event, _user(ctx, as_user))
    click.echo(f"{as_user} joined")


@events.command("add")
@click.argument("event")
@click.argument("username")
@as_option
@click.pass_context
@domain_errors
def events_add(ctx: click.Context, event: str, username: str, as_user: str) -> None:
    """Add USERNAME (a member of the club) to EVENT (a club admin)."""
    _services(ctx).tournaments.invite(event, _user(ctx, as_user), username)
    click.echo(f"{username} added")


@events.command("remove")
@click.argument("event")
@click.argument("username")
@as_option
@click.pass_context
@domain_errors
def events_remove(ctx: click.Context, event: str, username: str, as_user: str) -> None:
    """Remove USERNAME from EVENT before its start (a club admin, or the player)."""
    _services(ctx).tournaments.remove(event, _user(ctx, as_user), username)
    click.echo(f"{username} removed")


@events.command("start")
@click.argument("event")
@as_option
@click.pass_context
@domain_errors
def events_start(ctx: click.Context, event: str, as_user: str) -> None:
    """Start EVENT (a club admin): its first round (a round robin's every round) is paired."""
    done = _services(ctx).tournaments.start(event, _user(ctx, as_user))
    click.echo(f"started: {len(done.released)} round(s) released")


@events.command("next-round")
@click.argument("event")
@click.option(
    "--result",
    "results",
    multiple=True,
    help="GAME=SIDE|draw:forfeit|adjudication, for an unfinished game of the current round.",
)
@as_option
@click.pass_context
@domain_errors
def events_next_round(
    ctx: click.Context, event: str, results: tuple[str, ...], as_user: str
) -> None:
    """Release EVENT's next Swiss round (a club admin)."""
    parsed = [_result(text) for text in results]
    done = _services(ctx).tournaments.next_round(event, _user(ctx, as_user), parsed)
    click.echo(f"round {len(done.released)} released")


@events.command("result")
@click.argument("event")
@click.argument("game")
@click.argument("winner")
@click.option("--kind", type=click.Choice(ADJUDICATIONS), required=True)
@click.option("--note", default="")
@as_option
@click.pass_context
@domain_errors
def events_result(
    ctx: click.Context, event: str, game: str, winner: str, kind: str, note: str, as_user: str
) -> None:
    """Record GAME's result in EVENT after its round's deadline (a club arbiter): WINNER is a
    side, or ``draw``."""
    body = {"game": game, "winner": None if winner == "draw" else winner, "kind": kind}
    _services(ctx).tournaments.record_result(event, _user(ctx, as_user), body | {"note": note})
    click.echo("recorded")


def _result(text: str) -> dict[str, Any]:
    game, sep, rest = text.partition("=")
    winner, sep2, kind = rest.partition(":")
    if not sep or not sep2:
        raise click.BadParameter(f"{text!r} is not GAME=SIDE:KIND", param_hint="--result")
    return {"game": game, "winner": None if winner == "draw" else winner, "kind": kind}
