"""The ``arbiter clubs``, ``arbiter ladders`` and ``arbiter campaigns`` command groups.

Commands that act for someone name them with ``--as USERNAME`` (the operator acts on their behalf;
the same permission checks apply as in the API)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from service.cli_support import _json, _services, domain_errors
from service.domain.clubs import ROLES
from service.domain.ladders import DEFAULT_SETTINGS


def _user(ctx: click.Context, username: str) -> Any:
    return _services(ctx).users.by_name(username)


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    """``key=value`` pairs, the values as typed."""
    out: dict[str, str] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not key=value", param_hint=option)
        out[key.strip()] = raw
    return out


def _setting(values: tuple[str, ...]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as JSON when they parse (numbers, true/false)."""
    out: dict[str, Any] = {}
    for key, raw in _pairs(values, "--set").items():
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


as_option = click.option("--as", "as_user", required=True, help="The user who acts.")


# -- clubs ---------------------------------------------------------------------------------------
@click.group()
def clubs() -> None:
    """Clubs, members and roles (admin, arbiter, player)."""


@clubs.command("create")
@click.argument("name")
@click.option("--founder", required=True, help="The first admin.")
@click.pass_context
@domain_errors
def clubs_create(ctx: click.Context, name: str, founder: str) -> None:
    """Found club NAME."""
    club = _services(ctx).clubs.create(name, _user(ctx, founder))
    click.echo(f"founded {club.name} ({club.id})")


@clubs.command("list")
@click.pass_context
def clubs_list(ctx: click.Context) -> None:
    """List clubs."""
    rows = _services(ctx).clubs.list()
    for row in rows:
        click.echo(f"{row['id']}  {row['name']}")
    if not rows:
        click.echo("no clubs")


@clubs.command("show")
@click.argument("club")
@click.pass_context
@domain_errors
def clubs_show(ctx: click.Context, club: str) -> None:
    """Print CLUB (id or name) and its members as JSON."""
    svc = _services(ctx)
    _json(svc.clubs.view(svc.clubs.get(club)))


@clubs.command("add-member")
@click.argument("club")
@click.argument("username")
@click.option("--role", "roles", multiple=True, type=click.Choice(ROLES), default=("player",))
@as_option
@click.pass_context
@domain_errors
def clubs_add_member(
    ctx: click.Context, club: str, username: str, roles: tuple[str, ...], as_user: str
) -> None:
    """Add USERNAME to CLUB with roles."""
    _services(ctx).clubs.add_member(club, _user(ctx, as_user), username, list(roles))
    click.echo(f"added {username} as {', '.join(roles)}")


@clubs.command("remove-member")
@click.argument("club")
@click.argument("username")
@as_option
@click.pass_context
@domain_errors
def clubs_remove_member(ctx: click.Context, club: str, username: str, as_user: str) -> None:
    """Remove USERNAME from CLUB."""
    _services(ctx).clubs.remove_member(club, _user(ctx, as_user), username)
    click.echo(f"removed {username}")


@clubs.command("grant")
@click.argument("club")
@click.argument("username")
@click.argument("role", type=click.Choice(ROLES))
@as_option
@click.pass_context
@domain_errors
def clubs_grant(ctx: click.Context, club: str, username: str, role: str, as_user: str) -> None:
    """Grant ROLE to USERNAME in CLUB."""
    _services(ctx).clubs.grant(club, _user(ctx, as_user), username, role)
    click.echo(f"{username} is now {role}")


@clubs.command("revoke")
@click.argument("club")
@click.argument("username")
@click.argument("role", type=click.Choice(ROLES))
@as_option
@click.pass_context
@domain_errors
def clubs_revoke(ctx: click.Context, club: str, username: str, role: str, as_user: str) -> None:
    """Revoke ROLE from USERNAME in CLUB."""
    _services(ctx).clubs.revoke(club, _user(ctx, as_user), username, role)
    click.echo(f"{username} is no longer {role}")


# -- ladders -------------------------------------------------------------------------------------
@click.group()
def ladders() -> None:
    """Ladders: settings, players, challenges, results, standings, rebuild."""


@ladders.command("create")
@click.argument("club")
@click.argument("name")
@click.option("--system", required=True)
@click.option("--scenario", default=None, help="One scenario (default: any of the system's).")
@click.option(
    "--set", "settings", multiple=True, help=f"key=value; keys: {', '.join(DEFAULT_SETTINGS)}"
)
@as_option
@click.pass_context
@domain_errors
def ladders_create(
    ctx: click.Context,
    club: str,
    name: str,
    system: str,
    scenario: str | None,
    settings: tuple[str, ...],
    as_user: str,
) -> None:
    """Create ladder NAME in CLUB."""
    ladder = _services(ctx).ladders.create(
        club,
        _user(ctx, as_user),
        name=name,
        system=system,
        scenario=scenario,
        settings=_setting(settings),
    )
    click.echo(f"created ladder {ladder.name} ({ladder.id})")


@ladders.command("settings")
@click.argument("ladder")
@click.option("--set", "settings", multiple=True, required=True, help="key=value")
@as_option
@click.pass_context
@domain_errors
def ladders_settings(
    ctx: click.Context, ladder: str, settings: tuple[str, ...], as_user: str
) -> None:
    """Change LADDER's settings."""
    changed = _services(ctx).ladders.change_settings(
        ladder, _user(ctx, as_user), _setting(settings)
    )
    _json(changed.settings)


@ladders.command("list")
@click.argument("club")
@click.pass_context
@domain_errors
def ladders_list(ctx: click.Context, club: str) -> None:
    """List CLUB's ladders."""
    for row in _services(ctx).ladders.of_club(club):
        where = row["scenario"] or "any scenario"
        click.echo(f"{row['id']}  {row['name']}  {row['system']}/{where}  {row['results']} results")


@ladders.command("join")
@click.argument("ladder")
@as_option
@click.pass_context
@domain_errors
def ladders_join(ctx: click.Context, ladder: str, as_user: str) -> None:
    """Join LADDER."""
    _services(ctx).ladders.join(ladder, _user(ctx, as_user))
    click.echo(f"{as_user} joined")


@ladders.command("standings")
@click.argument("ladder")
@click.option("--top", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@domain_errors
def ladders_standings(ctx: click.Context, ladder: str, top: int, as_json: bool) -> None:
    """Print LADDER's standings."""
    board = _services(ctx).ladders.standings(ladder, limit=top)
    if as_json:
        _json(board)
        return
    for row in board["standings"]:
        click.echo(
            f"{row['rank']:4}  {row['username']:20} {row['rating']:8.2f} +-{row['rd']:6.2f}  "
            f"{row['wins']}-{row['draws']}-{row['losses']}"
        )


@ladders.command("challenge")
@click.argument("ladder")
@click.argument("opponent")
@click.option("--scenario", default=None)
@click.option("--side", default=None, help="Your side (default: drawn when accepted).")
@click.option("--options", default="{}", help="Game options as JSON.")
@as_option
@click.pass_context
@domain_errors
def ladders_challenge(
    ctx: click.Context,
    ladder: str,
    opponent: str,
    scenario: str | None,
    side: str | None,
    options: str,
    as_user: str,
) -> None:
    """Challenge OPPONENT on LADDER."""
    try:
        parsed = json.loads(options)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(str(exc), param_hint="--options") from None
    svc = _services(ctx)
    challenge = svc.ladders.challenge(
        ladder, _user(ctx, as_user), opponent, scenario=scenario, side=side, options=parsed
    )
    click.echo(f"challenge {challenge.id} (answer by {challenge.deadline})")


@ladders.command("answer")
@click.argument("challenge")
@click.argument("answer", type=click.Choice(["accept", "decline", "forfeit"]))
@as_option
@click.pass_context
@domain_errors
def ladders_answer(ctx: click.Context, challenge: str, answer: str, as_user: str) -> None:
    """Accept or decline CHALLENGE, or claim its forfeit after the deadline."""
    svc = _services(ctx)
    user = _user(ctx, as_user)
    if answer == "accept":
        _done, game = svc.ladders.accept(challenge, user)
        click.echo(f"accepted: game {game.id}")
    elif answer == "decline":
        svc.ladders.decline(challenge, user)
        click.echo("declined")
    else:
        svc.ladders.forfeit(challenge, user)
        click.echo("forfeited: a win for the challenger")


@ladders.command("report")
@click.argument("ladder")
@click.option("--side", "sides", multiple=True, required=True, help="side=username (each side)")
@click.option("--winner", default=None, help="The winning side (omit for a draw).")
@click.option("--level", default=None, help="Victory level.")
@click.option("--scenario", default=None)
@as_option
@click.pass_context
@domain_errors
def ladders_report(
    ctx: click.Context,
    ladder: str,
    sides: tuple[str, ...],
    winner: str | None,
    level: str | None,
    scenario: str | None,
    as_user: str,
) -> None:
    """Report a face-to-face game on LADDER (the opponent confirms it)."""
    bound = _pairs(sides, "--side")
    report = _services(ctx).ladders.report(
        ladder, _user(ctx, as_user), sides=bound, winner=winner, level=level, scenario=scenario
    )
    click.echo(f"report {report.id}: waiting for the opponent's confirmation")


@ladders.command("confirm")
@click.argument("report")
@click.option("--reject", is_flag=True, help="Reject instead.")
@as_option
@click.pass_context
@domain_errors
def ladders_confirm(ctx: click.Context, report: str, reject: bool, as_user: str) -> None:
    """Confirm (or reject) REPORT as the opponent."""
    svc = _services(ctx)
    if reject:
        svc.ladders.reject(report, _user(ctx, as_user))
        click.echo("rejected")
    else:
        svc.ladders.confirm(report, _user(ctx, as_user))
        click.echo("confirmed: the result is rated")


@ladders.command("rebuild")
@click.pass_context
def ladders_rebuild(ctx: click.Context) -> None:
    """Rebuild the ladders' view -- ratings, standings, history -- from the events (as `arbiter
    projections rebuild ladders`), record any result still due, and write the Redis boards whole."""
    svc = _services(ctx)
    total = svc.store.recorder.max_notification_id() or 0
    with click.progressbar(length=max(total, 1), label="replaying the log") as bar:
        done = {"at": 0}

        def progress(position: int, _total: int) -> None:
            bar.update(position - done["at"])
            done["at"] = position

        summary = svc.ladders.rebuild(progress)
    click.echo(f"rebuilt {summary['ladders']} ladder(s) from {summary['results']} result(s)")


# -- campaigns -----------------------------------------------------------------------------------
@click.group()
def campaigns() -> None:
    """Campaigns: ordered scenarios, scoring, notes, standings."""


@campaigns.command("create")
@click.argument("club")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@as_option
@click.pass_context
@domain_errors
def campaigns_create(ctx: click.Context, club: str, file: str, as_user: str) -> None:
    """Create a campaign in CLUB from FILE (JSON: name, sides, steps, scoring)."""
    try:
        spec = json.loads(Path(file).read_text(encoding="utf-8"))
        fields = {k: spec[k] for k in ("name", "sides", "steps", "scoring")}
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise click.BadParameter(f"not a campaign file: {exc}", param_hint="FILE") from None
    campaign = _services(ctx).campaigns.create(club, _user(ctx, as_user), **fields)
    click.echo(f"created campaign {campaign.name} ({campaign.id})")


@campaigns.command("show")
@click.argument("campaign")
@click.pass_context
@domain_errors
def campaigns_show(ctx: click.Context, campaign: str) -> None:
    """Print CAMPAIGN with its steps and standings as JSON."""
    svc = _services(ctx)
    _json(svc.campaigns.view(svc.campaigns.get(campaign)))


@campaigns.command("result")
@click.argument("campaign")
@click.argument("step", type=click.IntRange(min=0))
@click.option("--side", "sides", multiple=True, required=True, help="side=username")
@click.option("--winner", default=None)
@click.option("--level", required=True)
@as_option
@click.pass_context
@domain_errors
def campaigns_result(
    ctx: click.Context,
    campaign: str,
    step: int,
    sides: tuple[str, ...],
    winner: str | None,
    level: str,
    as_user: str,
) -> None:
    """Score STEP of CAMPAIGN played off-line."""
    bound = _pairs(sides, "--side")
    done = _services(ctx).campaigns.score_step(
        campaign, _user(ctx, as_user), step, sides=bound, winner=winner, level=level
    )
    click.echo(f"scored: {json.dumps(done.standings()['sides'])}")


@campaigns.command("note")
@click.argument("campaign")
@click.argument("step", type=click.IntRange(min=0))
@click.argument("text")
@as_option
@click.pass_context
@domain_errors
def campaigns_note(ctx: click.Context, campaign: str, step: int, text: str, as_user: str) -> None:
    """Note an effect carried over from STEP."""
    _services(ctx).campaigns.add_note(campaign, _user(ctx, as_user), step, text)
    click.echo("noted")
