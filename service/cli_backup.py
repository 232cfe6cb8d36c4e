"""`arbiter backup PATH` and `arbiter restore PATH` (service/application/backup.py holds how)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from service.application.backup import (
    BackupError,
    adopt_key,
    anchor,
    check_heads,
    key_for_restore,
    load,
    occupied,
    open_backup,
    postgres_snapshot,
    sqlite_snapshot,
    staging_beside,
    write_backup,
)
from service.cli import CliError
from service.config import Config, ConfigError


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return ""  # pragma: no cover


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--with-keys",
    is_flag=True,
    help="Include the server key (keep such a backup as safe as the keys folder).",
)
def backup(path: Path, with_keys: bool) -> None:
    """Write one consistent backup of everything this server holds to the new file PATH: the
    event store, the notifications and their position, the anchored heads (and the server key
    with --with-keys).  Safe while the server runs."""
    from service.bootstrap import build_services

    try:
        config = Config.from_env()
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    if path.exists():
        raise CliError(f"{path} exists: a backup never overwrites a file, name a new one")
    if not path.parent.is_dir():
        raise CliError(f"there is no folder {path.parent} to write {path.name} in")
    started = time.monotonic()
    try:
        with staging_beside(path) as staging:
            if config.store == "sqlite":
                with sqlite_snapshot(config, staging) as snapshot:
                    manifest = write_backup(
                        path,
                        snapshot,
                        secret=config.secret_key,
                        with_keys=with_keys,
                        staging=staging,
                    )
            else:
                svc = build_services(replace(config, embedded_worker=False))
                try:
                    with postgres_snapshot(
                        config, svc.store, svc.notifications.process
                    ) as snapshot:
                        manifest = write_backup(
                            path,
                            snapshot,
                            secret=config.secret_key,
                            with_keys=with_keys,
                            staging=staging,
                        )
                finally:
                    svc.close()
    except BackupError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"could not write {path}: {exc.strerror or exc}") from None
    counts = manifest["counts"]
    click.echo(
        f"backed up the {config.store} store to {path} ({_size(path)}, "
        f"{time.monotonic() - started:.1f} s): {counts['games']} games, {counts['events']} events, "
        f"{counts['notifications']} notification records, {counts['heads']} anchored heads; "
        + (
            "the server key is included: keep this file as safe as the keys folder"
            if with_keys
            else "the server key is not included: a restore needs the same key"
        )
    )


def _own_key(config: Config) -> str | None:
    """The target server's key, read without making one: ARBITER_SECRET_KEY, else its keys
    folder's ``secret_key`` (or one an older version left in the data folder)."""
    if os.environ.get("ARBITER_SECRET_KEY"):
        return os.environ["ARBITER_SECRET_KEY"]
    for path in (config.keys / "secret_key", config.var_dir / "secret_key"):
        if path.exists():
            return path.read_text().strip()
    return None


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def restore(path: Path) -> None:
    """Load the backup PATH into the store this environment configures (ARBITER_STORE: a SQLite
    backup restores into PostgreSQL too), which must be empty; then verify every game and anchor
    its head.  Stop the server of the target first; the backup is checked whole before anything
    is written."""
    from service.application.store import open_store
    from service.application.worker import open_process
    from service.bootstrap import build_ports, build_services, migrate

    try:  # a placeholder key: reading the configuration must not make a key (see _own_key)
        config = Config.from_env({**os.environ, "ARBITER_SECRET_KEY": "-"})
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    started = time.monotonic()
    own = _own_key(config)
    with tempfile.TemporaryDirectory(prefix="arbiter-restore-") as folder:
        try:
            found = open_backup(path, Path(folder))
            secret = key_for_restore(found, own)
            check_heads(found, secret)
        except BackupError as exc:
            raise CliError(f"{exc}; nothing was restored") from None
        config = replace(config, secret_key=secret, embedded_worker=False)
        ports = build_ports(config)
        try:
            busy = occupied(
                config,
                store=lambda: open_store(config, ports, create_tables=False),
                process=lambda: open_process(config, create_tables=False),
            )
        except Exception as exc:  # noqa: BLE001 - an unreachable store: say so, write nothing
            raise CliError(f"could not read the {config.store} store: {exc}") from None
        if busy:
            raise CliError(
                "refused: the store to restore into is not empty ("
                + "; ".join(busy)
                + "). Restore only into a new store; nothing was written"
            )
        if own is None:
            adopt_key(config, secret)
        migrate(config)
        svc = build_services(config)
        try:
            done = load(found, svc.store, svc.notifications.process, svc.store.heads)
            anchor(found, done, svc.store.heads, svc.audit.verify)
            summary: dict[str, Any] = svc.audit.verify_all()
        except BackupError as exc:
            raise CliError(str(exc)) from None
        finally:
            svc.close()
    click.echo(
        f"restored {path} (a {found.manifest['source']['store']} backup of "
        f"{found.manifest['created_at']}) into the {config.store} store in "
        f"{time.monotonic() - started:.1f} s: {done.events} events, {done.notifications} "
        f"notification records, {done.heads} anchored heads; {summary['clean']} of "
        f"{summary['games']} games verify"
        + (", the key taken from the backup" if own is None else "")
    )
    if not summary["ok"]:
        for line in done.left_alone:
            click.echo(f"  does not verify: {line}", err=True)
        click.echo(
            "FAILED: some games do not verify (as they did not in the backup?): see "
            "`arbiter audit verify --all`",
            err=True,
        )
        sys.exit(1)


def attach(main: click.Group) -> None:
    main.add_command(backup)
    main.add_command(restore)
