"""`arbiter audit`, `arbiter disputes`, `arbiter users grant|revoke` and `arbiter rules for-event`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from service.application.audit import rules_wording
from service.cli_support import CliError, _json, _services, domain_errors
from service.domain.audit import Broken, verify_log
from service.domain.chain import seal_key_from_secret
from service.rules.registry import build_registry


@click.group()
def audit() -> None:
    """Verify game logs."""


@audit.command("verify")
@click.argument("game", required=False)
@click.option("--all", "every", is_flag=True, help="Verify every game of the store.")
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="Verify an NDJSON export offline.",
)
@click.option(
    "--secret",
    envvar="ARBITER_SECRET_KEY",
    default=None,
    help="Server secret to check seals (default: $ARBITER_SECRET_KEY).",
)
@click.pass_context
@domain_errors
def audit_verify(
    ctx: click.Context, game: str | None, every: bool, path: str | None, secret: str | None
) -> None:
    """Recompute GAME's hash chain, seals and dice over the stored events, or an export's with
    --file (no server needed), or every game's with --all; print the first event where anything
    differs.  Exit 1 if any does."""
    if [game is not None, path is not None, every].count(True) != 1:
        raise CliError("give one of GAME, --file EXPORT or --all")
    if every:
        summary = _services(ctx).audit.verify_all()
        _json(summary)
        if not summary["ok"]:
            click.echo(
                f"FAILED: {len(summary['failed'])} of {summary['games']} games"
                + (
                    f", {len(summary['heads_without_a_game'])} anchored heads with no game"
                    if summary["heads_without_a_game"]
                    else ""
                ),
                err=True,
            )
            sys.exit(1)
        return
    if path is not None:
        report = verify_file(Path(path), secret)
    else:
        report = _services(ctx).audit.verify(game)
    _json(report)
    if not report["ok"]:
        first = report["first_bad"]
        click.echo(f"FAILED at event {first['seq']}: {first['reason']}", err=True)
        sys.exit(1)


@audit.command("repair")
@click.argument("game")
@click.option("--reason", required=True, help="Why: what broke the log, and who checked it.")
@click.pass_context
@domain_errors
def audit_repair(ctx: click.Context, game: str, reason: str) -> None:
    """Record in GAME's log the operator's signed account of breaks the server itself made (an
    event stored at another version than it was hashed for, before the lost-update fix), so the
    audit reads them as explained.  Nothing is rewritten; refused when the log verifies or has a
    problem a repair may not explain.  Prints the audit after the repair."""
    _report(_services(ctx).audit.repair(game, reason=reason, by="operator"))


@audit.command("reconcile")
@click.argument("game")
@click.option("--reason", required=True, help="What happened: the restore, and who checked it.")
@click.pass_context
@domain_errors
def audit_reconcile(ctx: click.Context, game: str, reason: str) -> None:
    """After a restore or a rollback: record in GAME's log (a signed HeadReconciled event) that its
    log ends below its anchored head, which head was lost and why, and anchor the head again so
    play goes on.  Until then every command on the game is refused.  Prints the audit after."""
    _report(_services(ctx).audit.reconcile(game, reason=reason, by="operator"))


def _report(report: dict[str, Any]) -> None:
    """Print an audit; exit 1 when the log does not verify."""
    _json(report)
    if not report["ok"]:
        sys.exit(1)


def verify_file(path: Path, secret: str | None) -> dict[str, Any]:
    """Verify an export offline: its chain, sealed forms, derived fields (texts re-worded with the
    installed rules), its anchored head line (a file cut below it fails) and, with the secret, the
    seals and the head's signature."""
    items: list[dict[str, Any] | Broken] = []
    game, head, headed = None, None, False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            items.append(Broken(number, f"line {number} is not JSON: {exc.msg}"))
            continue
        if isinstance(item, dict) and set(item) == {"head"}:
            head, headed = item["head"], True  # the last line; anything after it is reported
            continue
        if not isinstance(item, dict) or headed:
            items.append(Broken(number, f"line {number} is not an event object before the head"))
            continue
        game = game or item.get("game")
        items.append(item)
    if game is None:
        raise CliError(f"{path} holds no events")
    key = seal_key_from_secret(secret) if secret else None
    wording = rules_wording(_registry().get)
    report = verify_log(items, game=str(game), seal_key=key, head=head, wording=wording)
    result = report.as_dict()
    result["file"] = str(path)
    return result


def _registry() -> Any:
    plugins = [p for p in os.environ.get("ARBITER_PLUGINS", "").split(",") if p.strip()]
    if plugins and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return build_registry(plugins)


@audit.command("heads")
@click.pass_context
@domain_errors
def audit_heads(ctx: click.Context) -> None:
    """Every game's signed head (game, version, hash, at, mac) as NDJSON: publish or archive it
    (e.g. daily) so that even a cut of the heads store itself shows."""
    heads = _services(ctx).store.heads
    for head in heads.all() if heads is not None else ():
        click.echo(json.dumps(head, sort_keys=True))


@click.group()
def disputes() -> None:
    """Disputes of game events (an operator's tool: it acts as the user named with --as)."""


@disputes.command("list")
@click.argument("game")
@click.pass_context
@domain_errors
def disputes_list(ctx: click.Context, game: str) -> None:
    """Every dispute of GAME."""
    rows = []
    for found in _services(ctx).disputes.of_game(game):
        row = {k: found[k] for k in ("dispute", "seq", "side", "claim", "status")}
        if found["resolution"] is not None:
            row["remedy"] = found["resolution"]["remedy"]
        rows.append(row)
    _json(rows)


@disputes.command("open")
@click.argument("game")
@click.argument("seq", type=click.IntRange(min=2))
@click.option("--as", "username", required=True, help="The player who disputes.")
@click.option("--claim", required=True, help="What is wrong.")
@click.option("--cite", multiple=True, help="Knowledge-base entry id (repeatable).")
@click.option(
    "--reading",
    multiple=True,
    metavar="OPTION=VALUE",
    help="The reading that should have applied: a game option and its value, as JSON where it "
    "is not a word (strategic_modifier=-2; repeatable).",
)
@click.pass_context
@domain_errors
def disputes_open(
    ctx: click.Context,
    game: str,
    seq: int,
    username: str,
    claim: str,
    cite: tuple[str, ...],
    reading: tuple[str, ...],
) -> None:
    """Flag event SEQ of GAME."""
    svc = _services(ctx)
    _, dispute = svc.disputes.open(
        game,
        svc.users.by_name(username),
        seq=seq,
        claim=claim,
        cite=cite,
        side=None,
        reading=_reading(reading),
    )
    click.echo(f"opened {dispute}")


def _reading(pairs: tuple[str, ...]) -> dict[str, object] | None:
    """``OPTION=VALUE`` pairs as options: a value is read as JSON (``-2``, ``true``), else as a
    word (``any``); a pair without ``=`` is a usage error (exit 2)."""
    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{pair!r} is not OPTION=VALUE", param_hint="--reading")
        try:
            out[name.strip()] = json.loads(raw)
        except ValueError:
            out[name.strip()] = raw
    return out or None


@disputes.command("what-if")
@click.argument("game")
@click.argument("dispute")
@click.option("--as", "username", required=True, help="A player of the game, or an arbiter.")
@click.pass_context
@domain_errors
def disputes_what_if(ctx: click.Context, game: str, dispute: str, username: str) -> None:
    """What DISPUTE's claim would change, as USERNAME may see it (never written to the log)."""
    svc = _services(ctx)
    found = svc.what_ifs.for_caller(game, svc.users.by_name(username), dispute)
    for part in ("before", "recorded", "alternative"):
        found[part].pop("state", None)
        found[part].pop("counters", None)
    _json(found)


@disputes.command("resolve")
@click.argument("game")
@click.argument("dispute")
@click.option("--as", "username", required=True, help="The arbiter.")
@click.option("--verdict", type=click.Choice(["upheld", "overturned"]), required=True)
@click.option("--remedy", type=click.Choice(["rewind", "rebase"]), default=None)
@click.option("--cite", multiple=True, required=True, help="Knowledge-base entry id (repeatable).")
@click.option("--note", default="")
@click.option(
    "--reading",
    multiple=True,
    metavar="OPTION=VALUE",
    help="The reading the verdict adopts (a rebase re-decides the disputed order under it with "
    "the same dice); none: the dispute's own claim.",
)
@click.option("--what-if", "what_if", default=None, help="The digest of the what-if decided on.")
@click.pass_context
@domain_errors
def disputes_resolve(
    ctx: click.Context,
    game: str,
    dispute: str,
    username: str,
    verdict: str,
    remedy: str | None,
    cite: tuple[str, ...],
    note: str,
    reading: tuple[str, ...],
    what_if: str | None,
) -> None:
    """Resolve DISPUTE of GAME as an arbiter."""
    svc = _services(ctx)
    result = svc.disputes.resolve(
        game,
        svc.users.by_name(username),
        dispute=dispute,
        verdict=verdict,
        remedy=remedy,
        cite=cite,
        note=note,
        reading=_reading(reading),
        what_if=what_if,
    )
    _json(result)


def _set_role(ctx: click.Context, username: str, role: str, *, grant: bool) -> None:
    svc = _services(ctx)
    user = svc.users.by_name(username)
    if grant:
        user.grant(role)
    else:
        user.revoke(role)
    svc.store.save(user)
    click.echo(f"{username} is {'now' if grant else 'no longer'} {role}")


@click.command("grant")
@click.argument("username")
@click.option("--role", type=click.Choice(["arbiter", "admin"]), required=True)
@click.pass_context
@domain_errors
def users_grant(ctx: click.Context, username: str, role: str) -> None:
    """Give USERNAME a site-wide role (an arbiter resolves disputes of games of no club)."""
    _set_role(ctx, username, role, grant=True)


@click.command("revoke")
@click.argument("username")
@click.option("--role", type=click.Choice(["arbiter", "admin"]), required=True)
@click.pass_context
@domain_errors
def users_revoke(ctx: click.Context, username: str, role: str) -> None:
    """Take a site-wide role from USERNAME."""
    _set_role(ctx, username, role, grant=False)


@click.command("for-event")
@click.argument("game")
@click.argument("seq", type=click.IntRange(min=1))
@click.pass_context
@domain_errors
def rules_for_event(ctx: click.Context, game: str, seq: int) -> None:
    """The rule sections and rulings that govern event SEQ of GAME (JSON)."""
    _json(_services(ctx).knowledge.for_event(game, seq, None))


def _club_rulings_from_the_log() -> Any:
    """The club rulings in force as the event log has them, for `arbiter rules index` rebuilds:
    the rulings view brought up to the log's head first (a CLI may run with no worker)."""
    from service.application.knowledge import indexed
    from service.bootstrap import build_services
    from service.config import Config

    svc = build_services(Config.from_env())
    try:
        svc.projections["rulings"].run()
        return [indexed(ruling) for ruling in svc.knowledge.club_rulings()]
    finally:
        svc.close()


def attach(main: click.Group) -> None:
    from faq.cli import configure

    main.add_command(audit)
    main.add_command(disputes)
    users = main.commands["users"]
    assert isinstance(users, click.Group)
    users.add_command(users_grant)
    users.add_command(users_revoke)
    rules = main.commands.get("rules")
    if isinstance(rules, click.Group):
        rules.add_command(rules_for_event)
    configure(club_rulings=_club_rulings_from_the_log)
