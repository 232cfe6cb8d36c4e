"""What a backup holds and who can make one a restore accepts (review of `arbiter backup` and
`arbiter restore`): the club's own secrets are in it (so it is kept like the database) but the
server key and its derivations are not; the manifest is signed under a key derived from the server
key and a restore refuses a backup not made under its key, or altered; a key is taken from a
backup only when asked; a backup is refused when the key or the heads are missing instead of
written without them; a restore that stops half-way leaves a marker every server start refuses;
the new file cannot be redirected by a symlink; the live SQLite files are read read-only.  Real
SQLite files and a real PostgreSQL database, through the installed command."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.app import create_app
from service.application.backup import backup_key
from service.application.restoring import RestoreIncomplete
from service.asgi import create_asgi
from service.cli import main as arbiter_cli
from service.config import Config
from service.domain.chain import seal_key_from_secret
from tests.conftest import make_config
from tests.integration.test_backup_restore import (
    ARBITER,
    REPO,
    SECRET,
    arbiter,
    backup,
    members,
    pg_env,
    rewritten,
    snapshot_of,
    source,
    source_template,
    sqlite_env,
)
from tests.support.api import PASSWORD
from tests.support.services import postgres_database
from tests.support.tcp_proxy import free_port

pytestmark = pytest.mark.slow(
    "backups and restores through the installed command, one under a running server"
)

__all__ = ["source", "source_template"]  # the fixtures, shared with test_backup_restore.py

HOOK_SECRET = "hook-secret-0123456789-abcdef"


def decoded(part: bytes) -> list[dict[str, Any]]:
    """The events of an events.ndjson part, each with its state decoded."""
    rows = [json.loads(line) for line in part.splitlines()]
    for row in rows:
        row["state"] = json.loads(base64.b64decode(row["state"]))
    return rows


def test_a_backup_holds_the_clubs_secrets_and_says_so_but_not_the_server_key(
    source: Config, tmp_path: Path
) -> None:
    app = create_app(replace(source, webhook_allow_private=True))
    client = app.test_client()
    signed = client.post("/api/tokens", json={"username": "alice", "password": PASSWORD})
    headers = {"Authorization": f"Bearer {signed.get_json()['token']}"}
    hook = client.post(
        "/api/me/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "secret": HOOK_SECRET},
        headers=headers,
    )
    assert hook.status_code == 201, hook.get_json()
    app.extensions["arbiter"].close()

    path = tmp_path / "club.backup"
    done = backup(source, path)
    # the command says what the file holds, key or not
    assert "password hashes" in done.stdout and "webhook secrets" in done.stdout
    assert "dice seeds" in done.stdout and "keep it as safe as the database" in done.stdout
    parts = members(path)
    events = decoded(parts["events.ndjson"])
    topics = {row["topic"].rsplit(":", 1)[-1]: row["state"] for row in events}
    # what it does hold: the running games' dice seeds, every webhook's secret, password hashes
    seeds = [r["state"]["seed"] for r in events if r["topic"].endswith("DiceSeed.Created")]
    assert len(seeds) == 2 and all(seeds)
    assert any(
        r["state"].get("secret") == HOOK_SECRET
        for r in events
        if r["topic"].endswith("Webhook.Registered")
    ), sorted(topics)
    hashes = [r["state"]["password_hash"] for r in events if "password_hash" in r["state"]]
    assert len(hashes) == 3 and all(h.startswith(("scrypt$", "scrypt-")) for h in hashes)

    # and what it does not: the server key, nor anything derived from it, in any form
    blob = b"".join(parts.values())
    for derived in (seal_key_from_secret(SECRET), backup_key(SECRET)):
        for form in (derived, derived.hex().encode(), base64.b64encode(derived)):
            assert form not in blob
    assert SECRET.encode() not in blob
    # the operator's documents say the same
    docs = (REPO / "docs" / "operations.md").read_text()
    readme = (REPO / "README.md").read_text()
    for text in (docs, readme):
        assert "password hashes" in text and "webhook secrets" in text and "dice seeds" in text


# -- the manifest is signed -----------------------------------------------------------------------
def resigned(path: Path, out: Path, change: Any) -> Path:
    """What an attacker who can write the file does: change a part and recompute its checksum."""
    parts = members(path)

    def apply(name: str, data: bytes) -> bytes:
        if name == "manifest.json":
            manifest = json.loads(data)
            for part, described in manifest["files"].items():
                new = change(part, parts[part])
                described["sha256"] = hashlib.sha256(new).hexdigest()
                described["bytes"] = len(new)
            return json.dumps(manifest).encode()
        return change(name, data)  # type: ignore[no-any-return]

    return rewritten(path, out, apply)


def test_a_backup_altered_with_its_checksums_recomputed_or_of_another_key_is_refused(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    manifest = json.loads(members(path)["manifest.json"])
    assert manifest["format_version"] == 2 and len(manifest["mac"]) == 64
    assert "key_check" not in manifest
    # a user's events injected (here: one event's state changed) with the checksums recomputed
    injected = resigned(
        path,
        tmp_path / "injected.backup",
        lambda name, data: (
            data.replace(b'"originator_version":1', b'"originator_version":1 ', 1)
            if name == "events.ndjson"
            else data
        ),
    )
    # a backup of another server (another key)
    other = tmp_path / "other.backup"
    foreign_env = dict(sqlite_env(source.var_dir.parent), ARBITER_SECRET_KEY="another-key")
    assert arbiter(foreign_env, "backup", str(other)).returncode == 0
    for number, bad in enumerate((injected, other)):
        target = tmp_path / f"dst{number}"
        done = arbiter(sqlite_env(target), "restore", str(bad))
        assert done.returncode == 2, done.stdout
        assert "was not made under this server's key, or was altered" in done.stderr
        assert "nothing was restored" in done.stderr and "Traceback" not in done.stderr
        assert not target.exists()


def test_an_unauthenticated_format_1_backup_is_refused_clearly(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)

    def old(name: str, data: bytes) -> bytes:
        if name != "manifest.json":
            return data
        manifest = json.loads(data)
        manifest["format_version"] = 1
        del manifest["mac"]
        return json.dumps(manifest).encode()

    target = tmp_path / "dst"
    done = arbiter(sqlite_env(target), "restore", str(rewritten(path, tmp_path / "v1", old)))
    assert done.returncode == 2
    assert "format 1" in done.stderr and "not signed" in done.stderr
    assert "nothing was restored" in done.stderr and not target.exists()


def test_a_server_with_no_key_takes_one_from_a_backup_only_with_take_key(
    source: Config, tmp_path: Path
) -> None:
    keyed = tmp_path / "keyed.backup"
    backup(source, keyed, "--with-keys")
    keyless = tmp_path / "keyless"
    env = sqlite_env(keyless, secret=None)
    done = arbiter(env, "restore", str(keyed))
    assert done.returncode == 2 and "--take-key" in done.stderr
    assert not keyless.exists()
    # an attacker's key in place of the server's (checksum recomputed): its MAC fails under it
    swapped = resigned(
        keyed,
        tmp_path / "swapped.backup",
        lambda name, data: b"attackers-key" if name == "keys/secret_key" else data,
    )
    done = arbiter(env, "restore", "--take-key", str(swapped))
    assert done.returncode == 2 and "or was altered" in done.stderr
    assert not keyless.exists()
    # a server that has a key takes none
    done = arbiter(sqlite_env(tmp_path / "keyed-server"), "restore", "--take-key", str(keyed))
    assert done.returncode == 2 and "has a key already" in done.stderr
    done = arbiter(env, "restore", "--take-key", str(keyed))
    assert done.returncode == 0, done.stderr
    assert "the key taken from the backup" in done.stdout
    assert (keyless / "keys" / "secret_key").read_text() == SECRET


def files_of(root: Path, taken: dict[str, bytes] | None = None) -> dict[str, bytes]:
    taken = snapshot_of(root) if taken is None else taken
    return {k: v for k, v in taken.items() if not k.endswith(("-wal", "-shm"))}


# -- a backup is not written without its key or its heads -----------------------------------------
def test_a_backup_with_no_key_or_no_heads_is_refused_and_nothing_is_written(
    source: Config, tmp_path: Path
) -> None:
    root = source.var_dir.parent
    env = sqlite_env(root, secret=None)
    (source.keys / "secret_key").write_text(SECRET)  # the server kept its key in its keys folder
    elsewhere = tmp_path / "mistyped-keys"
    path = tmp_path / "club.backup"
    before = snapshot_of(root)
    # ARBITER_KEYS mistyped: no key there (and none is made), no heads there
    done = arbiter(dict(env, ARBITER_KEYS=str(elsewhere)), "backup", str(path))
    assert done.returncode == 2
    assert "no server key" in done.stderr and str(elsewhere) in done.stderr
    assert not path.exists() and not elsewhere.exists()
    # the key given, the heads file mis-set: the store holds games, the heads file is missing
    heads = tmp_path / "mistyped-heads.sqlite"
    done = arbiter(
        dict(env, ARBITER_SECRET_KEY=SECRET, ARBITER_HEADS=str(heads)), "backup", str(path)
    )
    assert done.returncode == 2
    assert str(heads) in done.stderr and "holds 2 games" in done.stderr
    assert not path.exists() and not heads.exists()
    # an empty heads file likewise
    sqlite3.connect(heads).close()
    done = arbiter(
        dict(env, ARBITER_SECRET_KEY=SECRET, ARBITER_HEADS=str(heads)), "backup", str(path)
    )
    assert done.returncode == 2 and str(heads) in done.stderr
    assert not path.exists()
    # the store as it was (reading a stopped WAL database read-only leaves its empty -wal and
    # -shm beside it, as the database's owner: SQLite's own, harmless)
    assert files_of(root) == files_of(root, before)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".club")] == []


@pytest.mark.postgres
def test_a_postgresql_backup_with_its_heads_file_missing_is_refused(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    with postgres_database() as dbname:
        env = pg_env(tmp_path / "pg", dbname)
        assert arbiter(env, "restore", str(path)).returncode == 0
        heads = tmp_path / "elsewhere" / "heads.sqlite"
        done = arbiter(dict(env, ARBITER_HEADS=str(heads)), "backup", str(tmp_path / "pg.backup"))
        assert done.returncode == 2 and str(heads) in done.stderr
        assert not heads.exists() and not (tmp_path / "pg.backup").exists()


# -- a restore that stops half-way ----------------------------------------------------------------
def crash_restore(env: dict[str, str], path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run `arbiter restore` in this process and make it stop as a crash would: after the events
    and the notices are written, at the first head."""
    from service.adapters.heads import SqliteHeads

    def disk_full(*_: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(SqliteHeads, "restore", disk_full)
    cleared = {k: None for k in os.environ if k.startswith(("ARBITER_", "POSTGRES_"))}
    result = CliRunner().invoke(arbiter_cli, ["restore", str(path)], env={**cleared, **env})
    assert result.exit_code != 0
    monkeypatch.undo()


def refused_to_start(env: dict[str, str], *args: str) -> str:
    """`arbiter ARGS`'s stderr, once it has exited non-zero (a server that starts instead is
    stopped, with all it started, and the test fails)."""
    proc = subprocess.Popen(
        [ARBITER, *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: stopped whole below
    )
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(
            f"`arbiter {' '.join(args)}` started on a half-restored store"
        ) from None
    assert proc.returncode != 0
    return err


def assert_half_restored_refused(env: dict[str, str], config: Config, path: Path) -> None:
    for args in (("serve", "--port", str(free_port())), ("worker",)):
        err = refused_to_start(env, *args)
        assert "a restore into this store did not finish" in err, err
        assert "arbiter restore" in err and "Traceback" not in err

    for build in (create_app, create_asgi):
        with pytest.raises(RestoreIncomplete, match="did not finish"):
            build(config)  # type: ignore[operator]
    again = arbiter(env, "restore", str(path))
    assert again.returncode == 2 and "a restore into this store did not finish" in again.stderr


def test_a_restore_that_stops_half_way_leaves_a_store_no_server_starts_on(
    source: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    target = tmp_path / "dst"
    env = sqlite_env(target)
    crash_restore(env, path, monkeypatch)
    assert (target / "var" / "arbiter.sqlite").exists()  # events were written, heads were not
    assert_half_restored_refused(env, make_config(target, secret_key=SECRET), path)
    # dropped and restored again: the marker is gone and the server starts
    for name in ("arbiter.sqlite", "notifications.sqlite"):
        (target / "var" / name).unlink()
    (target / "keys" / "heads.sqlite").unlink()
    done = arbiter(env, "restore", str(path))
    assert done.returncode == 0, done.stderr
    create_app(make_config(target, secret_key=SECRET)).extensions["arbiter"].close()


@pytest.mark.postgres
def test_a_half_restored_postgresql_store_is_refused_by_every_host(
    source: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    with postgres_database() as dbname:
        crash_restore(pg_env(tmp_path / "host1", dbname), path, monkeypatch)
        other_host = pg_env(tmp_path / "host2", dbname)  # its own ARBITER_VAR and keys
        config = make_config(
            tmp_path / "host2", secret_key=SECRET, store="postgres", postgres_dbname=dbname
        )
        assert_half_restored_refused(other_host, config, path)


# -- the file and the source ----------------------------------------------------------------------
def test_the_new_file_cannot_be_redirected_by_a_symlink(source: Config, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    path = tmp_path / "club.backup"
    (tmp_path / f".{path.name}.partial").symlink_to(victim)
    backup(source, path)
    assert victim.read_bytes() == b"precious"
    assert not path.is_symlink() and path.stat().st_mode & 0o777 == 0o600
    assert json.loads(members(path)["manifest.json"])["counts"]["games"] == 2


def test_the_live_sqlite_files_are_read_without_being_written(
    source: Config, tmp_path: Path
) -> None:
    """A server that stopped without a checkpoint leaves its last commits in the -wal file: a
    backup reads them, and leaves the store exactly as it was (a read-write connection, the last to
    close, would checkpoint the -wal into the main file and delete it)."""
    db = source.sqlite_file
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('PRAGMA wal_autocheckpoint=0'); c.execute('CREATE TABLE hot(x)'); "
            "c.commit(); os._exit(0)",
            str(db),
        ],
        check=True,
    )
    wal = db.with_name(db.name + "-wal")
    assert wal.stat().st_size > 0
    if os.geteuid() == 0:  # as root, the server's files stay the server's
        for each in source.var_dir.parent.rglob("*"):
            os.chown(each, 1000, 1000)
    main_before = db.read_bytes()
    backup(source, tmp_path / "club.backup")
    assert db.read_bytes() == main_before
    assert wal.exists() and wal.stat().st_size > 0
    if os.geteuid() == 0:
        owners = {str(p): p.stat().st_uid for p in source.var_dir.parent.rglob("*")}
        assert set(owners.values()) == {1000}, owners
