"""`arbiter backup` and `arbiter restore` (issue 34, item 8) on real SQLite files and a real
PostgreSQL database, through the installed command: a backup describes itself and holds no key
unless asked; a damaged, truncated or foreign file, a store that is not empty and a server with
another key are each refused with a message, and nothing is written; SQLite restores into SQLite
and into PostgreSQL with every game verified and every head at its log's end.  The running server's
backup is tests/e2e/test_backup_running_server.py."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.bootstrap import build_services, build_worker
from service.config import Config
from service.domain.chain import seal_key_from_secret
from service.views.games import GameQuery
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.services import PG, postgres_database

pytestmark = pytest.mark.slow(
    "backups and restores through the installed command on SQLite files and PostgreSQL databases"
)

ARBITER = str(Path(sys.executable).parent / "arbiter")
REPO = Path(__file__).resolve().parents[2]
SECRET = "backup-test-secret"
END = {"type": "end_phase"}


def arbiter(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARBITER, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )


def sqlite_env(root: Path, secret: str | None = SECRET) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "POSTGRES_"))}
    env.update(ARBITER_VAR=str(root / "var"), ARBITER_PLUGINS="tests.fixtures.skirmish")
    env.pop("REDIS_URL", None)
    if secret is not None:
        env["ARBITER_SECRET_KEY"] = secret
    return env


def pg_env(root: Path, dbname: str) -> dict[str, str]:
    return dict(
        sqlite_env(root),
        ARBITER_STORE="postgres",
        POSTGRES_DBNAME=dbname,
        POSTGRES_HOST=PG["host"],
        POSTGRES_PORT=str(PG["port"]),
        POSTGRES_USER=PG["user"],
    )


def play(api: ApiHelper, gid: str, turns: int) -> None:
    """End ``turns`` phases of ``gid``, each by the player whose side is active."""
    for _ in range(turns):
        game = api.game(gid, "alice")
        side = game["active_sides"][0]
        assert api.command(gid, game["sides"][side], END).status_code == 201


@pytest.fixture(scope="module")
def source_template(tmp_path_factory: pytest.TempPathFactory, index_template: Path) -> Config:
    """A SQLite server's data: users, two games played a while, a club with a ladder, and the
    notices the worker derived; closed after (the running server is the e2e test's).  Made once
    a module: each test takes a copy (:func:`source`)."""
    config = make_config(tmp_path_factory.mktemp("backup-source"), secret_key=SECRET)
    shutil.copytree(index_template, config.index_dir)
    app = create_app(config)
    api = ApiHelper(app.test_client())
    for first, second in (("alice", "bob"), ("alice", "carol")):
        game = api.create_game("skirmish", "meeting", {"red": first, "blue": second})
        play(api, game["id"], 3)
    club = api.client.post("/api/clubs", json={"name": "Mill Club"}, headers=api.user("alice"))
    assert club.status_code == 201, club.get_json()
    ladder = api.client.post(
        f"/api/clubs/{club.get_json()['id']}/ladders",
        json={"name": "Mill ladder", "system": "skirmish", "scenario": "meeting"},
        headers=api.user("alice"),
    )
    assert ladder.status_code == 201, ladder.get_json()
    svc = app.extensions["arbiter"]
    build_worker(svc, process=svc.notifications.process).step()
    svc.close()
    return config


@pytest.fixture
def source(tmp_path: Path, source_template: Config) -> Config:
    """A copy of the module's source server's files (:func:`source_template`: its data and its
    keys, the heads among them), this test's own."""
    shutil.copytree(source_template.var_dir.parent, tmp_path / "src")
    return make_config(tmp_path / "src", secret_key=SECRET)


def backup(config: Config, path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = sqlite_env(config.var_dir.parent)
    done = arbiter(env, "backup", str(path), *extra)
    assert done.returncode == 0, done.stderr
    return done


def members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def summary(config: Config) -> dict[str, Any]:
    """What a server holds, as an operator compares it: games and their logs' ends, users, the
    ladder, notices per user, the audit of every game and every head against its log."""
    svc = build_services(config)
    try:
        games = {
            str(row["id"]): (row["status"], svc.games.get(row["id"]).version)
            for row in list(svc.index.every(GameQuery(everything=True)))
        }
        heads = {h["game"]: h["version"] for h in svc.store.heads.all()}
        users = {name: svc.users.by_name(name).id for name in ("alice", "bob", "carol")}
        notices = {
            name: sorted(
                n["text"] for n in svc.notifications.listing(str(uid), limit=500)["notifications"]
            )
            for name, uid in users.items()
        }
        return {
            "games": games,
            "heads": heads,
            "users": sorted(users),
            "notices": notices,
            "tracking": svc.notifications.process.recorder.max_tracking_id("arbiter"),
            "audit": svc.audit.verify_all(),
        }
    finally:
        svc.close()


def test_a_backup_describes_itself_and_holds_no_key_unless_asked(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    done = backup(source, path)
    assert "2 games" in done.stdout and "the server key is not included" in done.stdout
    assert path.stat().st_mode & 0o777 == 0o600
    parts = members(path)
    manifest = json.loads(parts["manifest.json"])
    assert manifest["format"] == "arbiter-backup" and manifest["format_version"] == 2
    assert manifest["source"] == {"store": "sqlite"} and manifest["keys_included"] is False
    assert manifest["created_at"].endswith("+00:00")
    counts = manifest["counts"]
    assert counts["games"] == 2 and counts["heads"] == 2 and counts["notifications"] > 0
    assert len(manifest["mac"]) == 64  # signed: tests/integration/test_backup_safety.py
    assert set(manifest["files"]) == {
        "events.ndjson",
        "notifications.ndjson",
        "tracking.json",
        "heads.ndjson",
    }
    for name, described in manifest["files"].items():
        assert hashlib.sha256(parts[name]).hexdigest() == described["sha256"]
        assert len(parts[name]) == described["bytes"]
    assert len(parts["events.ndjson"].splitlines()) == counts["events"]
    assert 0 < json.loads(parts["tracking.json"])["arbiter"] <= counts["events"]
    # no secret material: neither the key nor the seal key derived from it, in any form
    key = seal_key_from_secret(SECRET)
    blob = b"".join(parts.values())
    for secret in (SECRET.encode(), key, key.hex().encode()):
        assert secret not in blob
    assert SECRET.encode() not in gzip.decompress(path.read_bytes())

    with_keys = tmp_path / "with-keys.backup"
    done = backup(source, with_keys, "--with-keys")
    assert "the server key is included" in done.stdout
    parts = members(with_keys)
    assert parts["keys/secret_key"] == SECRET.encode()
    # and the web push key, which browsers' subscriptions are bound to (none without the flag)
    push_key = (source.keys / "vapid_private_key").read_text().encode()
    assert parts["keys/vapid_private_key"] == push_key
    assert push_key not in blob
    assert json.loads(parts["manifest.json"])["keys_included"] is True

    again = arbiter(sqlite_env(source.var_dir.parent), "backup", str(path))
    assert again.returncode == 2 and "never overwrites" in again.stderr


def test_sqlite_restores_into_sqlite_with_every_game_verified_and_heads_at_the_logs_end(
    source: Config, tmp_path: Path
) -> None:
    before = summary(source)
    path = tmp_path / "club.backup"
    backup(source, path)
    target = tmp_path / "dst"
    done = arbiter(sqlite_env(target), "restore", str(path))
    assert done.returncode == 0, done.stderr
    assert "2 of 2 games verify" in done.stdout
    after = summary(make_config(target, secret_key=SECRET))
    assert after == before
    assert after["audit"]["ok"] and after["heads"] == {g: v for g, (_, v) in after["games"].items()}
    verify = arbiter(sqlite_env(target), "audit", "verify", "--all")
    assert verify.returncode == 0, verify.stderr


@pytest.mark.postgres
def test_sqlite_restores_into_postgresql_and_back(source: Config, tmp_path: Path) -> None:
    before = summary(source)
    path = tmp_path / "club.backup"
    backup(source, path)
    with postgres_database() as dbname:
        env = pg_env(tmp_path / "pg", dbname)
        done = arbiter(env, "restore", str(path))
        assert done.returncode == 0, done.stderr
        assert "into the postgres store" in done.stdout
        config = make_config(
            tmp_path / "pg", secret_key=SECRET, store="postgres", postgres_dbname=dbname
        )
        assert summary(config) == before
        again = arbiter(env, "restore", str(path))  # the database now holds a club
        assert again.returncode == 2
        assert "not empty" in again.stderr and "nothing was written" in again.stderr
        assert summary(config) == before
        moved_back = tmp_path / "from-pg.backup"
        done = arbiter(env, "backup", str(moved_back))
        assert done.returncode == 0, done.stderr
    assert json.loads(members(moved_back)["manifest.json"])["source"] == {"store": "postgres"}
    done = arbiter(sqlite_env(tmp_path / "back"), "restore", str(moved_back))
    assert done.returncode == 0, done.stderr
    assert summary(make_config(tmp_path / "back", secret_key=SECRET)) == before


def snapshot_of(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_store_that_is_not_empty_is_refused_and_nothing_is_written(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    root = source.var_dir.parent
    before = snapshot_of(root)
    done = arbiter(sqlite_env(root), "restore", str(path))  # into the server it came from
    assert done.returncode == 2
    assert "refused: the store to restore into is not empty" in done.stderr
    assert "arbiter.sqlite already holds events" in done.stderr
    assert "nothing was written" in done.stderr
    assert snapshot_of(root) == before
    # heads alone (the data folder lost, the keys folder kept) are refused as well
    shutil.rmtree(source.var_dir)
    heads_only = snapshot_of(root)
    done = arbiter(sqlite_env(root), "restore", str(path))
    assert done.returncode == 2 and "2 anchored heads" in done.stderr
    assert snapshot_of(root) == heads_only and not source.var_dir.exists()


def rewritten(path: Path, out: Path, change: Any) -> Path:
    """A copy of the backup at ``path`` with ``change(name, data)`` applied to each member."""
    parts = members(path)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in parts.items():
            data = change(name, data)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def test_a_damaged_truncated_or_foreign_backup_is_refused_with_a_message(
    source: Config, tmp_path: Path
) -> None:
    path = tmp_path / "club.backup"
    backup(source, path)
    whole = path.read_bytes()
    truncated = tmp_path / "truncated.backup"
    truncated.write_bytes(whole[: len(whole) // 2])
    flipped = rewritten(
        path,
        tmp_path / "flipped.backup",
        lambda name, data: (
            data.replace(b'"originator_version":3', b'"originator_version":4', 1)
            if name == "events.ndjson"
            else data
        ),
    )
    dropped = tmp_path / "dropped.backup"
    with tarfile.open(dropped, "w:gz") as tar:
        for name, data in members(path).items():
            if name != "heads.ndjson":
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    future = rewritten(
        path,
        tmp_path / "future.backup",
        lambda name, data: (
            data.replace(b'"format_version": 2', b'"format_version": 3')
            if name == "manifest.json"
            else data
        ),
    )
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a backup\n")
    cases = {
        truncated: "is not a whole Arbiter backup (truncated or damaged",
        flipped: "events.ndjson does not match its checksum (damaged)",
        dropped: "heads.ndjson is missing (truncated?)",
        future: "is an Arbiter backup of format 3; this Arbiter reads format 2",
        foreign: "is not a whole Arbiter backup (truncated or damaged",
        tmp_path / "absent.backup": "there is no backup file at",
    }
    for number, (bad, message) in enumerate(cases.items()):
        target = tmp_path / f"dst{number}"
        done = arbiter(sqlite_env(target), "restore", str(bad))
        assert done.returncode == 2, (bad, done.stdout)
        assert message in done.stderr and "nothing was restored" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert not target.exists()  # not even the data or keys folder


def test_the_key_a_backup_was_made_under_is_required_or_taken_from_a_backup_with_keys(
    source: Config, tmp_path: Path
) -> None:
    bare, keyed = tmp_path / "bare.backup", tmp_path / "keyed.backup"
    backup(source, bare)
    backup(source, keyed, "--with-keys")
    other = tmp_path / "other"
    done = arbiter(sqlite_env(other, secret="another-key"), "restore", str(bare))
    assert done.returncode == 2 and "not made under this server's key" in done.stderr
    done = arbiter(sqlite_env(other, secret="another-key"), "restore", str(keyed))
    assert done.returncode == 2 and "not made under this server's key" in done.stderr
    keyless = tmp_path / "keyless"
    done = arbiter(sqlite_env(keyless, secret=None), "restore", str(bare))
    assert done.returncode == 2 and "has no key yet and the backup holds none" in done.stderr
    assert not other.exists() and not keyless.exists()
    done = arbiter(sqlite_env(keyless, secret=None), "restore", "--take-key", str(keyed))
    assert done.returncode == 0, done.stderr
    assert "the key taken from the backup" in done.stdout
    key = keyless / "keys" / "secret_key"
    assert key.read_text() == SECRET and key.stat().st_mode & 0o777 == 0o600
    assert "the web push key taken from the backup" in done.stdout
    push_key = keyless / "keys" / "vapid_private_key"
    assert push_key.read_text() == (source.keys / "vapid_private_key").read_text()
    assert push_key.stat().st_mode & 0o777 == 0o600
    verify = arbiter(sqlite_env(keyless, secret=None), "audit", "verify", "--all")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_a_head_behind_its_log_is_moved_to_its_end_and_a_missing_head_is_not_invented(
    source: Config, tmp_path: Path
) -> None:
    """As a backup of a running server finds them: a head read before the game's last commits is
    moved forward once its log verifies through it; a game with no head that existed when the heads
    were read is left without one, and the restore says so and exits 1."""
    svc = build_services(source)
    try:
        behind, headless = (
            str(row["id"]) for row in list(svc.index.every(GameQuery(everything=True)))
        )
        end = svc.games.get(behind).version
        svc.store.heads.reset(behind, end - 2, svc.games.get(behind, version=end - 2).last_hash)
    finally:
        svc.close()
    with sqlite3.connect(source.heads_file) as conn:
        conn.execute("DELETE FROM heads WHERE game = ?", (headless,))
    conn.close()
    path = tmp_path / "club.backup"
    backup(source, path)
    target = tmp_path / "dst"
    done = arbiter(sqlite_env(target), "restore", str(path))
    assert done.returncode == 1
    assert "1 of 2 games verify" in done.stdout
    assert f"does not verify: {headless}: the log ends at" in done.stderr
    assert "has no anchored head (cut?)" in done.stderr
    restored = summary(make_config(target, secret_key=SECRET))
    assert restored["heads"] == {behind: end}
