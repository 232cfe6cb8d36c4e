"""The ``arbiter`` command line: serve, users, games, dice, scenarios, rules, backup, restore."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from service.cli_support import CliError, _json, _services, domain_errors
from service.config import Config, ConfigError


@click.group()
@click.version_option(package_name="arbiter")
def main() -> None:
    """Arbiter: wargames online with every rule enforced."""


# -- serve -------------------------------------------------------------------------------------
@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=None, help="Port (default: $PORT or 5000)."
)
def serve(host: str, port: int | None) -> None:
    """Serve the web app and the API: gunicorn with one uvicorn worker (one process, what the
    embedded SQLite store wants; live streams are async and hold no thread).  For several workers
    on PostgreSQL + Redis run gunicorn directly (README)."""
    from service.bootstrap import build_services
    from service.server import serve as run_server

    if port is None:
        try:
            port = int(os.environ.get("PORT", "5000"))
        except ValueError:
            raise CliError("PORT must be a number") from None
    try:
        config = Config.from_env()
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    _refuse_half_restored(config)  # before the migration writes anything
    _migrate(config)  # once, before the one worker starts (the worker never creates tables)
    click.echo(
        "opening the rules knowledge base (built on first start, rebuilt when the corpus changes)"
    )
    try:
        svc = build_services(config)
    except ConfigError as exc:  # a half-restored store among them
        raise CliError(str(exc)) from None
    try:
        svc.knowledge.kb  # noqa: B018 - build or open the index before the first request
    finally:
        svc.close()
    click.echo(f"Arbiter on http://{host}:{port}/ (store: {config.store})")
    # the notification worker runs inside the one server process (`arbiter worker` runs it apart)
    os.environ.setdefault("ARBITER_EMBEDDED_WORKER", "true")
    run_server(host, port)


# -- worker --------------------------------------------------------------------------------------
@main.command()
@click.option(
    "--interval",
    type=click.FloatRange(0.05, 60),
    default=0.5,
    show_default=True,
    help="Seconds between rounds when there is nothing to do.",
)
def worker(interval: float) -> None:
    """Deliver notifications: follow the store's log from the recorded position, e-mail
    (ARBITER_SMTP_URL) and call webhooks, record clocks that ran out.  Run one or more beside
    gunicorn on PostgreSQL + Redis (README); `arbiter serve` runs one inside itself."""
    import signal
    from dataclasses import replace

    from service.bootstrap import build_services, build_worker

    try:
        config = replace(Config.from_env(), embedded_worker=False)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    try:
        svc = build_services(config)
    except ConfigError as exc:  # a half-restored store among them
        raise CliError(str(exc)) from None
    runner = build_worker(svc, process=svc.notifications.process)
    signal.signal(signal.SIGTERM, lambda *_: runner._stop.set())
    click.echo(
        f"notification worker {runner.dispatcher.worker} (store: {config.store}, "
        f"e-mail: {'on' if config.smtp_url else 'off: ARBITER_SMTP_URL is unset'})"
    )
    try:
        runner.run(interval)
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop()  # the sends in flight end first (each within its own timeout)
        svc.close()


# -- db ------------------------------------------------------------------------------------------
@main.group()
def db() -> None:
    """The store's tables."""


@db.command("migrate")
def db_migrate() -> None:
    """Create the store's tables if they are missing (idempotent).  Run it once before starting
    gunicorn workers: they never create tables themselves."""
    try:
        config = Config.from_env()
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    _migrate(config)


def _refuse_half_restored(config: Config) -> None:
    """Refuse a store a restore did not finish (``build_services`` refuses it too; this is only
    earlier).  A store that cannot be read here is left to the migration to report."""
    from service.application.restoring import refusal, started

    try:
        note = started(config)
    except Exception:  # noqa: BLE001 - unreachable: `_migrate` says so
        return
    if note is not None:
        raise CliError(refusal(config, note))


def _migrate(config: Config) -> None:
    from eventsourcing.persistence import PersistenceError
    from psycopg import Error as PostgresError

    from service.application.availability import StoreUnavailable
    from service.bootstrap import migrate

    try:
        tables = migrate(config)
    except (PersistenceError, PostgresError, StoreUnavailable, OSError) as exc:
        raise CliError(f"could not migrate the {config.store} store: {exc}") from None
    click.echo(f"store ready ({config.store}): {', '.join(tables)}")


# -- users ---------------------------------------------------------------------------------------
@main.group()
def users() -> None:
    """Manage users."""


@users.command("add")
@click.argument("username")
@click.option(
    "--password",
    prompt=True,
    hide_input=True,
    confirmation_prompt=True,
    help="At least 8 characters.",
)
@click.option("--email", default=None, help="Where notifications are e-mailed (optional).")
@click.pass_context
@domain_errors
def users_add(ctx: click.Context, username: str, password: str, email: str | None) -> None:
    """Register USERNAME."""
    user = _services(ctx).users.register(username, password, email)
    click.echo(f"added {user.username} ({user.id})")


@users.command("set-password")
@click.argument("username")
@click.option(
    "--password",
    prompt="New password",
    hide_input=True,
    confirmation_prompt=True,
    help="The new password (asked for when not given; 8 characters or more, not a common one).",
)
@click.pass_context
@domain_errors
def users_set_password(ctx: click.Context, username: str, password: str) -> None:
    """Set USERNAME's password without the old one (the operator's way; players change theirs on
    the settings page or reset it by e-mail).  Every token and web session of theirs is signed
    out."""
    changed = _services(ctx).users.set_password(username, password)
    ended = changed.signed_out
    click.echo(
        f"set {changed.user.username}'s password; signed out {ended} "
        f"token{'' if ended == 1 else 's'} and session{'' if ended == 1 else 's'}"
    )


@users.command("tokens")
@click.argument("username")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@domain_errors
def users_tokens(ctx: click.Context, username: str, as_json: bool) -> None:
    """USERNAME's live tokens and web sessions (never their secrets)."""
    svc = _services(ctx)
    rows = svc.users.tokens(svc.users.by_name(username))
    if as_json:
        _json(rows)
        return
    if not rows:
        click.echo("no tokens")
    for row in rows:
        used = row["last_used"].isoformat(timespec="minutes") if row["last_used"] else "never"
        click.echo(
            f"{row['id']}  {row['label']:12}  created {row['created']:%Y-%m-%d %H:%M}  "
            f"last change {used}  expires {row['expires']:%Y-%m-%d %H:%M}"
        )


@users.command("revoke-token")
@click.argument("username")
@click.argument("token_id")
@click.pass_context
@domain_errors
def users_revoke_token(ctx: click.Context, username: str, token_id: str) -> None:
    """Revoke USERNAME's token TOKEN_ID (as listed by `arbiter users tokens`)."""
    svc = _services(ctx)
    svc.users.revoke_token(svc.users.by_name(username), token_id)
    click.echo(f"revoked {username}'s token {token_id}")


# -- games ---------------------------------------------------------------------------------------
@main.group()
def games() -> None:
    """Inspect games."""


@games.command("list")
@click.option(
    "--status", type=click.Choice(["invited", "active", "ended", "declined"]), default=None
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def games_list(ctx: click.Context, status: str | None, as_json: bool) -> None:
    """List games, newest first."""
    from service.views.games import GameQuery

    svc = _services(ctx)
    rows = list(svc.index.every(GameQuery(everything=True, status=status)))
    for row in rows:
        row["sides"] = {side: svc.users.username(uid) for side, uid in row["sides"].items()}
    if as_json:
        _json(rows)
        return
    if not rows:
        click.echo("no games")
    for row in rows:
        sides = ", ".join(f"{s}: {u}" for s, u in row["sides"].items())
        click.echo(f"{row['id']}  {row['system']}/{row['scenario']}  {row['status']:6}  {sides}")


@games.command("expire-clocks")
@click.pass_context
@domain_errors
def games_expire_clocks(ctx: click.Context) -> None:
    """Record every correspondence clock that has run out (what the worker does each minute)."""
    touched = _services(ctx).lifecycle.expire_clocks()
    click.echo(f"{len(touched)} game{'' if len(touched) == 1 else 's'} with a clock that ran out")
    for game_id in touched:
        click.echo(game_id)


@games.command("show")
@click.argument("game")
@click.option(
    "--version", type=click.IntRange(min=1), default=None, help="Show the game at this version."
)
@click.pass_context
@domain_errors
def games_show(ctx: click.Context, game: str, version: int | None) -> None:
    """Print GAME (its full state: this is an operator's view)."""
    svc = _services(ctx)
    found = svc.games.get(game, version=version)
    _json(svc.games.view(found, None) | {"state": found.state})


@games.command("export")
@click.argument("game")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default="-",
    help="File (default stdout).",
)
@click.option(
    "--record",
    "record",
    type=click.Path(dir_okay=False, writable=True, allow_dash=True),
    default=None,
    help="Write the open game record (docs/game-record.md) to this file ('-': stdout) instead.",
)
@click.pass_context
@domain_errors
def games_export(ctx: click.Context, game: str, output: str, record: str | None) -> None:
    """Export every event of GAME as NDJSON (full, for audit), or with --record FILE as the open
    game record that `arbiter games import` reads on another server."""
    svc = _services(ctx)
    from service.application.events import export_lines

    if record is not None:
        text = svc.records.lines(game, full=True)
        if record == "-":
            for line in text:
                click.echo(line, nl=False)
            return
        with open(record, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(text)
        click.echo(f"wrote the record of game {game} to {record}", err=True)
        return

    head = svc.audit.anchored_head(game)  # before the events: a log cut below it shows
    lines = export_lines(svc.games.iter_all_events(game), head)
    if output == "-":
        for line in lines:
            click.echo(line, nl=False)
    else:
        count = 0
        with open(output, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                count += 1
        click.echo(f"wrote {count - 1} events and the anchored head to {output}", err=True)


@games.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported, with its audit.")
@click.pass_context
@domain_errors
def games_import(ctx: click.Context, file: str, as_json: bool) -> None:
    """Import a finished game's record (from `arbiter games export GAME --record FILE` or
    GET /api/games/<id>/record on another server) under its own id: every line is checked, the
    events replayed with this server's rules to the state the record names, the chain and the
    dice verified.  A refusal names the first bad line, exits non-zero and writes nothing."""
    svc = _services(ctx)
    raw = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CliError(f"line {line}: not UTF-8 text") from None
    found = svc.records.import_text(text, by="operator")
    if as_json:
        _json(found)
    else:
        audit = found["audit"]
        click.echo(
            f"imported game {found['game']} ({found['title']}, {found['system']}): "
            f"{found['events']} events, state {found['state_digest']}, "
            f"audit {'ok' if audit['ok'] else 'FAILED'}, dice "
            f"{'verified' if audit['dice'].get('verified') else 'not verified'}"
        )
    if not found["audit"]["ok"]:
        sys.exit(1)


@games.command("replay")
@click.argument("game")
@click.option("--to", "to", type=click.IntRange(min=1), required=True, help="Version to rebuild.")
@click.pass_context
@domain_errors
def games_replay(ctx: click.Context, game: str, to: int) -> None:
    """Rebuild GAME's state from its events up to version N and print it."""
    svc = _services(ctx)
    state = svc.games.get(game, version=to)
    _json(
        {
            "game": str(state.id),
            "version": state.version,
            "status": state.status,
            "state": state.state,
        }
    )


# -- dice ----------------------------------------------------------------------------------------
@main.group()
def dice() -> None:
    """Provably fair dice."""


@dice.command("verify")
@click.argument("game")
@click.pass_context
@domain_errors
def dice_verify(ctx: click.Context, game: str) -> None:
    """Re-derive every recorded roll of GAME from its seed; exit 1 on any mismatch."""
    report = _services(ctx).games.verify_dice(game)
    _json(report)
    if not report["ok"]:
        sys.exit(1)


# -- scenarios -----------------------------------------------------------------------------------
@main.group()
def scenarios() -> None:
    """Scenario files."""


@scenarios.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--system", default=None, help="Rules system whose checks apply (default: the file's)."
)
def scenarios_check(file: str, system: str | None) -> None:
    """Report what in FILE is invalid (exit 1) or placeholder (warning)."""
    from service.bootstrap import build_registry_for

    problems = _check_scenario(Path(file), system, build_registry_for(Config.from_env()))
    errors = [p for p in problems if p.get("level") == "error"]
    for p in problems:
        click.echo(f"{p.get('level', 'error'):7} {p.get('place', '')}: {p.get('message', '')}")
    click.echo(f"{len(errors)} error(s), {len(problems) - len(errors)} placeholder/warning(s)")
    if errors:
        sys.exit(1)


def _check_scenario(path: Path, system: str | None, registry: Any) -> list[dict[str, str]]:
    from service.application.scenarios import check_path  # one path with the scenario library

    return check_path(path, system, registry)


def _attach_optional_groups() -> None:
    from service.cli_clubs import campaigns, clubs, ladders

    for group in (clubs, ladders, campaigns):
        main.add_command(group)
    from service.cli_events import events

    main.add_command(events)  # club events (tournaments)
    from faq.cli import rules
    from service.cli_audit import attach

    main.add_command(rules)
    from service.cli_scenarios import attach as attach_scenarios

    attach_scenarios(scenarios)  # import, export, list: the club scenario library
    attach(main)
    from service.cli_backup import attach as attach_backup

    attach_backup(main)  # backup and restore
    from service.fuzz.cli import fuzz

    main.add_command(fuzz)
    from service.cli_projections import projections

    main.add_command(projections)  # status and rebuild of the persisted views


_attach_optional_groups()


if __name__ == "__main__":
    main()
