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
    adopt_push_key,
    anchor,
    check_events,
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
from service.cli_support import CliError
from service.config import VAPID_FILE, Config, ConfigError


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
    with --with-keys).  Safe while the server runs.  The file holds the club's own secrets
    (password hashes, webhook secrets, dice seeds): keep it as safe as the database."""
    from service.bootstrap import build_ports, open_process, open_store

    config = _config_without_a_new_key()
    secret = _own_key(config)
    if secret is None:
        raise CliError(
            f"there is no server key: ARBITER_SECRET_KEY is unset and there is no "
            f"{config.keys / 'secret_key'} (is ARBITER_KEYS the server's?); a backup is signed "
            "under the server's key, so nothing was written"
        )
    config = replace(config, secret_key=secret)
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
                        secret=secret,
                        with_keys=with_keys,
                        staging=staging,
                        push_key=_own_push_key(config),
                    )
            else:  # the tables read as they are: nothing created, no heads file opened for writing
                store = open_store(config, build_ports(config), create_tables=False)
                process = open_process(config, create_tables=False)
                try:
                    with postgres_snapshot(
                        config,
                        store.recorder,
                        process.recorder,  # type: ignore[attr-defined]
                    ) as snapshot:
                        manifest = write_backup(
                            path,
                            snapshot,
                            secret=secret,
                            with_keys=with_keys,
                            staging=staging,
                            push_key=_own_push_key(config),
                        )
                finally:
                    process.close()
                    store.close()
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
        + ". It holds password hashes, webhook secrets and the running games' dice seeds: keep "
        "it as safe as the database (owner-only, encrypted when it leaves this machine)"
    )


def _config_without_a_new_key() -> Config:
    """The environment's configuration, read without making a key (``Config.from_env`` makes one
    when there is none; a backup or restore must not: see :func:`_own_key`)."""
    try:  # a placeholder key, replaced by the caller
        return Config.from_env({**os.environ, "ARBITER_SECRET_KEY": "-"})
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def _own_key(config: Config) -> str | None:
    """The target server's key, read without making one: ARBITER_SECRET_KEY, else its keys
    folder's ``secret_key`` (or one an older version left in the data folder)."""
    if os.environ.get("ARBITER_SECRET_KEY"):
        return os.environ["ARBITER_SECRET_KEY"]
    for path in (config.keys / "secret_key", config.var_dir / "secret_key"):
        if path.exists():
            return path.read_text().strip()
    return None


def _own_push_key(config: Config) -> str | None:
    """The server's web push key, read without making one: ARBITER_VAPID_PRIVATE_KEY, else its
    keys folder's ``vapid_private_key`` (None: no push key made yet)."""
    if config.vapid_private_key:
        return config.vapid_private_key.strip()
    path = config.keys / VAPID_FILE
    return path.read_text().strip() if path.exists() else None


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--take-key",
    is_flag=True,
    help="A server with no key yet takes the key a --with-keys backup holds (only a backup you "
    "made and kept yourself: whoever wrote the file chose that key).",
)
def restore(path: Path, take_key: bool) -> None:
    """Load the backup PATH into the store this environment configures (ARBITER_STORE: a SQLite
    backup restores into PostgreSQL too), which must be empty; then verify every game and anchor
    its head.  Stop the server of the target first; the backup is checked whole, and its signature
    under the server key, before anything is written."""
    from service.application import restoring
    from service.bootstrap import build_ports, build_services, migrate, open_process, open_store

    config = _config_without_a_new_key()
    started = time.monotonic()
    own = _own_key(config)
    with tempfile.TemporaryDirectory(prefix="arbiter-restore-") as folder:
        try:
            found = open_backup(path, Path(folder))
            secret = key_for_restore(found, own, take_key=take_key)
            check_heads(found, secret)
        except BackupError as exc:
            raise CliError(f"{exc}; nothing was restored") from None
        config = replace(config, secret_key=secret, embedded_worker=False)
        try:
            unfinished = restoring.started(config)
        except Exception as exc:  # noqa: BLE001 - an unreachable store: say so, write nothing
            raise CliError(f"could not read the {config.store} store: {exc}") from None
        if unfinished is not None:
            raise CliError(f"refused: {restoring.refusal(config, unfinished)}")
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
        reader = open_store(config, ports, create_tables=False)
        try:  # every event what its type declares, before anything is written
            check_events(found, reader.mapper)
        except BackupError as exc:
            raise CliError(str(exc)) from None
        finally:
            reader.close()
        # from here the store is written: marked first, the mark dropped once the heads are in
        try:
            restoring.begin(config, str(path))
        except Exception as exc:  # noqa: BLE001 - another restore began meanwhile, or no store
            raise CliError(
                f"could not mark the {config.store} store as being restored ({exc}); nothing was "
                "restored"
            ) from None
        if own is None:
            adopt_key(config, secret)
        took_push_key = adopt_push_key(config, found.push_key)
        migrate(config)
        svc = build_services(config, restoring=True)
        try:
            done = load(found, svc.store, svc.notifications.process, svc.store.heads)
            anchor(found, done, svc.store.heads, svc.audit.verify)
            # the persisted views built from the restored logs: the server answers its lists
            # at once, as the backed-up one did
            svc.projections.run()
            svc.notifications.process.views.run()
            restoring.finish(config)
            summary: dict[str, Any] = svc.audit.verify_all()
        except Exception as exc:  # noqa: BLE001 - any failure here leaves the store marked
            reason = str(exc) if isinstance(exc, BackupError) else f"{type(exc).__name__}: {exc}"
            raise CliError(
                f"{reason}. The restore stopped half-way and the store holds part of the backup "
                f"(marked: no server starts on it): {restoring.remedy(config)}"
            ) from None
        finally:
            svc.close()
    click.echo(
        f"restored {path} (a {found.manifest['source']['store']} backup of "
        f"{found.manifest['created_at']}) into the {config.store} store in "
        f"{time.monotonic() - started:.1f} s: {done.events} events, {done.notifications} "
        f"notification records, {done.heads} anchored heads; {summary['clean']} of "
        f"{summary['games']} games verify"
        + (", the key taken from the backup" if own is None else "")
        + (", the web push key taken from the backup" if took_push_key else "")
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
