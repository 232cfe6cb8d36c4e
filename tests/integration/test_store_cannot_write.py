"""A store that can be read but not written (issue 34: ``/healthz`` said ``ok`` while every write
answered 503 on a full disk, and the 503 said "not reachable").  With real parts: a SQLite store on
a small ext4 disk of its own (a loop device) that fills up, or that goes read-only under the
running server the way a failing disk does (ext4 ``errors=remount-ro``); a PostgreSQL database
made read-only (``default_transaction_read_only``, as a standby after a fail-over is).

``/healthz`` answers 503 ``down`` with the reason, every write answers 503 saying why in words, reads
go on, and service comes back by itself once the disk has room again or the database is writable."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.application.store_faults import StoreFaults
from service.application.store_probe import StoreProbe
from service.bootstrap import migrate
from service.config import Config
from tests.conftest import make_config
from tests.support.api import ApiHelper
from tests.support.services import PG, postgres_database

SIDES = {"red": "alice", "blue": "bob"}
DISK_MB = 16


@dataclass
class Disk:
    """A small ext4 file system of the test's own, mounted at ``path``."""

    path: Path
    device: str

    def fill(self) -> Path:
        """Fill it to the last block; the filler's path (delete it to free the disk)."""
        filler = self.path / "filler"
        chunk = b"\0" * (256 * 1024)
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for size in (len(chunk), 4096, 1):
                try:
                    while os.write(fd, chunk[:size]):
                        pass
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
            os.fsync(fd)
        finally:
            os.close(fd)
        return filler

    def fail(self) -> None:
        """What a failing disk does: ext4 records an error and remounts itself read-only, under
        the open files."""
        name = Path(self.device).name
        Path(f"/sys/fs/ext4/{name}/trigger_fs_error").write_text("arbiter test\n")
        assert {"ro", "emergency_ro"} & set(mount_options(self.path))


def mount_options(path: Path) -> list[str]:
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if fields[1] == str(path):
            return fields[3].split(",")
    return []


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    image, mountpoint = tmp_path / "disk.img", tmp_path / "disk"
    mountpoint.mkdir()
    with image.open("wb") as out:
        out.truncate(DISK_MB * 1024 * 1024)
    made = subprocess.run(
        ["mkfs.ext4", "-q", "-F", "-m", "0", str(image)], capture_output=True, text=True
    )
    mounted = made.returncode == 0 and (
        subprocess.run(
            ["mount", "-o", "loop,errors=remount-ro", str(image), str(mountpoint)],
            capture_output=True,
            text=True,
        ).returncode
        == 0
    )
    if not mounted:
        pytest.skip("needs root and a loop device to mount a small ext4 disk of its own")
    device = subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", str(mountpoint)], capture_output=True, text=True
    ).stdout.strip()
    try:
        yield Disk(mountpoint, device)
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


@pytest.fixture
def app_on_disk(disk: Disk, tmp_path: Path, index_template: Path) -> Iterator[Flask]:
    """The app with its SQLite store (and the notification store beside it) on ``disk``."""
    config = make_config(tmp_path, sqlite_path=disk.path / "store" / "arbiter.sqlite")
    shutil.copytree(index_template, config.index_dir)
    app = create_app(config)
    yield app
    app.extensions["arbiter"].close()


def started_game(api: ApiHelper) -> dict[str, Any]:
    game = api.create_game("skirmish", "meeting", SIDES)
    for name in SIDES.values():
        api.game(game["id"], name)  # each token's first use is recorded now, not during the test
    assert api.client.get("/healthz").get_json()["status"] == "ok"
    return game


def health_when(client: FlaskClient, status: int, within: float = 10) -> dict[str, Any]:
    """``/healthz`` once it answers ``status`` (it keeps its answer a second or two)."""
    deadline = time.monotonic() + within
    while (r := client.get("/healthz")).status_code != status:
        assert time.monotonic() < deadline, r.get_json()
        time.sleep(0.2)
    body: dict[str, Any] = r.get_json()
    return body


def assert_down(health: dict[str, Any], reason: str, words: str) -> None:
    assert health["status"] == "down" and health["reason"] == reason
    assert health["store"]["ok"] is False and health["store"]["reason"] == reason
    assert words in health["store"]["error"]


def assert_refused(response: Any, reason: str, words: str) -> None:
    assert response.status_code == 503, response.get_json()
    body = response.get_json()
    assert body["error"] == "unavailable" and body["details"] == {"store": [reason]}
    assert words in body["message"] and "not reachable" not in body["message"]
    assert int(response.headers["Retry-After"]) >= 2


def end_phase(api: ApiHelper, game: dict[str, Any]) -> Any:
    version = api.game(game["id"], "alice")["version"]
    return api.command(game["id"], "alice", {"type": "end_phase"}, expected_version=version)


def test_a_full_disk_is_down_in_healthz_and_every_write_says_why(
    app_on_disk: Flask, disk: Disk
) -> None:
    api = ApiHelper(app_on_disk.test_client())
    game = started_game(api)
    version = api.game(game["id"], "alice")["version"]

    filler = disk.fill()
    assert_down(health_when(api.client, 503), "disk full", "disk is full")
    assert_refused(end_phase(api, game), "disk full", "disk is full")
    r = api.client.post("/api/users", json={"username": "carol", "password": "pw-pw-pw-pw-pw"})
    assert_refused(r, "disk full", "disk is full")
    assert api.game(game["id"], "alice")["version"] == version  # reads go on; nothing was written

    filler.unlink()
    assert health_when(api.client, 200)["status"] == "ok"
    assert end_phase(api, game).status_code == 201


def test_a_disk_gone_read_only_under_the_server_is_down_and_writes_say_why(
    app_on_disk: Flask, disk: Disk
) -> None:
    api = ApiHelper(app_on_disk.test_client())
    game = started_game(api)
    version = api.game(game["id"], "alice")["version"]

    disk.fail()
    assert_down(health_when(api.client, 503), "read-only", "read-only")
    assert_refused(end_phase(api, game), "read-only", "read-only")
    assert api.game(game["id"], "alice")["version"] == version


@pytest.mark.postgres
@pytest.mark.parametrize("schema", ["", "club_store"])
def test_a_read_only_postgres_database_is_down_and_writes_say_why(
    tmp_path: Path, index_template: Path, schema: str
) -> None:
    """Also with ``POSTGRES_SCHEMA``: the probe names the recorder's schema (an unqualified
    table was not found there, and the probe said ok)."""
    with postgres_database() as dbname:
        config = make_config(
            tmp_path,
            store="postgres",
            postgres_dbname=dbname,
            postgres_user=PG["user"],
            postgres_schema=schema,
        )
        if schema:
            with psycopg.connect(dbname=dbname, autocommit=True, **PG) as admin:
                admin.execute(f'CREATE SCHEMA "{schema}"')
        shutil.copytree(index_template, config.index_dir)
        migrate(config)
        app = create_app(config)
        try:
            api = ApiHelper(app.test_client())
            game = started_game(api)
            version = api.game(game["id"], "alice")["version"]

            read_only(config, True)
            assert_down(health_when(api.client, 503), "read-only", "read-only")
            assert_refused(end_phase(api, game), "read-only", "read-only")
            assert api.game(game["id"], "alice")["version"] == version

            read_only(config, False)
            assert health_when(api.client, 200)["status"] == "ok"
            assert end_phase(api, game).status_code == 201
        finally:
            app.extensions["arbiter"].close()


def read_only(config: Config, on: bool) -> None:
    """The database read-only (or writable again) for every new session, and the sessions open
    now ended, as a fail-over to a standby (and back) does."""
    with psycopg.connect(dbname="postgres", autocommit=True, **PG) as admin:
        setting = "SET default_transaction_read_only = on" if on else "RESET ALL"
        admin.execute(f'ALTER DATABASE "{config.postgres_dbname}" {setting}')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (config.postgres_dbname,),
        )


class CountingFaults(StoreFaults):
    def __init__(self, sqlite_file: Path | None) -> None:
        super().__init__(sqlite_file)
        self.writes = 0

    def sqlite_write(self, table: str = "stored_events") -> str | None:
        self.writes += 1
        return super().sqlite_write(table)


def test_the_store_is_probed_once_a_second_or_two_and_no_probe_write_is_kept(
    app: Flask, config: Config
) -> None:
    api = ApiHelper(app.test_client())
    started_game(api)
    recorder = app.extensions["arbiter"].store.recorder
    now = [100.0]
    faults = CountingFaults(config.sqlite_file)
    store_probe = StoreProbe(recorder, faults, ttl=1.5, clock=lambda: now[0])
    assert store_probe.report()["ok"] is True and faults.writes == 1
    now[0] += 1.4
    assert store_probe.report()["ok"] is True and faults.writes == 1  # the kept answer
    now[0] += 0.1
    assert store_probe.report()["ok"] is True and faults.writes == 2

    files = [config.sqlite_file.with_name(config.sqlite_file.name + s) for s in ("", "-wal")]
    before = [f.read_bytes() for f in files]
    newest = recorder.max_notification_id()
    every_time = StoreProbe(recorder, faults, ttl=0)
    for _ in range(20):
        assert every_time.report()["ok"] is True
    assert faults.writes == 22
    assert [f.read_bytes() for f in files] == before  # not a byte written
    assert recorder.max_notification_id() == newest
